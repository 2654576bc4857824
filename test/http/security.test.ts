// The API key, Origin and Host guards, and that the key never shows in a reply or a log line.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './helpers.js';

const KEY = 'sekret-key-0123456789';
let t: TestApp;
const logLines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  t = await testApp({ apiKey: KEY, log: { level: 'info', stream } });
});
afterAll(async () => {
  await t.close();
});

const auth = { authorization: `Bearer ${KEY}` };

describe('API key', () => {
  it('refuses a missing or wrong key with 401 and a Bearer challenge, on every keyed route', async () => {
    for (const url of ['/models', '/models/x/state', '/openapi.json', '/mcp', '/models/x/subscribe']) {
      const none = await t.app.inject({ method: 'GET', url });
      expect(none.statusCode, url).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer');
      const wrong = await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer nope' } });
      expect(wrong.statusCode, url).toBe(401);
      expect(wrong.json()).toMatchObject({ status: 401, detail: 'Invalid API key' });
      expect(wrong.body).not.toContain(KEY);
    }
    const post = await t.app.inject({ method: 'POST', url: '/models', payload: { id: 'k', version: '1' } });
    expect(post.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/models' })).statusCode).toBe(401);
  });

  it('accepts the right key; health stays open', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/models', headers: auth })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/actuator/health' })).statusCode).toBe(200);
  });

  it('allows orphan blob collection with a key', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/blobs/gc?apply=true', headers: auth });
    expect(res.statusCode).toBe(200);
  });

  it('never writes the key to the log, even when sent as ?token=', async () => {
    await t.app.inject({ method: 'GET', url: `/models?token=${KEY}`, headers: auth });
    await t.app.inject({ method: 'GET', url: '/models', headers: { authorization: `Bearer ${KEY}x` } });
    const log = logLines.join('');
    expect(log).toContain('"url":"/models?token=[redacted]"');
    expect(log).not.toContain(KEY);
  });
});

describe('Origin and Host', () => {
  it('refuses a foreign browser Origin with 403, accepts a loopback one', async () => {
    const foreign = await t.app.inject({
      method: 'GET',
      url: '/models',
      headers: { ...auth, origin: 'https://evil.example' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ detail: 'Forbidden origin' });
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...auth, origin: 'https://evil.example' },
      payload: {},
    });
    expect(mcp.statusCode).toBe(403);
    const local = await t.app.inject({
      method: 'GET',
      url: '/models',
      headers: { ...auth, origin: 'http://localhost:5173' },
    });
    expect(local.statusCode).toBe(200);
  });

  it('refuses a non-loopback Host on a loopback bind (DNS rebinding)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/models',
      headers: { ...auth, host: 'evil.example:8080' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ detail: 'Forbidden host' });
  });

  it('honours an explicit origin allowlist', async () => {
    const other = await testApp({ allowedOrigins: ['https://app.example'] });
    try {
      const ok = await other.app.inject({
        method: 'GET',
        url: '/models',
        headers: { origin: 'https://app.example' },
      });
      expect(ok.statusCode).toBe(200);
      const no = await other.app.inject({
        method: 'GET',
        url: '/models',
        headers: { origin: 'http://localhost' },
      });
      expect(no.statusCode).toBe(403);
    } finally {
      await other.close();
    }
  });
});
