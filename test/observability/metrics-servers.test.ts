// /metrics on the other two servers (issue 28): `synth serve` counts generations, rows and bytes
// by exactly the work done and keeps /metrics behind its token; `mcp --http` serves /metrics after
// its Host check and counts its requests by fixed route.
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { serveHttp, type RunningHttpMcp } from '../../src/mcp/http.js';
import { ServerMetrics } from '../../src/observability/metrics.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SynthService } from '../../src/service/synth-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { buildSynthServiceApp } from '../../src/synth-service-http/app.js';
import { SUPPORT_QUEUE, type Json } from '../synth-mcp/helpers.js';
import { sample } from './metrics-helpers.js';

let app: FastifyInstance | undefined;
let service: SynthService | undefined;
let mcp: RunningHttpMcp | undefined;
let calc: CalcService | undefined;

afterEach(async () => {
  await app?.close();
  await service?.close();
  await mcp?.close();
  await calc?.close();
  app = service = mcp = calc = undefined;
});

describe('/metrics on synth serve', () => {
  it('moves by exactly the generations made, and needs the token', async () => {
    service = new SynthService({ serviceCacheSize: 1 });
    app = buildSynthServiceApp({ service, token: 't0ken' });
    const auth = { authorization: 'Bearer t0ken' };
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(401);

    const { modelId } = (
      await app.inject({
        method: 'POST',
        url: '/v1/models',
        headers: auth,
        payload: { modelText: SUPPORT_QUEUE },
      })
    ).json<Json>();
    const bytes: number[] = [];
    for (const count of [120, 30]) {
      const gen = (
        await app.inject({
          method: 'POST',
          url: '/v1/generate',
          headers: auth,
          payload: { modelId, count, seed: '7' },
        })
      ).json<Json>();
      expect(gen.count).toBe(count);
      if (bytes.length === 0)
        bytes.push(
          (await app.inject({ url: `/v1/generate/${gen.generationId}`, headers: auth })).json<Json>().bytes,
        );
      else bytes.push(service.generationInfo(gen.generationId).bytes);
    }
    const failed = await app.inject({
      method: 'POST',
      url: '/v1/generate',
      headers: auth,
      payload: { modelId, count: -1 },
    });
    expect(failed.statusCode).toBe(400); // refused before it was queued: no generation

    const res = await app.inject({ url: '/metrics', headers: auth });
    expect(res.statusCode).toBe(200);
    const text = res.body;
    expect(sample(text, 'modelworks_synth_generations_total', { kind: 'service', outcome: 'ok' })).toBe(2);
    expect(sample(text, 'modelworks_synth_generations_total', { kind: 'service', outcome: 'failed' })).toBe(
      0,
    );
    expect(sample(text, 'modelworks_synth_rows_total')).toBe(150);
    expect(sample(text, 'modelworks_synth_bytes_total')).toBe(bytes[0]! + bytes[1]!);
    // a cache of one: the second generation pushed the first out
    expect(sample(text, 'modelworks_synth_cache_evictions_total', { cache: 'service' })).toBe(1);
    expect(sample(text, 'modelworks_synth_cache_bytes', { cache: 'service' })).toBe(
      service.stats.cacheBytes.service,
    );
    expect(sample(text, 'modelworks_synth_cache_bytes', { cache: 'service' })).toBeGreaterThanOrEqual(
      bytes[1]!,
    );
    expect(sample(text, 'modelworks_synth_queue_depth')).toBe(0);
    expect(
      sample(text, 'modelworks_http_requests_total', {
        method: 'POST',
        route: '/v1/generate',
        status: '200',
      }),
    ).toBe(2);
    expect(
      sample(text, 'modelworks_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }),
    ).toBe(1);
    // a second scrape reports the same totals (counters fed from the service are not added twice)
    const again = (await app.inject({ url: '/metrics', headers: auth })).body;
    expect(sample(again, 'modelworks_synth_rows_total')).toBe(150);
  });
});

describe('/metrics on mcp --http', () => {
  it('serves the metrics after the Host check and counts requests by fixed route', async () => {
    calc = new CalcService(new MemoryStore());
    const service = calc;
    const metrics = new ServerMetrics();
    mcp = await serveHttp({
      host: '127.0.0.1',
      port: 0,
      createServer: () =>
        createMcpServer({ calc: service, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
      allowedOrigins: [],
      log: () => {},
      metrics,
    });
    const base = mcp.url.replace(/\/mcp$/, '');
    for (let i = 0; i < 2; i++) expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/secret/123`)).status).toBe(404);
    // DNS rebinding: a foreign Host name reads nothing (fetch cannot set Host; node:http can)
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/metrics`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
    const init = await fetch(mcp.url, {
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

    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    const http = (method: string, route: string, status: string) =>
      sample(text, 'modelworks_http_requests_total', { method, route, status });
    expect(http('GET', '/health', '200')).toBe(2);
    expect(http('GET', 'unmatched', '404')).toBe(1);
    expect(http('GET', '/metrics', '403')).toBe(1);
    expect(http('POST', '/mcp', '200')).toBe(1);
    expect(sample(text, 'modelworks_mcp_sessions')).toBe(1);
    expect(text).not.toContain('/secret');
  });
});

describe('docs/grafana-dashboard.json', () => {
  it('queries only metrics the servers export', async () => {
    const metrics = new ServerMetrics({ processMetrics: true });
    metrics.watchSubscriptions(() => 0);
    metrics.watchMcpSessions(() => 0);
    service = new SynthService();
    const synth = service;
    metrics.watchSynth(() => synth.stats);
    const exported = new Set((await metrics.registry.getMetricsAsJSON()).map((m) => m.name));
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const queried = new Set(
      [...dashboard.matchAll(/\b((?:modelworks|process|nodejs)_[a-z0-9_]+)/g)].map((m) =>
        m[1]!.replace(/_(bucket|sum|count)$/, ''),
      ),
    );
    expect(queried.size).toBeGreaterThan(10);
    for (const name of queried) expect(exported.has(name), name).toBe(true);
  });
});
