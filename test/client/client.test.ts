// modelworks/client against a live `modelworks serve` child (SQLite store, an API key): REST calls,
// the structured errors (version conflict, violations, rate limit with Retry-After), idempotency
// keys, and a subscription that reconnects and resumes across a server restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  ModelworksClient,
  ModelworksError,
  RateLimitError,
  VersionConflictError,
  ViolationError,
  type SubscriptionEvent,
} from '../../src/client/index.js';
import { carLoanSpec, startServe, type Serve } from './helpers.js';

const KEY = 'client-test-key';
const until = async (what: string, check: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('modelworks/client on a live serve', () => {
  let serve: Serve;
  let client: ModelworksClient;
  const store = `sqlite:${process.env.TMPDIR ?? '/tmp'}/mw-client-${process.pid}-${Date.now()}.db`;

  beforeAll(async () => {
    serve = await startServe({ store, env: { MODELWORKS_API_KEY: KEY } });
    client = new ModelworksClient({ baseUrl: `${serve.url}/`, apiKey: KEY, WebSocket: WebSocket as never });
  }, 60_000);
  afterAll(async () => {
    await serve?.child.stop();
  });

  it('creates, reads, writes, explains, snapshots and deletes', async () => {
    expect((await client.health()).status).toBeTruthy();
    expect(await client.createModel(carLoanSpec('loan-a'))).toEqual({ id: 'loan-a', status: 'created' });
    expect(await client.listModels()).toContain('loan-a');
    const info = await client.getModelInfo('loan-a');
    expect(info.revision).toBe(0);
    const { state, revision } = await client.readState('loan-a');
    expect((state as Record<string, number>).amountFinanced).toBe(20000);
    const written = await client.mutate(
      'loan-a',
      { '$.deposit': 6000 },
      { expectedRevision: revision, view: 'loan' },
    );
    expect(written.revision).toBe(1);
    expect(written.derivedUpdated).toContain('$.amountFinanced');
    expect(written.viewDelta).toBeDefined();
    expect(await client.getField('loan-a', '$.amountFinanced')).toBe(18000);
    const patched = await client.patch('loan-a', [{ op: 'replace', path: '/years', value: 5 }]);
    expect(patched.revision).toBe(2);
    expect((await client.explain('loan-a', 'payments'))[0]).toMatchObject({ targetPath: '$.payments' });
    expect((await client.getView('loan-a')).components.length).toBeGreaterThan(0);
    expect((await client.getAudit('loan-a', { limit: 10 })).length).toBe(2);
    expect((await client.verifyAudit('loan-a')).valid).toBe(true);
    const snap = await client.snapshot('loan-a');
    await client.mutate('loan-a', { '$.deposit': 1000 });
    expect((await client.restore('loan-a', snap)).restored).toBe(true);
    expect(await client.getField('loan-a', 'deposit')).toBe(6000);
    expect((await client.getSpec('loan-a')).id).toBe('loan-a');
    expect(Array.isArray(await client.getFlags('loan-a'))).toBe(true);
    const blob = await client.uploadBlob(new TextEncoder().encode('hello'), 'text/plain');
    const back = await client.downloadBlob(blob.$blobId);
    expect(new TextDecoder().decode(back.bytes)).toBe('hello');
    await client.deleteModel('loan-a');
    await expect(client.getModelInfo('loan-a')).rejects.toMatchObject({
      status: 404,
      code: 'MODEL_NOT_FOUND',
    });
  });

  it('throws structured errors: version conflict, schema and constraint violations, a wrong key', async () => {
    await client.createModel(carLoanSpec('loan-b'));
    const conflict = await client
      .mutate('loan-b', { '$.deposit': 10 }, { expectedRevision: 7 })
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(VersionConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'VERSION_CONFLICT', expected: 7, actual: 0 });
    const schema = await client.mutate('loan-b', { '$.years': 99 }).catch((e: unknown) => e);
    expect(schema).toBeInstanceOf(ViolationError);
    expect((schema as ViolationError).status).toBe(422);
    expect((schema as ViolationError).violations[0]?.path).toBe('$.years');
    const constraint = await client.mutate('loan-b', { '$.deposit': 999_999 }).catch((e: unknown) => e);
    expect(constraint).toBeInstanceOf(ViolationError);
    expect(constraint).toMatchObject({ status: 409, code: 'CONSTRAINT_VIOLATION' });
    expect((constraint as ViolationError).violations[0]).toMatchObject({
      constraintId: 'deposit-within-price',
    });
    const stranger = new ModelworksClient({ baseUrl: serve.url, apiKey: 'wrong' });
    const refused = await stranger.listModels().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ModelworksError);
    expect(refused).toMatchObject({ status: 401 });
  });

  it('sends an idempotency key: a retry is answered, not written again', async () => {
    await client.createModel(carLoanSpec('loan-c'));
    const first = await client.mutate('loan-c', { '$.deposit': 5000 }, { idempotencyKey: 'retry-1' });
    const again = await client.mutate('loan-c', { '$.deposit': 5000 }, { idempotencyKey: 'retry-1' });
    expect(first.revision).toBe(1);
    expect(again).toMatchObject({ revision: 1, replayed: true });
    expect((await client.getModelInfo('loan-c')).revision).toBe(1);
  });

  it('follows a model across a server restart and resumes with what it missed', async () => {
    await client.createModel(carLoanSpec('loan-d'));
    // connection attempts wait at a gate while the test changes the model behind the socket's back
    let gateOpen = true;
    const waiting: (() => void)[] = [];
    class GatedSocket {
      onopen: ((e: unknown) => void) | null = null;
      onmessage: ((e: { data: unknown }) => void) | null = null;
      onclose: ((e: { code: number; reason: string }) => void) | null = null;
      onerror: ((e: unknown) => void) | null = null;
      private inner: WebSocket | undefined;
      private closed = false;
      constructor(url: string) {
        const open = (): void => {
          if (this.closed) return;
          const ws = new WebSocket(url);
          this.inner = ws;
          ws.onopen = (e) => this.onopen?.(e);
          ws.onmessage = (e) => this.onmessage?.({ data: e.data });
          ws.onclose = (e) => this.onclose?.({ code: e.code, reason: e.reason });
          ws.onerror = (e) => this.onerror?.(e);
        };
        if (gateOpen) open();
        else waiting.push(open);
      }
      close(code?: number, reason?: string): void {
        this.closed = true;
        this.inner?.close(code, reason);
      }
    }
    const events: SubscriptionEvent[] = [];
    let opens = 0;
    const closes: boolean[] = [];
    const sub = client.subscribe('loan-d', {
      onEvent: (e) => events.push(e),
      onOpen: () => (opens += 1),
      onClose: (c) => closes.push(c.willRetry),
      backoff: { initialMs: 100, maxMs: 400 },
    });
    void sub;
    const gated = new ModelworksClient({ baseUrl: serve.url, apiKey: KEY, WebSocket: GatedSocket });
    const followed: SubscriptionEvent[] = [];
    const sub2 = gated.subscribe('loan-d', {
      onEvent: (e) => followed.push(e),
      backoff: { initialMs: 100, maxMs: 400 },
    });
    await Promise.all([sub.ready, sub2.ready]);
    await client.mutate('loan-d', { '$.deposit': 5000 });
    await until('the first change', () => followed.some((e) => e.kind === 'mutation'));

    // the server goes away; the gated subscription may not reconnect until the model has moved on
    gateOpen = false;
    await serve.child.stop();
    await until('the drop', () => closes.length > 0);
    expect(closes[0]).toBe(true);
    serve = await startServe({ store, port: serve.port, env: { MODELWORKS_API_KEY: KEY } });
    // the open subscription comes back by itself and says so
    await until('the reconnect', () => events.some((e) => e.kind === 'resumed'));
    expect(events.find((e) => e.kind === 'resumed')).toMatchObject({ revision: 1, missed: false });
    await client.mutate('loan-d', { '$.deposit': 3000 });
    gateOpen = true;
    for (const open of waiting.splice(0)) open();
    await until('the gated resume', () => followed.some((e) => e.kind === 'resumed'));
    const resumed = followed.find((e) => e.kind === 'resumed');
    expect(resumed).toMatchObject({ kind: 'resumed', revision: 2, missed: true });
    expect((resumed as { state: Record<string, number> }).state.deposit).toBe(3000);
    // and both keep following
    await client.mutate('loan-d', { '$.deposit': 2000 });
    await until('the change after the restart', () =>
      [events, followed].every((list) =>
        list.some(
          (e) =>
            e.kind === 'mutation' &&
            e.mutatedPaths.includes('$.deposit') &&
            list.indexOf(e) > list.findIndex((r) => r.kind === 'resumed'),
        ),
      ),
    );
    expect(opens).toBe(2);
    sub.close();
    sub2.close();
  }, 90_000);

  it('reports a rate limit with the Retry-After the server sent', async () => {
    const limited = await startServe({
      store: 'memory',
      env: { MODELWORKS_RATE_LIMIT_MAX: '2', MODELWORKS_RATE_LIMIT_WINDOW_SECONDS: '60' },
    });
    try {
      const c = new ModelworksClient({ baseUrl: limited.url });
      let caught: unknown;
      for (let i = 0; i < 5 && caught === undefined; i++)
        await c.listModels().catch((e: unknown) => (caught = e));
      expect(caught).toBeInstanceOf(RateLimitError);
      expect((caught as RateLimitError).code).toBe('RATE_LIMITED');
      expect((caught as RateLimitError).retryAfterSeconds).toBeGreaterThan(0);
      expect((caught as RateLimitError).retryAfterSeconds).toBeLessThanOrEqual(60);
    } finally {
      await limited.child.stop();
    }
  });
});
