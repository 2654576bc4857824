// Bounded requests on the REST server (issue 47): input limits answered before the work starts,
// every framework refusal in our shape, 413 that a client still sending can read, slow senders cut
// off. The socket cases run on a real port on 127.0.0.1; the rest through app.inject.
import net from 'node:net';
import type { InjectOptions } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_INPUT_LIMITS,
  findInputLimitViolation,
  findJsonTextLimitViolation,
  inputLimitsFromEnv,
} from '../../src/service/input-limits.js';
import { orderSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from './helpers.js';

let t: TestApp;
let port = 0;
beforeAll(async () => {
  t = await testApp({ timeouts: { headersMs: 500, bodyMs: 1000 } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as net.AddressInfo).port;
  const created = await t.app.inject({ method: 'POST', url: '/models', payload: orderSpec('m') });
  expect(created.statusCode).toBe(201);
});
afterAll(async () => {
  await t.close();
});

/** The raw HTTP answer to `head` then `body` (written in pieces), and whether a write failed. */
function rawExchange(
  head: string,
  body: Buffer[],
  { pauseMs = 0 } = {},
): Promise<{ answer: string; writeError?: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let writeError: string | undefined;
    let answered = false;
    let sent = false;
    // a whole problem document and the whole body sent: done (keep-alive connections stay open)
    const finish = (): void => {
      if (answered && sent) socket.end();
    };
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      answered = /\r\n\r\n\{.*\}$/s.test(answer);
      finish();
    });
    socket.on('error', (e) => (writeError = e.message));
    socket.on('close', () =>
      resolve({ answer, ...(writeError ? { writeError } : {}), closedAfterMs: Date.now() - started }),
    );
    socket.write(head);
    let i = 0;
    const next = (): void => {
      if (socket.destroyed) return;
      if (i >= body.length) {
        sent = true;
        return finish();
      }
      const ok = socket.write(body[i++]!);
      if (pauseMs > 0) setTimeout(next, pauseMs);
      else if (ok) setImmediate(next);
      else socket.once('drain', next);
    };
    next();
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

const json = (answer: string): Record<string, unknown> =>
  JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

describe('bodies over the size limit', () => {
  const size = 5 * 1024 * 1024;
  const pieces = Array.from({ length: size / 65536 }, () => Buffer.alloc(65536, 0x20));

  it('announced by Content-Length: a 413 in our shape the sender reads, no reset', async () => {
    const out = await rawExchange(
      `POST /models HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      pieces,
    );
    expect(out.writeError).toBeUndefined();
    expect(out.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(json(out.answer)).toMatchObject({ status: 413, code: 'TOO_LARGE' });
  });

  it('announced by Content-Length, through fetch: the client sees the 413', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/models`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(size, 0x20),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'TOO_LARGE' });
  });

  it('chunked, crossing the limit while it is read: a 413 in our shape', async () => {
    const chunk = (b: Buffer) =>
      Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    const out = await rawExchange(
      `POST /models HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      [...pieces.map(chunk), Buffer.from('0\r\n\r\n')],
    );
    expect(out.writeError).toBeUndefined();
    expect(out.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(json(out.answer)).toMatchObject({ code: 'TOO_LARGE' });
  });
});

describe('slow senders', () => {
  it('a body trickling in is cut off near the body timeout (1 s here), not held open', async () => {
    const trickle = Array.from({ length: 40 }, () => Buffer.from(' '));
    const out = await rawExchange(
      'POST /models HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
      trickle,
      { pauseMs: 150 },
    );
    // 40 × 150 ms = 6 s of sending; the server closes long before
    expect(out.closedAfterMs).toBeLessThan(4000);
    expect(out.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(json(out.answer)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
  });

  it('headers trickling in are cut off near the headers timeout', async () => {
    const out = await rawExchange(
      'POST /models HTTP/1.1\r\n',
      Array.from({ length: 40 }, (_, i) => Buffer.from(`X-Slow-${i}: y\r\n`)),
      { pauseMs: 150 },
    );
    expect(out.closedAfterMs).toBeLessThan(4000);
  });
});

describe('framework refusals carry our codes', () => {
  const cases: [string, InjectOptions, number, string][] = [
    ['a malformed URL', { method: 'GET', url: '/models/%zz' }, 400, 'BAD_REQUEST'],
    [
      'invalid JSON',
      { method: 'POST', url: '/models', payload: '{"id":', headers: { 'content-type': 'application/json' } },
      400,
      'BAD_REQUEST',
    ],
    [
      'an empty JSON body',
      { method: 'POST', url: '/models', payload: '', headers: { 'content-type': 'application/json' } },
      400,
      'BAD_REQUEST',
    ],
    [
      'an unsupported content type',
      { method: 'POST', url: '/models', payload: 'id=1', headers: { 'content-type': 'text/csv' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['an unknown route', { method: 'GET', url: '/nowhere' }, 404, 'NOT_FOUND'],
    [
      'a schema refusal',
      { method: 'POST', url: '/models/m/mutations?traces=maybe', payload: {} },
      400,
      'BAD_REQUEST',
    ],
  ];
  for (const [what, request, status, code] of cases)
    it(`${what}: ${status} ${code}`, async () => {
      const res = await t.app.inject(request);
      expect(res.statusCode).toBe(status);
      const body = res.json<Record<string, unknown>>();
      expect(body.code).toBe(code);
      expect(JSON.stringify(body)).not.toMatch(/FST_/);
    });
});

describe('input limits, before the work starts', () => {
  it('a mutation of more addresses than MODELWORKS_MAX_WRITE_KEYS is refused 413 INPUT_LIMIT, nothing written', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/models/m' })).json<{ revision?: number }>();
    const n = DEFAULT_INPUT_LIMITS.maxWriteKeys + 1;
    const body = Object.fromEntries(Array.from({ length: n }, (_, i) => [`$.attachment.k${i}`, i]));
    const started = performance.now();
    const res = await t.app.inject({ method: 'POST', url: '/models/m/mutations', payload: body });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'INPUT_LIMIT',
      limit: 'writeKeys',
      max: DEFAULT_INPUT_LIMITS.maxWriteKeys,
      setting: 'MODELWORKS_MAX_WRITE_KEYS',
    });
    const after = (await t.app.inject({ method: 'GET', url: '/models/m' })).json<{ revision?: number }>();
    expect(after.revision).toEqual(before.revision);
  });

  it('a patch of more operations than the write limit is refused the same way', async () => {
    const ops = Array.from({ length: DEFAULT_INPUT_LIMITS.maxWriteKeys + 1 }, (_, i) => ({
      op: 'add',
      path: `/attachment/k${i}`,
      value: i,
    }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/models/m/mutations/patch',
      payload: JSON.stringify(ops),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'INPUT_LIMIT', limit: 'writeKeys' });
  });

  it('a body of more keys than MODELWORKS_MAX_BODY_KEYS, or nested deeper than the depth limit, is refused', async () => {
    const many = { id: 'x', big: Array.from({ length: DEFAULT_INPUT_LIMITS.maxBodyKeys + 1 }, () => 0) };
    const res = await t.app.inject({ method: 'POST', url: '/models', payload: many });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'INPUT_LIMIT', limit: 'bodyKeys' });

    let deep: unknown = 1;
    for (let i = 0; i < DEFAULT_INPUT_LIMITS.maxDepth + 1; i++) deep = { d: deep };
    const res2 = await t.app.inject({ method: 'POST', url: '/models', payload: { id: 'y', deep } });
    expect(res2.statusCode).toBe(413);
    expect(res2.json()).toMatchObject({ code: 'INPUT_LIMIT', limit: 'depth' });
  });

  it('a mutation within the limits still goes through', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/models/m/mutations',
      payload: { '$.attachment.note': 'ok' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('the count on the text (before parsing) refuses exactly what the walk over the value refuses', () => {
    const small = { maxBodyKeys: 12, maxDepth: 4, maxWriteKeys: 3 };
    const value = fc.jsonValue({ maxDepth: 6 });
    const spaced = fc.tuple(value, fc.constantFrom(0, 2, '\t'));
    fc.assert(
      fc.property(spaced, ([v, space]) => {
        const text = JSON.stringify(v, null, space);
        const byText = findJsonTextLimitViolation(text, small, { what: 'x', writeKeys: false });
        const byWalk = findInputLimitViolation(v, small, 'x');
        expect(byText !== undefined).toBe(byWalk !== undefined);
        const outer = v !== null && typeof v === 'object' ? Object.keys(v).length : 0;
        const write = findJsonTextLimitViolation(
          text,
          { ...small, maxBodyKeys: 1e9, maxDepth: 512 },
          {
            what: 'x',
            writeKeys: true,
          },
        );
        expect(write?.limit === 'writeKeys').toBe(outer > small.maxWriteKeys);
      }),
      { numRuns: 2000 },
    );
  });

  it('the limits are settings, checked at start-up', () => {
    expect(inputLimitsFromEnv({ MODELWORKS_MAX_WRITE_KEYS: '50000' }).maxWriteKeys).toBe(50_000);
    expect(() => inputLimitsFromEnv({ MODELWORKS_MAX_BODY_DEPTH: '9999' })).toThrow(
      /MODELWORKS_MAX_BODY_DEPTH/,
    );
    expect(() => inputLimitsFromEnv({ MODELWORKS_MAX_BODY_KEYS: 'lots' })).toThrow(/whole number/);
  });
});
