// WebSocket subscriptions in-process (app.injectWS): frames, the path filter, refusals.
import type WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from './helpers.js';
import { within } from '../helpers/time.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const KEY = 'ws-key';
// injectWS sends no Host header; real clients always do
const host = { host: 'localhost' };
let t: TestApp;
beforeAll(async () => {
  t = await testApp({ apiKey: KEY });
  await t.calc.createModel(orderSpec('ws'));
});
afterAll(async () => {
  await t.close();
});

/** Opens a subscription, collecting frames from the first one on. */
async function subscribe(url: string, headers: Record<string, string>) {
  let collector: ReturnType<typeof frames> | undefined;
  const socket = await t.app.injectWS(url, { headers }, { onInit: (ws) => (collector = frames(ws)) });
  return { socket, f: collector! };
}

/** Collects frames; `next()` resolves with the next one. */
function frames(socket: WebSocket) {
  const queue: Json[] = [];
  const waiting: ((f: Json) => void)[] = [];
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as Json;
    const w = waiting.shift();
    if (w) w(frame);
    else queue.push(frame);
  });
  return {
    next: () =>
      new Promise<Json>((resolve, reject) => {
        const f = queue.shift();
        if (f) return resolve(f);
        within(5000, 'the next frame', new Promise<Json>((arrived) => waiting.push(arrived))).then(
          resolve,
          reject,
        );
      }),
    pending: () => queue.length,
  };
}

describe('WebSocket /models/{id}/subscribe', () => {
  it('pushes mutation and spec-evolved frames', async () => {
    const { socket, f } = await subscribe('/models/ws/subscribe', {
      ...host,
      authorization: `Bearer ${KEY}`,
    });
    expect(await f.next()).toEqual({ kind: 'subscribed', modelId: 'ws', paths: [] });
    await t.calc.mutate('ws', { '$.items[0].price': 4 });
    expect(await f.next()).toMatchObject({
      kind: 'mutation',
      modelId: 'ws',
      mutatedPaths: expect.arrayContaining(['$.items[0].price']),
      derivedUpdated: expect.arrayContaining(['$.total']),
      flaggedConstraints: [],
      dispatchedEffects: [],
    });
    await t.calc.evolveSpec('ws', { newVersion: '2.0.0' });
    expect(await f.next()).toEqual({ kind: 'spec-evolved', modelId: 'ws', version: '2.0.0' });
    socket.terminate();
  });

  it('filters mutation frames by path prefix; the key may come as ?token=', async () => {
    const { socket, f } = await subscribe(`/models/ws/subscribe?paths=customer&token=${KEY}`, host);
    expect(await f.next()).toMatchObject({ kind: 'subscribed', paths: ['$.customer'] });
    await t.calc.mutate('ws', { '$.items[0].qty': 2 }); // outside the filter
    await t.calc.mutate('ws', { '$.customer.tier': 'gold' });
    const frame = await f.next();
    expect(frame.mutatedPaths).toEqual(['$.customer.tier']);
    expect(f.pending()).toBe(0);
    socket.terminate();
  });

  it('refuses a wrong key (401) and an unknown model (404) before upgrading', async () => {
    await expect(t.app.injectWS('/models/ws/subscribe?token=wrong', { headers: host })).rejects.toThrow(
      /401/,
    );
    await expect(t.app.injectWS('/models/ws/subscribe', { headers: host })).rejects.toThrow(/401/);
    await expect(
      t.app.injectWS('/models/nope/subscribe', { headers: { ...host, authorization: `Bearer ${KEY}` } }),
    ).rejects.toThrow(/404/);
  });
});
