// Streamable HTTP specifics, seen with plain HTTP requests: sessions (and their expiry), one-off
// requests, Origin and Host checks against DNS rebinding, and a clean stop.
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, root, serverEnv, startHttpServer, type HttpServerChild } from './helpers/peers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ACCEPT = 'application/json, text/event-stream';
const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-http', version: '1' } },
});

/** The JSON-RPC message in a body that is either JSON or one SSE event. */
function rpcBody(contentType: string | null, body: string): Json {
  if (contentType?.includes('text/event-stream')) {
    const data = body
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .find((l) => l.trim().startsWith('{'));
    return JSON.parse(data ?? 'null') as Json;
  }
  return JSON.parse(body) as Json;
}

/** A request with full control over headers, Host included (fetch may not set Host). */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('MCP over Streamable HTTP', () => {
  let server: HttpServerChild;
  let url: string;
  beforeAll(async () => {
    server = await startHttpServer();
    url = server.url;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
      body: JSON.stringify(body),
    });

  it('prints a loopback URL ending in /mcp and answers /health', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const health = await fetch(new URL('/health', url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(new URL('/elsewhere', url))).status).toBe(404);
  });

  it('initialize mints a session; requests in it work; DELETE ends it; an unknown session is 404', async () => {
    const init = await post(initialize());
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/\S{8,}/);
    const initBody = rpcBody(init.headers.get('content-type'), await init.text());
    expect(initBody.result.protocolVersion).toBe('2025-11-25');

    const headers = { 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
    const ping = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
    expect(ping.status).toBe(200);
    expect(rpcBody(ping.headers.get('content-type'), await ping.text())).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });

    const del = await fetch(url, { method: 'DELETE', headers });
    expect(del.status).toBe(200);
    const after = await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, headers);
    expect(after.status).toBe(404);

    const unknown = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      { 'mcp-session-id': 'no-such-session' },
    );
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Json).error).toBeDefined();
  });

  it('answers a request outside any session with a one-off session', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'eval_expression', arguments: { expr: '6 * 7' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = rpcBody(res.headers.get('content-type'), await res.text());
    expect(body.id).toBe(7);
    expect(body.result.structuredContent).toMatchObject({ ok: true, result: 42 });

    // a GET stream needs a session
    const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(400);
    await get.body?.cancel();
    // a body that is not JSON is a parse error
    const garbage = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: '{not json',
    });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as Json).error.code).toBe(-32700);
  });

  it('refuses a foreign Origin with 403 and accepts a loopback one', async () => {
    const evil = await post(initialize(), { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('mcp-session-id')).toBeNull();
    const lookalike = await post(initialize(), { origin: 'http://127.0.0.1.evil.example' });
    expect(lookalike.status).toBe(403);
    const local = await post(initialize(), { origin: `http://localhost:${new URL(url).port}` });
    expect(local.status).toBe(200);
    await local.body?.cancel();
  });

  it('refuses a non-loopback Host header with 403 (DNS rebinding)', async () => {
    const headers = { 'content-type': 'application/json', accept: ACCEPT };
    const body = JSON.stringify(initialize());
    const rebound = await rawRequest(url, 'POST', { ...headers, host: 'evil.example' }, body);
    expect(rebound.status).toBe(403);
    const rebound2 = await rawRequest(
      url,
      'POST',
      { ...headers, host: `attacker.test:${new URL(url).port}` },
      body,
    );
    expect(rebound2.status).toBe(403);
    const loopback = await rawRequest(
      url,
      'POST',
      { ...headers, host: `localhost:${new URL(url).port}` },
      body,
    );
    expect(loopback.status).toBe(200);
  });

  /** A session opened by hand: initialize, then `beforeInitialized` requests, then initialized. */
  async function openSession(beforeInitialized: Json[] = []) {
    const init = await post(initialize());
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    for (const message of beforeInitialized) {
      const res = await post(message, headers);
      expect(res.status).toBe(200);
      await res.text();
    }
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
    const call = async (id: number, name: string, args: Json) => {
      const res = await post(
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
        headers,
      );
      return rpcBody(res.headers.get('content-type'), await res.text());
    };
    return { headers, call };
  }

  /** Opens the GET event stream; `next()` resolves with each JSON-RPC message pushed on it. */
  async function eventStream(headers: Record<string, string>) {
    const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const next = async (): Promise<Json> => {
      for (;;) {
        const m = /^data: (.*)$/m.exec(buffer);
        if (m) {
          buffer = buffer.slice(m.index + m[0].length);
          if (m[1]!.trim().startsWith('{')) return JSON.parse(m[1]!) as Json;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    return { next, close: () => reader.cancel() };
  }

  it('sends the readiness log once the session has its event stream', async () => {
    const { headers } = await openSession();
    const stream = await eventStream(headers);
    const first = await stream.next();
    expect(first).toMatchObject({
      method: 'notifications/message',
      params: { level: 'info', logger: 'modelworks' },
    });
    expect(first.params.data).toMatch(/ready/);
    await stream.close();
  });

  it('honours a session’s logging/setLevel for the readiness log', async () => {
    const { headers, call } = await openSession([
      { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'warning' } },
    ]);
    const stream = await eventStream(headers);
    // a resource update is the next thing pushed on this stream, so nothing came before it
    const subscribe = await post(
      { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'valem://state/levels' } },
      headers,
    );
    await subscribe.text();
    expect(
      (await call(4, 'create_model', { spec: { id: 'levels', schema: {} } })).result.isError,
    ).toBeFalsy();
    expect((await call(5, 'mutate', { id: 'levels', mutations: { '$.a': 1 } })).result.isError).toBeFalsy();
    expect(await stream.next()).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'valem://state/levels' },
    });
    await stream.close();
  });

  it('closes a session left unused for MODELWORKS_MCP_SESSION_IDLE_SECONDS and says so', async () => {
    const other = await startHttpServer({ ...serverEnv, MODELWORKS_MCP_SESSION_IDLE_SECONDS: '0.3' });
    try {
      const init = await fetch(other.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT },
        body: JSON.stringify(initialize()),
      });
      const headers = {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-11-25',
      };
      await init.text();
      // the server's own line says the session was closed
      await expect.poll(() => other.stderr(), { timeout: 15_000 }).toMatch(/closed 1 session unused for/);
      const ping = await fetch(other.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      expect(ping.status).toBe(404);
    } finally {
      await other.stop();
    }
  });

  it('refuses a bad MODELWORKS_MCP_SESSION_IDLE_SECONDS before it starts (exit 2)', () => {
    const r = spawnSync(process.execPath, [cli, 'mcp', '--http', '--port', '0'], {
      cwd: root,
      env: { ...serverEnv, MODELWORKS_MCP_SESSION_IDLE_SECONDS: 'soon' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/MODELWORKS_MCP_SESSION_IDLE_SECONDS must be a positive number of seconds/);
  });

  it('stops cleanly on SIGTERM', async () => {
    const other = await startHttpServer();
    const init = await fetch(other.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify(initialize()),
    });
    expect(init.status).toBe(200);
    await init.body?.cancel();
    expect(await other.stop()).toBe(0);
  });
});
