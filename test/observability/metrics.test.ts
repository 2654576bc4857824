// /metrics on `modelworks serve` (issue 28, acceptance 1): scraped after known work, the counters
// moved by exactly that work; labels stay bounded; the route is behind the API key.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { createMcpServer } from '../../src/mcp/server.js';
import {
  metricsSettingsFromEnv,
  ServerMetrics,
  serverMetricsFromEnv,
} from '../../src/observability/metrics.js';
import { CalcService } from '../../src/service/calc-service.js';
import { startEffects } from '../../src/service/effects/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { orderSpec } from '../mcp/helpers/specs.js';
import { sample } from './metrics-helpers.js';

let app: FastifyInstance | undefined;
let calc: CalcService | undefined;

async function serve(options: Partial<AppOptions> & { modelLabels?: boolean } = {}) {
  const metrics = new ServerMetrics({ modelLabels: options.modelLabels === true });
  calc = new CalcService(new MemoryStore(), { observer: metrics.calcObserver });
  const service = calc;
  app = await buildApp({
    calc: service,
    metrics,
    createMcpServer: () =>
      createMcpServer({ calc: service, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
    ...options,
  });
  await app.ready();
  return { app, calc: service };
}

afterEach(async () => {
  await app?.close();
  await calc?.close();
  app = calc = undefined;
});

const scrape = async (headers: Record<string, string> = {}): Promise<string> => {
  const res = await app!.inject({ url: '/metrics', headers });
  expect(res.statusCode).toBe(200);
  return res.body;
};

const mutate = (id: string, writes: unknown) =>
  app!.inject({ method: 'POST', url: `/models/${id}/mutations`, payload: writes as object });

describe('/metrics on serve', () => {
  it('moves by exactly the work done: 3 writes (1 rolled back), 2 reads of a route', async () => {
    const { calc } = await serve();
    await calc.createModel(orderSpec('m-metrics'));
    const before = await scrape();
    expect(sample(before, 'modelworks_calc_cycles_total', { outcome: 'committed' })).toBe(0);

    expect((await mutate('m-metrics', { '$.items[0]': { sku: 'a', price: 2, qty: 3 } })).statusCode).toBe(
      200,
    );
    expect((await mutate('m-metrics', { '$.items[0].qty': 0 })).statusCode).toBe(409); // rolled back
    expect((await mutate('m-metrics', { '$.items[0].qty': 4 })).statusCode).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await app!.inject({ url: '/models/m-metrics/state' })).statusCode).toBe(200);

    const after = await scrape();
    expect(sample(after, 'modelworks_calc_cycles_total', { outcome: 'committed' })).toBe(2);
    expect(sample(after, 'modelworks_calc_cycles_total', { outcome: 'rolled_back' })).toBe(1);
    expect(sample(after, 'modelworks_calc_cycles_total', { outcome: 'failed' })).toBe(0);
    expect(sample(after, 'modelworks_calc_cycle_duration_seconds_count', { outcome: 'committed' })).toBe(2);
    expect(sample(after, 'modelworks_calc_cycle_duration_seconds_count', { outcome: 'rolled_back' })).toBe(1);
    // the rolled-back cycle never reached the store
    expect(sample(after, 'modelworks_store_commit_duration_seconds_count')).toBe(2);
    expect(sample(after, 'modelworks_calc_retries_total')).toBe(0);

    const http = (method: string, route: string, status: string) =>
      sample(after, 'modelworks_http_requests_total', { method, route, status });
    expect(http('POST', '/models/:id/mutations', '200')).toBe(2);
    expect(http('POST', '/models/:id/mutations', '409')).toBe(1);
    expect(http('GET', '/models/:id/state', '200')).toBe(2);
    expect(http('GET', '/metrics', '200')).toBe(1); // the first scrape
    expect(
      sample(after, 'modelworks_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/models/:id/state',
        status: '200',
      }),
    ).toBe(2);
    // no model id in any label unless the operator opts in
    expect(after).not.toContain('m-metrics');
  });

  it('counts a refused write as failed, and an unknown URL under one unmatched route', async () => {
    const { calc } = await serve();
    await calc.createModel(orderSpec('m-fail'));
    expect((await mutate('m-fail', { '$.total': 1 })).statusCode).toBe(422); // a read-only field
    for (const url of ['/nope/1', '/nope/2?x=y', '/models/m-fail/nothing/here'])
      expect((await app!.inject({ url })).statusCode).toBe(404);
    const text = await scrape();
    expect(sample(text, 'modelworks_calc_cycles_total', { outcome: 'failed' })).toBe(1);
    expect(sample(text, 'modelworks_calc_cycles_total', { outcome: 'committed' })).toBe(0);
    expect(
      sample(text, 'modelworks_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(3);
    expect(text).not.toContain('/nope');
  });

  it('labels calc metrics by model only when the operator opts in', async () => {
    const { calc } = await serve({ modelLabels: true });
    await calc.createModel(orderSpec('m-a'));
    await calc.createModel(orderSpec('m-b'));
    await mutate('m-a', { '$.customer.tier': 'gold' });
    await mutate('m-b', { '$.customer.tier': 'gold' });
    await mutate('m-b', { '$.customer.tier': 'standard' });
    const text = await scrape();
    expect(sample(text, 'modelworks_calc_cycles_total', { outcome: 'committed', model: 'm-a' })).toBe(1);
    expect(sample(text, 'modelworks_calc_cycles_total', { outcome: 'committed', model: 'm-b' })).toBe(2);
  });

  it('counts each compare-and-set conflict of two services racing on one store as a retry', async () => {
    const metrics = new ServerMetrics();
    const store = new MemoryStore();
    const a = new CalcService(store, { observer: metrics.calcObserver });
    const b = new CalcService(store, { observer: metrics.calcObserver });
    try {
      await a.createModel(orderSpec('m-race'));
      let conflicts = 0;
      const commit = store.commitCycle.bind(store);
      store.commitCycle = async (...args) => {
        const ok = await commit(...args);
        if (!ok) conflicts++;
        return ok;
      };
      // every write a new value: a write of the value already there is no cycle at all
      const writes = (s: CalcService, from: number) =>
        Promise.all(
          Array.from({ length: 6 }, (_, i) => s.mutate('m-race', { '$.items[0].price': from + i })),
        );
      await Promise.all([writes(a, 1), writes(b, 101)]);
      const text = (await metrics.scrape()).body;
      expect(conflicts).toBeGreaterThan(0); // the race happened
      expect(sample(text, 'modelworks_calc_retries_total')).toBe(conflicts);
      expect(sample(text, 'modelworks_calc_cycles_total', { outcome: 'committed' })).toBe(12);
      expect(sample(text, 'modelworks_store_commit_duration_seconds_count')).toBe(12 + conflicts);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('gauges live subscriptions and MCP sessions at scrape time', async () => {
    const { calc } = await serve();
    await calc.createModel(orderSpec('m-sub'));
    const off = [calc.subscribe('m-sub', () => {}), calc.subscribe('m-sub', () => {})];
    expect(sample(await scrape(), 'modelworks_calc_subscriptions')).toBe(2);
    off[0]!();
    expect(sample(await scrape(), 'modelworks_calc_subscriptions')).toBe(1);

    await app!.listen({ host: '127.0.0.1', port: 0 });
    const address = app!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const init = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    await init.text();
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    expect(sample(await scrape(), 'modelworks_mcp_sessions')).toBe(1);
  });

  it('is behind the API key when the server has one, and absent when metrics are off', async () => {
    await serve({ apiKey: 'k3y' });
    expect((await app!.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect(
      (await app!.inject({ url: '/metrics', headers: { authorization: 'Bearer nope' } })).statusCode,
    ).toBe(401);
    const ok = await app!.inject({ url: '/metrics', headers: { authorization: 'Bearer k3y' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    // the refusals were counted, under the route they asked for
    expect(
      sample(ok.body, 'modelworks_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }),
    ).toBe(2);
    await app!.close();
    await calc!.close();
    await serve({ metrics: false });
    expect((await app!.inject({ url: '/metrics' })).statusCode).toBe(404);
  });
});

describe('effect runs', () => {
  it('are counted by executor and outcome, exactly once per run', async () => {
    const metrics = new ServerMetrics();
    const service = new CalcService(new MemoryStore(), { observer: metrics.calcObserver });
    calc = service;
    // no egress allowed: every server effect ends blocked, without touching the network
    const runner = startEffects(
      service,
      { enabled: true, egressAllowlist: [], maxResponseBytes: 1024 },
      () => {},
    )!;
    runner.onSettled((s) => metrics.effectSettled(s.executor, s.phase));
    await service.createModel({
      id: 'hook',
      version: '1.0.0',
      schema: { type: 'object', properties: { n: { type: 'integer' }, status: { type: 'object' } } },
      effects: [
        {
          id: 'tell',
          executor: 'server',
          trigger: 'n > 0',
          dedupeKey: 'n',
          statusPath: '$.status',
          request: { method: 'POST', url: 'http://127.0.0.1:9/hook' },
        },
      ],
    });
    const scraped = async () => await metrics.registry.metrics();
    expect(
      sample(await scraped(), 'modelworks_effect_runs_total', { executor: 'server', outcome: 'blocked' }),
    ).toBe(0);
    for (const n of [1, 2]) {
      const settled = runner.next();
      await service.mutate('hook', { '$.n': n });
      expect(await settled).toMatchObject({ executor: 'server', phase: 'blocked' });
    }
    await runner.stop();
    const text = await scraped();
    expect(sample(text, 'modelworks_effect_runs_total', { executor: 'server', outcome: 'blocked' })).toBe(2);
    expect(sample(text, 'modelworks_effect_runs_total', { executor: 'server', outcome: 'applied' })).toBe(0);
  });
});

describe('metrics settings', () => {
  it('are on by default, off with MODELWORKS_METRICS=0, model labels and process metrics only on request', () => {
    expect(metricsSettingsFromEnv({})).toEqual({ enabled: true, modelLabels: false, processMetrics: false });
    expect(metricsSettingsFromEnv({ MODELWORKS_METRICS_PROCESS: '1' }).processMetrics).toBe(true);
    expect(metricsSettingsFromEnv({ MODELWORKS_METRICS: '0' }).enabled).toBe(false);
    expect(metricsSettingsFromEnv({ MODELWORKS_METRICS: 'off' }).enabled).toBe(false);
    expect(metricsSettingsFromEnv({ MODELWORKS_METRICS_MODEL_LABELS: '1' }).modelLabels).toBe(true);
    expect(serverMetricsFromEnv({ MODELWORKS_METRICS: '0' })).toBe(false);
    expect(() => metricsSettingsFromEnv({ MODELWORKS_METRICS: 'maybe' })).toThrow(
      "MODELWORKS_METRICS must be 1 or 0 (got 'maybe')",
    );
  });
});

describe('Node process metrics', () => {
  it('are exported only when MODELWORKS_METRICS_PROCESS=1', async () => {
    const plain = serverMetricsFromEnv({});
    const withProcess = serverMetricsFromEnv({ MODELWORKS_METRICS_PROCESS: '1' });
    expect((await (plain as ServerMetrics).scrape()).body).not.toContain('process_cpu_user_seconds_total');
    expect((await (withProcess as ServerMetrics).scrape()).body).toContain('process_cpu_user_seconds_total');
  });
});
