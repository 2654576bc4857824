/**
 * The server executor on its own against loopback servers (issue 23): redirects stay within the
 * origin, requests it will not send, the response bound from the declared length.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/calc/index.js';
import { ServerExecutor, startEffects } from '../../src/service/effects/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serve(listener: RequestListener): Promise<{ origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

const policy = { timeoutMs: 2000, retries: 0 };

describe('ServerExecutor', () => {
  it('follows a redirect within the origin and refuses one to another origin, even an allowed one', async () => {
    const other = await serve((_req, res) => res.end('{"from":"other"}'));
    const home = await serve((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: '/here' }).end();
      else if (req.url === '/away') res.writeHead(307, { location: `${other.origin}/x` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"home"}');
    });
    const executor = new ServerExecutor({
      egressAllowlist: [home.origin, other.origin],
      maxResponseBytes: 100,
    });
    expect(await executor.execute({ method: 'GET', url: `${home.origin}/moved` }, policy)).toEqual({
      kind: 'ok',
      response: { from: 'home' },
      status: 200,
    });
    const away = await executor.execute(
      { method: 'POST', url: `${home.origin}/away`, body: { a: 1 } },
      policy,
    );
    expect(away).toMatchObject({ kind: 'failed', code: 'EFFECT_REDIRECT' });
    expect(other.hits).toEqual([]);
  });

  it('sends JSON bodies as JSON and headers as given; a text reply is kept as text', async () => {
    let seen: { type?: string; quote?: string; body: string } = { body: '' };
    const home = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen = { type: req.headers['content-type'], quote: req.headers['x-quote'] as string, body };
        res.end('thanks');
      });
    });
    const executor = new ServerExecutor({ egressAllowlist: [home.origin], maxResponseBytes: 100 });
    const outcome = await executor.execute(
      { method: 'PUT', url: `${home.origin}/q`, headers: { 'X-Quote': 'Q-1' }, body: { amount: 3 } },
      policy,
    );
    expect(outcome).toEqual({ kind: 'ok', response: 'thanks', status: 200 });
    expect(seen).toEqual({ type: 'application/json', quote: 'Q-1', body: '{"amount":3}' });
  });

  it('refuses to send what it cannot: a GET with a body, an unknown method, a non-http URL', async () => {
    const home = await serve((_req, res) => res.end());
    const executor = new ServerExecutor({ egressAllowlist: [home.origin], maxResponseBytes: 100 });
    const refused: JsonObject[] = [
      { method: 'GET', url: `${home.origin}/`, body: { a: 1 } },
      { method: 'TRACE', url: `${home.origin}/` },
      { method: 'GET', url: 'file:///etc/passwd' },
      { method: 'GET', url: 'relative/path' },
    ];
    for (const request of refused)
      expect(await executor.execute(request, policy)).toMatchObject({
        kind: 'failed',
        code: 'EFFECT_INVALID_REQUEST',
      });
    expect(home.hits).toEqual([]);
  });

  it('refuses a reply whose declared length is over the bound without reading it', async () => {
    const home = await serve((_req, res) =>
      res.writeHead(200, { 'content-length': '500' }).end('x'.repeat(500)),
    );
    const executor = new ServerExecutor({ egressAllowlist: [home.origin], maxResponseBytes: 100 });
    expect(await executor.execute({ url: `${home.origin}/` }, policy)).toMatchObject({
      kind: 'failed',
      code: 'EFFECT_RESPONSE_TOO_LARGE',
    });
  });
});

describe('startEffects', () => {
  it('starts no runner when MODELWORKS_EFFECTS is off', async () => {
    const calc = new CalcService(new MemoryStore());
    const off = { enabled: false, egressAllowlist: [], maxResponseBytes: 1 };
    expect(startEffects(calc, off, () => {})).toBeUndefined();
    const runner = startEffects(calc, { ...off, enabled: true }, () => {});
    expect(runner).toBeDefined();
    await runner?.stop();
  });
});
