// The client against the server's own route table and schemas: every REST operation the server
// registers has a client method, each method sends only the query parameters and headers its
// route's schema declares, its answer types are the service's (checked by the type checker), and
// the client bundles for a browser with no polyfills and no Node built-ins.
import { build } from 'esbuild';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ModelworksClient } from '../../src/client/index.js';
import { buildApp, registeredRoutes } from '../../src/http/app.js';
import type { CalcApi } from '../../src/service/calc-api.js';
import { CalcService } from '../../src/service/calc-service.js';
import { CardRunner } from '../../src/service/card-runner.js';
import { PairingService } from '../../src/service/pairing.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { serverMetricsFromEnv } from '../../src/observability/metrics.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Routes that are pages or a page's own calls, not API operations: the share and embed pages and
 * what their card calls, the sandbox and its pairing flow (agents pair through MCP's pair_browser),
 * and the Spring-style health aliases of /health.
 */
const NOT_CLIENT_OPERATIONS = [/^\/share\//, /^\/embed(\/|$)/, /^\/sandbox(\/|$)/, /^\/actuator\//];

/** One call of every client method, with stand-in arguments. A new method must be added here. */
const CALLS: Record<string, (c: ModelworksClient) => unknown> = {
  health: (c) => c.health(),
  openApi: (c) => c.openApi(),
  metrics: (c) => c.metrics(),
  listModels: (c) => c.listModels(),
  createModel: (c) => c.createModel({ id: 'm' }),
  getModelInfo: (c) => c.getModelInfo('m'),
  deleteModel: (c) => c.deleteModel('m'),
  getSpec: (c) => c.getSpec('m'),
  getLineage: (c) => c.getLineage('m'),
  pendingEffects: (c) => c.pendingEffects('m'),
  approveEffect: (c) => c.approveEffect('m', 'e'),
  getLibrary: (c) => c.getLibrary('m'),
  getState: (c) => c.getState('m', { at: '2026-01-01T00:00:00Z', paths: ['$.a'], depth: 1 }),
  readState: (c) => c.readState('m'),
  getField: (c) => c.getField('m', '$.a'),
  getHistory: (c) => c.getHistory('m'),
  getEffectiveSchema: (c) => c.getEffectiveSchema('m', '$.a'),
  explain: (c) => c.explain('m', '$.a', 3),
  getGraph: (c) => c.getGraph('m'),
  getFlags: (c) => c.getFlags('m'),
  getVerification: (c) => c.getVerification('m'),
  getView: (c) => c.getView('m'),
  getAudit: (c) => c.getAudit('m', { pathPrefix: '$.a', from: 'x', to: 'y', limit: 2 }),
  verifyAudit: (c) => c.verifyAudit('m'),
  mutate: (c) =>
    c.mutate('m', { '$.a': 1 }, { expectedRevision: 1, idempotencyKey: 'k', includeTraces: true, view: 'v' }),
  patch: (c) => c.patch('m', [], { expectedRevision: 1, idempotencyKey: 'k' }),
  snapshot: (c) => c.snapshot('m'),
  restore: (c) => c.restore('m', {}, { idempotencyKey: 'k' }),
  evolveSpec: (c) => c.evolveSpec('m', {}, { expectedRevision: 1, idempotencyKey: 'k' }),
  simulate: (c) => c.simulate('m', { runs: 10 }),
  simulateSpec: (c) => c.simulateSpec({ spec: {}, runs: 10 }),
  solve: (c) => c.solve('m', { vary: [] }),
  solveSpec: (c) => c.solveSpec({ spec: {}, vary: [] }),
  compositionGraph: (c) => c.compositionGraph(),
  previewGeneration: (c) => c.previewGeneration({ description: 'x' }),
  generateModel: (c) => c.generateModel({ description: 'x', create: true }),
  // the recording fetch answers `{}`, not a stream: the call is made, its answer is refused
  generateModelStream: (c) => c.generateModelStream({ description: 'x' }, () => {}).catch(() => undefined),
  evolveSpecAi: (c) => c.evolveSpecAi('m', { description: 'x', expectedRevision: 1 }),
  llmInteractions: (c) => c.llmInteractions(),
  uploadBlob: (c) => c.uploadBlob(new Uint8Array([1, 2])),
  downloadBlob: (c) => c.downloadBlob('b'),
  collectBlobs: (c) => c.collectBlobs({ apply: false }),
  subscribe: (c) => c.subscribe('m', { onEvent: () => {}, paths: ['$.a'] }).close(),
};
/** The model-scoped blob download is the same method with a model id. */
const EXTRA_CALLS: ((c: ModelworksClient) => unknown)[] = [
  (c) => c.downloadBlob('b', 'm'),
  (c) => c.getView('m', 'v'),
];

interface Sent {
  method: string;
  url: URL;
  headers: Record<string, string>;
}

let app: FastifyInstance;
let calc: CalcService;
let doc: Json;
/** `GET /models/{id}` for every route the app registered (documented or not). */
let routes: string[];

beforeAll(async () => {
  calc = new CalcService(new MemoryStore());
  // the routes `modelworks serve` registers (share, sandbox, metrics) so nothing is missed
  app = await buildApp({
    calc,
    share: { runner: new CardRunner() },
    sandbox: { pairing: new PairingService({}) },
    metrics: serverMetricsFromEnv({}),
  });
  await app.ready();
  doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Json>();
  routes = registeredRoutes(app)
    .filter((r) => r.method !== 'HEAD')
    .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`);
});
afterAll(async () => {
  await app.close();
  await calc.close();
});

/** Every request the client makes, answered 200 `{}` by a recording fetch (no server). */
async function record(): Promise<Sent[]> {
  const sent: Sent[] = [];
  const fetch = ((input: URL | string, init?: RequestInit) => {
    sent.push({
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: Object.fromEntries(Object.entries((init?.headers as Record<string, string>) ?? {})),
    });
    return Promise.resolve(new Response('{}', { status: 200, headers: { 'model-revision': '0' } }));
  }) as typeof globalThis.fetch;
  class RecordingSocket {
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
    constructor(url: string) {
      sent.push({ method: 'GET', url: new URL(url.replace(/^ws/, 'http')), headers: {} });
    }
    close(): void {}
  }
  const client = new ModelworksClient({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'key',
    fetch,
    WebSocket: RecordingSocket,
  });
  for (const call of [...Object.values(CALLS), ...EXTRA_CALLS]) await (call(client) as Promise<unknown>);
  return sent;
}

/** The route a request is for (`GET /models/{id}` for GET /models/m) and its OpenAPI operation. */
function operationOf(sent: Sent): { key: string; op: Json } | undefined {
  for (const route of routes) {
    const [method, template] = route.split(' ') as [string, string];
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (method === sent.method && re.test(sent.url.pathname))
      return { key: route, op: ((doc.paths as Json)[template] ?? {})[method.toLowerCase()] ?? {} };
  }
  return undefined;
}

describe('modelworks/client and the server', () => {
  it('has a method for every REST operation, and every method is one', async () => {
    const methods = Object.getOwnPropertyNames(ModelworksClient.prototype).filter(
      (n) => n !== 'constructor' && !['send', 'json', 'model', 'stateQuery'].includes(n),
    );
    expect(methods.sort()).toEqual(Object.keys(CALLS).sort());
    const covered = new Set<string>();
    for (const sent of await record()) {
      const found = operationOf(sent);
      expect(found, `${sent.method} ${sent.url.pathname} is no documented operation`).toBeDefined();
      covered.add(found!.key);
    }
    // /mcp is the MCP endpoint, not REST
    const wanted = routes.filter(
      (r) => !r.endsWith(' /mcp') && !NOT_CLIENT_OPERATIONS.some((re) => re.test(r.split(' ')[1]!)),
    );
    expect(wanted.filter((k) => !covered.has(k))).toEqual([]);
    expect(wanted.length).toBeGreaterThan(35);
  });

  it('sends only the query parameters and headers its route declares', async () => {
    for (const sent of await record()) {
      const { key, op } = operationOf(sent)!;
      const params = (op.parameters ?? []) as { name: string; in: string }[];
      const declared = (where: string) => params.filter((p) => p.in === where).map((p) => p.name);
      const query = new Set(declared('query'));
      for (const name of sent.url.searchParams.keys()) expect(query.has(name), `${key} ?${name}`).toBe(true);
      const headers = new Set(declared('header').map((n) => n.toLowerCase()));
      for (const name of Object.keys(sent.headers)) {
        if (['authorization', 'content-type', 'x-session-token'].includes(name)) continue;
        expect(headers.has(name), `${key} header ${name}`).toBe(true);
      }
    }
  });

  it('answers with the service types (the type checker compares them)', () => {
    // the same types CalcService returns and the remote CalcApi declares: a drift fails `tsc`
    expectTypeOf<ReturnType<ModelworksClient['getModelInfo']>>().toEqualTypeOf<
      ReturnType<CalcApi['getModelInfo']>
    >();
    expectTypeOf<ReturnType<ModelworksClient['getState']>>().toEqualTypeOf<ReturnType<CalcApi['getState']>>();
    expectTypeOf<ReturnType<ModelworksClient['readState']>>().toEqualTypeOf<
      ReturnType<CalcApi['readState']>
    >();
    expectTypeOf<ReturnType<ModelworksClient['explain']>>().toEqualTypeOf<ReturnType<CalcApi['explain']>>();
    expectTypeOf<ReturnType<ModelworksClient['getView']>>().toEqualTypeOf<ReturnType<CalcApi['getView']>>();
    expectTypeOf<ReturnType<ModelworksClient['getAudit']>>().toEqualTypeOf<ReturnType<CalcApi['getAudit']>>();
    expectTypeOf<ReturnType<ModelworksClient['evolveSpec']>>().toEqualTypeOf<
      ReturnType<CalcApi['evolveSpec']>
    >();
    expectTypeOf<ReturnType<ModelworksClient['restore']>>().toEqualTypeOf<ReturnType<CalcApi['restore']>>();
    expectTypeOf<ReturnType<ModelworksClient['snapshot']>>().toEqualTypeOf<ReturnType<CalcApi['snapshot']>>();
    expectTypeOf<ReturnType<ModelworksClient['patch']>>().toEqualTypeOf<ReturnType<CalcApi['patchModel']>>();
    expectTypeOf<Awaited<ReturnType<ModelworksClient['mutate']>>>().toMatchTypeOf<
      Awaited<ReturnType<CalcApi['mutate']>>
    >();
    expectTypeOf<ReturnType<ModelworksClient['getFlags']>>().toEqualTypeOf<
      ReturnType<CalcService['getFlags']>
    >();
    expectTypeOf<ReturnType<ModelworksClient['compositionGraph']>>().toEqualTypeOf<
      ReturnType<CalcService['compositionGraph']>
    >();
  });

  it('bundles for a browser with no polyfills and no Node built-ins', async () => {
    const out = await build({
      entryPoints: [new URL('../../src/client/index.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile.inputs);
    // only the client's own modules and its one dependency, the SSE parser (browser-safe, no
    // dependencies of its own): every server import is a type and vanished
    const allowed = (p: string) =>
      p.startsWith('src/client/') || p.startsWith('node_modules/eventsource-parser/');
    expect(inputs.filter((p) => !allowed(p))).toEqual([]);
    const text = out.outputFiles[0]!.text;
    expect(text).not.toMatch(/\bfrom\s*["']node:|require\(|\bBuffer\b|process\./);
    expect(text).toMatch(/ModelworksClient = class/);
  });
});
