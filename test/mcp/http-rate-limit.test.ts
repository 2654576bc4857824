/**
 * The per-client rate limit of `mcp --http` (issue 28, acceptance 3): the same settings and the
 * same answer as `serve` (429, Retry-After, X-RateLimit-*), a JSON-RPC error body naming
 * RATE_LIMITED; other clients go on; /health is never limited; X-Forwarded-For counts only
 * through a trusted proxy. In process, then through the built CLI's environment settings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rateLimitSettingsFromEnv, type TrustProxy } from '../../src/http/rate-limit.js';
import { RATE_LIMITED_RPC_CODE, requestLimiter } from '../../src/mcp/http-rate-limit.js';
import { serveHttp } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { cli, serverEnv } from './helpers/peers.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const MAX = 3;

async function start(trust: TrustProxy): Promise<string> {
  const calc = new CalcService(new MemoryStore());
  const server = await serveHttp({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [],
    log: () => {},
    limit: requestLimiter({ max: MAX, windowSeconds: 60, key: 'ip' }, trust),
    createServer: () =>
      createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
  });
  stops.push(async () => (await server.close(), await calc.close()));
  return server.url;
}

/** A JSON-RPC ping from `client` (as a proxy on loopback would forward it). */
const ping = (url: string, client?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(client ? { 'x-forwarded-for': client } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('rate limit on mcp --http', () => {
  it('refuses the client over the limit with 429 and Retry-After; another client is unaffected', async () => {
    const url = await start('loopback');
    for (let i = 0; i < MAX; i++) {
      const ok = await ping(url, '203.0.113.5');
      expect(ok.status).not.toBe(429); // a ping without a session: refused by MCP, counted here
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(MAX - 1 - i));
    }
    const refused = await ping(url, '203.0.113.5');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(MAX));
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: RATE_LIMITED_RPC_CODE,
        message: `Too many requests: at most ${MAX} per 60 s from one client; retry in ${retryAfter} s`,
        data: { code: 'RATE_LIMITED', retryAfterSeconds: retryAfter },
      },
      id: null,
    });
    expect((await ping(url, '203.0.113.9')).status).not.toBe(429);
    const health = await fetch(url.replace(/\/mcp$/, '/health'), {
      headers: { 'x-forwarded-for': '203.0.113.5' },
    });
    expect(health.status).toBe(200);
    expect((await ping(url, '203.0.113.5')).status).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer it does not trust: forging it buys no fresh window', async () => {
    const url = await start(false);
    for (let i = 0; i < MAX; i++) expect((await ping(url, `198.51.100.${i}`)).status).not.toBe(429);
    expect((await ping(url, '198.51.100.77')).status).toBe(429);
  });
});

describe('mcp --http reads the rate-limit settings (the built CLI)', () => {
  let child: AnnouncedChild | undefined;
  afterEach(async () => {
    await child?.stop();
    child = undefined;
  });

  it('limits at MODELWORKS_RATE_LIMIT_MAX and refuses a malformed setting before it starts', async () => {
    expect(() => rateLimitSettingsFromEnv({ MODELWORKS_RATE_LIMIT_MAX: 'lots' })).toThrow(
      /MODELWORKS_RATE_LIMIT_MAX/,
    );
    child = await startAnnounced({
      args: [cli, 'mcp', '--http', '--port', '0'],
      env: { ...serverEnv, MODELWORKS_RATE_LIMIT_MAX: '2' },
      announce: /Streamable HTTP at (http:\/\/\S+:\d+\/mcp)/,
      what: 'mcp --http',
    });
    const url = child.match[1]!;
    expect((await ping(url)).status).not.toBe(429);
    expect((await ping(url)).status).not.toBe(429);
    expect((await ping(url)).status).toBe(429);
  });
});
