// Pairing and the namespace guard in-process (app.inject): the device-flow endpoints, the approve
// page, and a paired session held to its own models.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/app.js';
import { CalcService } from '../../src/service/calc-service.js';
import { PairingService } from '../../src/service/pairing.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { orderSpec } from '../mcp/helpers/specs.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const KEY = 'server-key-for-tests';
let app: FastifyInstance;
let calc: CalcService;
let now = 1_000_000;
const pairing = new PairingService({ now: () => now });

beforeAll(async () => {
  calc = new CalcService(new MemoryStore());
  app = await buildApp({
    calc,
    apiKey: KEY,
    sandbox: { pairing, sandboxHtml: () => '<!doctype html><p>sandbox' },
  });
});
afterAll(async () => {
  await app.close();
  await calc.close();
});

const keyed = { authorization: `Bearer ${KEY}` };
const post = (url: string, payload: object, headers: Record<string, string> = keyed) =>
  app.inject({ method: 'POST', url, payload, headers });
const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers });

/** A full pairing: start, approve, poll; returns the agent's and the browser's sessions. */
async function pairOnce(): Promise<{ token: string; browserToken: string; ns: string }> {
  const started = (await post('/sandbox/pair', {})).json<Json>();
  const approved = await post('/sandbox/approve', { userCode: started.userCode }, {});
  expect(approved.statusCode).toBe(200);
  const polled = await post('/sandbox/pair/token', {
    pairCode: started.pairCode,
    deviceSecret: started.deviceSecret,
  });
  expect(polled.statusCode).toBe(200);
  const body = polled.json<Json>();
  return { token: body.sessionToken, browserToken: approved.json<Json>().browserToken, ns: body.namespaceId };
}

describe('pairing endpoints', () => {
  it('runs the device flow: pending (409), approved by a person, then the token (200) once', async () => {
    const res = await post('/sandbox/pair', {}, { ...keyed, host: 'localhost:8080' });
    expect(res.statusCode).toBe(200);
    const p = res.json<Json>();
    expect(p).toMatchObject({ expiresInSec: 600, intervalSec: 3 });
    expect(p.verificationUri).toBe('http://localhost:8080/sandbox/approve');
    expect(p.verificationUriComplete).toBe(`${p.verificationUri}#code=${p.userCode}`);
    const creds = { pairCode: p.pairCode, deviceSecret: p.deviceSecret };
    const pending = await post('/sandbox/pair/token', creds);
    expect(pending.statusCode).toBe(409);
    expect(pending.json()).toEqual({ error: 'authorization_pending' });
    // the peek shows the expiry and nothing else
    const peek = await get(`/sandbox/pair/peek?code=${encodeURIComponent(p.userCode)}`);
    expect(peek.statusCode).toBe(200);
    expect(peek.json()).toEqual({ expiresInSec: 600 });
    // a person approves without the server key
    const approved = await post('/sandbox/approve', { userCode: p.userCode }, {});
    expect(approved.statusCode).toBe(200);
    expect(Object.keys(approved.json<Json>()).sort()).toEqual(['browserToken', 'namespaceId']);
    const paired = await post('/sandbox/pair/token', creds);
    expect(paired.statusCode).toBe(200);
    expect(paired.json<Json>().namespaceId).toBe(approved.json<Json>().namespaceId);
    const again = await post('/sandbox/pair/token', creds);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: 'invalid_grant' });
  });

  it('keeps starting and polling behind the server key', async () => {
    expect((await post('/sandbox/pair', {}, {})).statusCode).toBe(401);
    expect((await post('/sandbox/pair/token', { pairCode: 'a', deviceSecret: 'b' }, {})).statusCode).toBe(
      401,
    );
  });

  it('serves the approve page keyless, with a strict CSP and no caching', async () => {
    const page = await get('/sandbox/approve');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'sha256-/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('history.replaceState'); // the code leaves the address bar
    expect((await get('/sandbox')).body).toContain('sandbox');
  });

  it('serves the sandbox page compressed as accepted, with an entity tag and 304 when current', async () => {
    const html = '<!doctype html><p>sandbox';
    const br = await get('/sandbox', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(html);
    const gz = await get('/sandbox', { 'accept-encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(html);
    const plain = await get('/sandbox', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(html);
    // the client's q-values come first; our order (br, then gzip) only breaks ties
    const negotiated = async (header: string) =>
      (await get('/sandbox', { 'accept-encoding': header })).headers['content-encoding'];
    expect(await negotiated('br;q=0.5, gzip;q=0.9')).toBe('gzip');
    expect(await negotiated('*')).toBe('br');
    expect(await negotiated('GZIP')).toBe('gzip');
    expect(await negotiated('*;q=0, identity')).toBeUndefined();
    // one tag per encoding of the same content; the client's current copy is not sent again
    const tags = [br, gz, plain].map((r) => String(r.headers.etag));
    expect(new Set(tags).size).toBe(3);
    for (const t of tags) expect(t).toMatch(/^"[\w-]+"$/);
    const again = await get('/sandbox', { 'accept-encoding': 'gzip, br', 'if-none-match': tags[0]! });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(tags[0]);
    const stale = await get('/sandbox', { 'accept-encoding': 'gzip, br', 'if-none-match': '"other"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.headers['content-security-policy']).toMatch(/default-src 'none'/);
  });

  it('refuses an expired code and an expired pairing', async () => {
    const p = (await post('/sandbox/pair', {})).json<Json>();
    now += 600_000;
    expect((await post('/sandbox/approve', { userCode: p.userCode }, {})).statusCode).toBe(410);
    const poll = await post('/sandbox/pair/token', { pairCode: p.pairCode, deviceSecret: p.deviceSecret });
    expect(poll.statusCode).toBe(400);
    expect(poll.json()).toEqual({ error: 'expired_token' });
    expect((await get(`/sandbox/pair/peek?code=${p.userCode}`)).statusCode).toBe(404);
  });

  it('caps wrong codes: after five, even the right code is refused (429) from that client', async () => {
    const p = (await post('/sandbox/pair', {})).json<Json>();
    for (let i = 0; i < 5; i++)
      expect((await post('/sandbox/approve', { userCode: 'BBBB-BBBB' }, {})).statusCode).toBe(404);
    const right = await post('/sandbox/approve', { userCode: p.userCode }, {});
    expect(right.statusCode).toBe(429);
    now += 601_000; // the window slides; this pairing has expired meanwhile
  });
});

describe('a paired session', () => {
  it('sees, creates and changes only its own namespace', async () => {
    const a = await pairOnce();
    const b = await pairOnce();
    expect(a.ns).not.toBe(b.ns);
    const asA = { 'x-session-token': a.token };
    const asB = { 'x-session-token': b.token };
    expect((await post('/models', orderSpec(`${a.ns}__demo`), asA)).statusCode).toBe(201);
    // not outside its namespace
    const outside = await post('/models', orderSpec('plain'), asA);
    expect(outside.statusCode).toBe(403);
    expect(outside.json<Json>().detail).toContain(`${a.ns}__`);
    // a model made with the server key exists, but not for a session
    expect((await post('/models', orderSpec('shared'), keyed)).statusCode).toBe(201);
    expect((await get('/models', asA)).json()).toEqual([`${a.ns}__demo`]);
    expect((await get('/models', asB)).json()).toEqual([]);
    expect((await get('/models/shared/state', asA)).statusCode).toBe(404);
    // B cannot read or change A's model
    expect((await get(`/models/${a.ns}__demo/state`, asB)).statusCode).toBe(404);
    const write = await post(`/models/${a.ns}__demo/mutations`, { '$.customer.tier': 'gold' }, asB);
    expect(write.statusCode).toBe(404);
    // A (and A's browser) can
    const mine = await post(`/models/${a.ns}__demo/mutations`, { '$.customer.tier': 'gold' }, asA);
    expect(mine.statusCode).toBe(200);
    const browser = await get(`/models/${a.ns}__demo/state`, { 'x-session-token': a.browserToken });
    expect(browser.statusCode).toBe(200);
    expect(browser.json<Json>().customer.tier).toBe('gold');
    // nothing else of the server
    expect((await get('/openapi.json', asA)).statusCode).toBe(403);
  });

  it("records who wrote: the person's browser, the agent's session, a keyed REST client (issue 42)", async () => {
    const a = await pairOnce();
    const id = `${a.ns}__origins`;
    expect((await post('/models', orderSpec(id), { 'x-session-token': a.token })).statusCode).toBe(201);
    const write = async (headers: Record<string, string>, tier: string): Promise<void> => {
      const res = await post(`/models/${id}/mutations`, { '$.customer.tier': tier }, headers);
      expect(res.statusCode).toBe(200);
    };
    await write({ 'x-session-token': a.browserToken }, 'gold');
    await write({ 'x-session-token': a.token }, 'standard');
    await write(keyed, 'gold');
    const audit = (await get(`/models/${id}/audit`, keyed)).json<Json[]>();
    // newest first
    expect(audit.map((r) => [r.source, r.mutations['$.customer.tier']])).toEqual([
      ['rest', 'gold'],
      ['agent', 'standard'],
      ['person', 'gold'],
    ]);
    const verified = (await get(`/models/${id}/audit/verify`, keyed)).json<Json>();
    expect(verified.valid).toBe(true);
  });

  it('refuses an unknown session token with 401, even where no key is needed', async () => {
    const res = await get('/models', { 'x-session-token': 'made-up' });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('made-up');
  });
});
