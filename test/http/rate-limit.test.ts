// Per-client rate limiting (issue 28, acceptance 3): a client over the limit gets 429 with
// Retry-After in the server's own error shape, while other clients go on unaffected; behind a
// trusted proxy the client is the forwarded address, and a forged X-Forwarded-For is ignored
// when the proxy is not trusted.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import {
  rateLimitSettingsFromEnv,
  trustProxyFromEnv,
  type RateLimitSettings,
} from '../../src/http/rate-limit.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SynthService } from '../../src/service/synth-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { buildSynthServiceApp } from '../../src/synth-service-http/app.js';

let app: FastifyInstance | undefined;
let calc: CalcService | undefined;
let synth: SynthService | undefined;

afterEach(async () => {
  await app?.close();
  await calc?.close();
  await synth?.close();
  app = calc = synth = undefined;
});

const LIMIT: RateLimitSettings = { max: 3, windowSeconds: 60, key: 'ip' };

async function serve(options: Partial<AppOptions> = {}): Promise<FastifyInstance> {
  calc = new CalcService(new MemoryStore());
  app = await buildApp({ calc, rateLimit: LIMIT, ...options });
  await app.ready();
  return app;
}

/** A request from a proxy at 10.0.0.1 forwarding for `client`. */
const viaProxy = (client: string, url = '/models', headers: Record<string, string> = {}) =>
  app!.inject({ url, remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': client, ...headers } });

describe('rate limit on serve', () => {
  it('refuses the client over the limit with 429 and Retry-After; another client is unaffected', async () => {
    await serve({ trustProxy: '10.0.0.1' });
    for (let i = 0; i < LIMIT.max; i++) {
      const ok = await viaProxy('203.0.113.5');
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(LIMIT.max - 1 - i));
    }
    const refused = await viaProxy('203.0.113.5');
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LIMIT.windowSeconds);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      detail: `Too many requests: at most 3 per 60 s from one client; retry in ${retryAfter} s`,
    });
    // another client behind the same proxy goes on
    expect((await viaProxy('203.0.113.9')).statusCode).toBe(200);
    // liveness probes are never refused
    expect((await viaProxy('203.0.113.5', '/health')).statusCode).toBe(200);
    expect((await viaProxy('203.0.113.5')).statusCode).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer it does not trust: forging it buys no fresh window', async () => {
    await serve(); // no trustProxy: the peer address is the client
    for (let i = 0; i < LIMIT.max; i++) expect((await viaProxy(`198.51.100.${i}`)).statusCode).toBe(200);
    expect((await viaProxy('198.51.100.77')).statusCode).toBe(429);
    // a different peer is a different client
    expect((await app!.inject({ url: '/models', remoteAddress: '10.0.0.2' })).statusCode).toBe(200);
  });

  it('trusts a number of hops: the address that many hops back is the client', async () => {
    await serve({ trustProxy: trustProxyFromEnv({ MODELWORKS_TRUST_PROXY: '1' }) });
    for (let i = 0; i < LIMIT.max; i++)
      expect((await viaProxy('192.0.2.1, 203.0.113.5')).statusCode).toBe(200);
    expect((await viaProxy('192.0.2.2, 203.0.113.5')).statusCode).toBe(429); // same last hop
    expect((await viaProxy('192.0.2.1, 203.0.113.6')).statusCode).toBe(200);
  });

  it('by credential: a client sending wrong keys is limited, the key holder on the same address is not', async () => {
    await serve({ apiKey: 'k3y', rateLimit: { ...LIMIT, key: 'credential' } });
    const from = (authorization: string) =>
      app!.inject({ url: '/models', remoteAddress: '10.0.0.3', headers: { authorization } });
    for (let i = 0; i < LIMIT.max; i++) expect((await from('Bearer wrong')).statusCode).toBe(401);
    expect((await from('Bearer wrong')).statusCode).toBe(429); // limited ahead of the key check
    expect((await from('Bearer k3y')).statusCode).toBe(200);
  });

  it('opens a fresh window once the old one has passed', async () => {
    // the limiter's store reads Date.now: only the date is faked, so the server's timers run as usual
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await serve({ rateLimit: { max: 1, windowSeconds: 60, key: 'ip' } });
      expect((await app!.inject({ url: '/models' })).statusCode).toBe(200);
      expect((await app!.inject({ url: '/models' })).statusCode).toBe(429);
      vi.setSystemTime(Date.now() + 59_000);
      expect((await app!.inject({ url: '/models' })).statusCode).toBe(429);
      vi.setSystemTime(Date.now() + 1_000);
      expect((await app!.inject({ url: '/models' })).statusCode).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is off unless configured', async () => {
    calc = new CalcService(new MemoryStore());
    app = await buildApp({ calc });
    for (let i = 0; i < 20; i++) {
      const res = await app.inject({ url: '/models' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});

describe('rate limit on synth serve', () => {
  it('answers 429 in the synth error shape, with Retry-After', async () => {
    synth = new SynthService();
    app = buildSynthServiceApp({ service: synth, rateLimit: { ...LIMIT, max: 2 }, trustProxy: true });
    const from = (client: string) =>
      app!.inject({ url: '/v1/allowlists', headers: { 'x-forwarded-for': client } });
    expect((await from('203.0.113.5')).statusCode).toBe(200);
    expect((await from('203.0.113.5')).statusCode).toBe(200);
    const refused = await from('203.0.113.5');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringContaining('Too many requests: at most 2 per 60 s') as unknown,
        retryAfterSeconds: Number(refused.headers['retry-after']),
      },
    });
    expect((await from('203.0.113.6')).statusCode).toBe(200);
  });
});

describe('rate-limit settings', () => {
  it('reads the limit, the window and the key, and refuses malformed values in our words', () => {
    expect(rateLimitSettingsFromEnv({})).toBeUndefined();
    expect(rateLimitSettingsFromEnv({ MODELWORKS_RATE_LIMIT_MAX: '0' })).toBeUndefined();
    expect(rateLimitSettingsFromEnv({ MODELWORKS_RATE_LIMIT_MAX: '100' })).toEqual({
      max: 100,
      windowSeconds: 60,
      key: 'ip',
    });
    expect(
      rateLimitSettingsFromEnv({
        MODELWORKS_RATE_LIMIT_MAX: '5',
        MODELWORKS_RATE_LIMIT_WINDOW_SECONDS: '1.5',
        MODELWORKS_RATE_LIMIT_KEY: 'credential',
      }),
    ).toEqual({ max: 5, windowSeconds: 1.5, key: 'credential' });
    expect(() => rateLimitSettingsFromEnv({ MODELWORKS_RATE_LIMIT_MAX: 'lots' })).toThrow(
      "MODELWORKS_RATE_LIMIT_MAX must be a whole number of requests (got 'lots')",
    );
    expect(() =>
      rateLimitSettingsFromEnv({
        MODELWORKS_RATE_LIMIT_MAX: '5',
        MODELWORKS_RATE_LIMIT_WINDOW_SECONDS: '-1',
      }),
    ).toThrow('MODELWORKS_RATE_LIMIT_WINDOW_SECONDS must be a number of seconds');
    expect(() =>
      rateLimitSettingsFromEnv({ MODELWORKS_RATE_LIMIT_MAX: '5', MODELWORKS_RATE_LIMIT_KEY: '__proto__' }),
    ).toThrow("MODELWORKS_RATE_LIMIT_KEY must be ip or credential (got '__proto__')");
  });

  it('reads trustProxy: off by default, true, hops, or a list of addresses and ranges', () => {
    expect(trustProxyFromEnv({})).toBe(false);
    expect(trustProxyFromEnv({ MODELWORKS_TRUST_PROXY: 'true' })).toBe(true);
    expect(trustProxyFromEnv({ MODELWORKS_TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,loopback' })).toBe(
      '10.0.0.1,10.1.0.0/16,loopback',
    );
    expect(trustProxyFromEnv({ MODELWORKS_TRUST_PROXY: '::1,fd00::/8' })).toBe('::1,fd00::/8');
    expect(typeof trustProxyFromEnv({ MODELWORKS_TRUST_PROXY: '2' })).toBe('function');
    for (const bad of ['proxy.example', '10.0.0.1/33', '10.0.0.1/8/8', '10.0.0.1,'])
      expect(() => trustProxyFromEnv({ MODELWORKS_TRUST_PROXY: bad })).toThrow(
        'MODELWORKS_TRUST_PROXY must be true, a number of hops, or addresses and CIDR ranges',
      );
  });
});
