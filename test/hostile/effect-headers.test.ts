/**
 * An effect header name or value holding CR, LF or another control character is refused as
 * EFFECT_INVALID_REQUEST before any network call (it used to reach fetch, which threw, and the
 * effect ended EFFECT_NETWORK). The target is a loopback server that counts what reaches it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerExecutor } from '../../src/service/effects/index.js';

let origin = '';
let hits = 0;
const server = createServer((_req, res) => {
  hits++;
  res.end('{}');
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const policy = { timeoutMs: 2000, retries: 2 };

describe('effect headers with control characters', () => {
  const cases: [string, Record<string, string>][] = [
    ['CR/LF in a value', { 'X-Quote': 'a\r\nX-Injected: yes' }],
    ['a lone LF in a value', { 'X-Quote': 'a\nb' }],
    ['NUL in a value', { 'X-Quote': 'a\u0000b' }],
    ['DEL in a value', { 'X-Quote': 'a\u007fb' }],
    ['CR/LF in a name', { 'X-Quote\r\nX-Injected': 'yes' }],
    ['a space in a name', { 'X Quote': 'yes' }],
  ];
  for (const [what, headers] of cases)
    it(`refuses ${what} as EFFECT_INVALID_REQUEST without calling out`, async () => {
      const executor = new ServerExecutor({ egressAllowlist: [origin], maxResponseBytes: 100 });
      const before = hits;
      const outcome = await executor.execute({ method: 'GET', url: `${origin}/x`, headers }, policy);
      expect(outcome).toMatchObject({ kind: 'failed', code: 'EFFECT_INVALID_REQUEST' });
      expect(hits).toBe(before);
    });

  it('still sends a tab inside a value and ordinary headers', async () => {
    const executor = new ServerExecutor({ egressAllowlist: [origin], maxResponseBytes: 100 });
    const outcome = await executor.execute(
      { method: 'GET', url: `${origin}/x`, headers: { 'X-Quote': 'a\tb', Accept: 'application/json' } },
      policy,
    );
    expect(outcome).toMatchObject({ kind: 'ok', status: 200 });
  });
});
