/**
 * One structured logger for every server (issue 28, point 3): `serve`, `mcp --http` and `synth
 * serve` write JSON lines with a request id (answered in X-Request-Id, a caller's own kept) on stderr at the level --log-level or
 * MODELWORKS_LOG_LEVEL sets, with no credential in them; `mcp` over stdio keeps stdout for protocol
 * messages only. The servers run as the built CLI (`npm run build` first, as the other CLI tests).
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createLogger,
  logLevelFrom,
  newRequestId,
  redactUrl,
  withRequestId,
} from '../../src/observability/logger.js';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { cli, serverEnv } from '../mcp/helpers/peers.js';

type Line = Record<string, unknown>;

/** The JSON lines of a stderr text (the plain start-up announcement is not one of them). */
const jsonLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

describe('the logger', () => {
  it('takes --log-level over MODELWORKS_LOG_LEVEL over warn, and refuses other words', () => {
    expect(logLevelFrom(undefined, {})).toBe('warn');
    expect(logLevelFrom(undefined, { MODELWORKS_LOG_LEVEL: 'DEBUG' })).toBe('debug');
    expect(logLevelFrom('error', { MODELWORKS_LOG_LEVEL: 'debug' })).toBe('error');
    expect(() => logLevelFrom('loud', {})).toThrow(
      /--log-level must be one of silent, .*trace \(got 'loud'\)/,
    );
    expect(() => logLevelFrom(undefined, { MODELWORKS_LOG_LEVEL: '__proto__' })).toThrow(
      /MODELWORKS_LOG_LEVEL/,
    );
  });

  it('writes JSON lines at its level, with the request id, and no credentials', () => {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString('utf8');
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination: sink });
    const reqId = newRequestId();
    withRequestId(reqId, () => {
      logger.debug('below the level');
      logger.info(
        { req: { method: 'GET', url: '/x?token=s3cret&a=1', headers: { authorization: 'Bearer k' } } },
        'in',
      );
      logger.warn({ authorization: 'Bearer k', token: 't0k' }, 'careful');
    });
    logger.info('outside');
    const lines = jsonLines(text);
    expect(lines.map((l) => l.msg)).toEqual(['in', 'careful', 'outside']);
    expect(lines.map((l) => l.reqId)).toEqual([reqId, reqId, undefined]);
    expect(lines[0]!.req).toEqual({ method: 'GET', url: '/x?token=[redacted]&a=1' });
    expect(text).not.toMatch(/s3cret|Bearer|t0k/);
    expect(redactUrl('/s?session=abc')).toBe('/s?session=[redacted]');
  });
});

let running: AnnouncedChild | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** Lines of the requests the server logged, grouped by request id. */
function byRequest(lines: Line[]): Map<unknown, Line[]> {
  const out = new Map<unknown, Line[]>();
  for (const l of lines.filter((l) => l.reqId !== undefined))
    out.set(l.reqId, [...(out.get(l.reqId) ?? []), l]);
  return out;
}

/** Two requests (one with a token and a key), then each has its incoming and completed lines at info. */
async function expectRequestLines(base: string, path: string, child: AnnouncedChild): Promise<void> {
  // a caller's own request id is kept (a proxy's, say); one that is not a plain token is replaced
  const first = await fetch(`${base}${path}?token=s3cret`, {
    headers: { authorization: 'Bearer k3y', 'x-request-id': 'edge-7f3a.42' },
  });
  const second = await fetch(`${base}${path}`, { headers: { 'x-request-id': 'x'.repeat(200) } });
  expect(first.headers.get('x-request-id')).toBe('edge-7f3a.42');
  const generated = second.headers.get('x-request-id')!;
  expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
  await expect
    .poll(() => jsonLines(child.stderr()).filter((l) => l.msg === 'request completed').length)
    .toBe(2);
  const requests = byRequest(jsonLines(child.stderr()));
  expect(requests.size).toBe(2);
  // the id each answer carried is the one on its log lines
  expect([...requests.keys()].sort()).toEqual(['edge-7f3a.42', generated].sort());
  for (const lines of requests.values()) {
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    for (const l of lines) expect(l).toMatchObject({ level: 30, name: 'modelworks' });
    expect(lines[0]!.req).toMatchObject({ method: 'GET' });
  }
  expect(child.stderr()).toContain('token=[redacted]');
  expect(child.stderr()).not.toMatch(/s3cret|k3y/);
}

describe('every server', () => {
  it('serve: request lines with Fastify’s request id at --log-level info', async () => {
    running = await startAnnounced({
      args: [cli, 'serve', '--port', '0', '--store', 'memory', '--log-level', 'info'],
      env: serverEnv,
      announce: /serving (http:\/\/\S+:\d+)/,
      what: 'serve',
    });
    await expectRequestLines(running.match[1]!, '/health', running);
  });

  it('mcp --http: request lines with a generated request id at MODELWORKS_LOG_LEVEL=info', async () => {
    running = await startAnnounced({
      args: [cli, 'mcp', '--http', '--port', '0'],
      env: { ...serverEnv, MODELWORKS_LOG_LEVEL: 'info' },
      announce: /Streamable HTTP at (http:\/\/\S+:\d+)\/mcp/,
      what: 'mcp --http',
    });
    await expectRequestLines(running.match[1]!, '/health', running);
  });

  it('synth serve: request lines at --log-level info', async () => {
    running = await startAnnounced({
      args: [cli, 'synth', 'serve', '--port', '0', '--log-level', 'info'],
      env: serverEnv,
      announce: /listening at (http:\/\/\S+:\d+)/,
      what: 'synth serve',
    });
    await expectRequestLines(running.match[1]!, '/health', running);
  });

  it('at the default level (warn) a request writes no line', async () => {
    const env = { ...serverEnv };
    delete env.MODELWORKS_LOG_LEVEL;
    running = await startAnnounced({
      args: [cli, 'mcp', '--http', '--port', '0'],
      env,
      announce: /Streamable HTTP at (http:\/\/\S+:\d+)\/mcp/,
      what: 'mcp --http',
    });
    expect((await fetch(`${running.match[1]!}/health`)).status).toBe(200);
    // stopped and its stderr read to the end: any line the request wrote is in it
    await running.stop();
    expect(jsonLines(running.stderr())).toEqual([]);
  });

  it('refuses an unknown level before it starts (exit 2, named setting)', async () => {
    const child = spawn(process.execPath, [cli, 'mcp', '--http', '--port', '0', '--log-level', 'chatty'], {
      env: serverEnv,
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--log-level must be one of .* \(got 'chatty'\)/);
  });

  it('mcp over stdio: protocol messages only on stdout, even at trace level', async () => {
    const child = spawn(process.execPath, [cli, 'mcp', '--log-level', 'trace'], {
      env: serverEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'get_model_info', arguments: { id: 'none' } },
    });
    await expect
      .poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(3);
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    const lines = stdout.split('\n').filter(Boolean);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines.map((l) => (JSON.parse(l) as Line).id).filter((id) => id !== undefined)).toEqual([1, 2, 3]);
    // the server's own lines went to stderr, as JSON at the level asked for
    expect(jsonLines(stderr).map((l) => [l.level, l.msg])).toEqual([
      [30, expect.stringMatching(/^MCP over stdio/)],
      [30, 'stdin closed: stopped'],
    ]);
  });
});
