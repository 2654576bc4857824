/**
 * Property-based fuzzing of every REST route `modelworks serve` registers (models, mutations, patches,
 * blobs, share pages, sandbox pairing), in process through Fastify's inject: hostile route
 * parameters, query strings and bodies. After every request: a status below 500 or our generic 500,
 * a body in our words, no polluted prototype, bounded memory; every few requests the server still
 * answers /health and a fresh model can be created, written and read.
 *
 * MODELWORKS_FUZZ_SEED replays a failure; MODELWORKS_FUZZ_RUNS changes the number of requests.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, registeredRoutes } from '../../src/http/app.js';
import { CalcService } from '../../src/service/calc-service.js';
import { CardRunner } from '../../src/service/card-runner.js';
import { PairingService } from '../../src/service/pairing.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { FastifyInstance } from 'fastify';
import { address, argument, BASE_SPEC, hostileValue, LIVE_IDS } from './arbitraries.js';
import { checkAfterCall, fuzzParameters, runsPer } from './oracle.js';

const TOTAL_REQUESTS = 700;

let app: FastifyInstance;
let calc: CalcService;
let requests = 0;

async function seedModels(): Promise<void> {
  for (const id of LIVE_IDS) {
    await calc.deleteModel(id).catch(() => undefined);
    await calc.createModel({ ...BASE_SPEC, id });
    await calc.mutate(id, { '$.price': 2, '$.qty': 3, '$.rows[0].price': 1 });
  }
}

async function liveness(label: string): Promise<void> {
  expect((await app.inject({ method: 'GET', url: '/health' })).statusCode, `${label}: /health`).toBe(200);
  const id = `alive-${requests}`;
  const created = await app.inject({ method: 'POST', url: '/models', payload: { ...BASE_SPEC, id } });
  expect(created.statusCode, `${label}: create after hostile requests: ${created.body}`).toBe(201);
  const written = await app.inject({
    method: 'POST',
    url: `/models/${id}/mutations`,
    payload: { '$.price': 5, '$.qty': 7 },
  });
  expect(written.statusCode, `${label}: mutate: ${written.body}`).toBe(200);
  const total = await app.inject({ method: 'GET', url: `/models/${id}/state` });
  expect(total.json<{ total?: unknown }>().total).toBe(35);
  await app.inject({ method: 'DELETE', url: `/models/${id}` });
}

/** A route parameter: a live id, a field address, or something hostile (URL-encoded as a client would). */
const param = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...LIVE_IDS) },
  { weight: 2, arbitrary: address },
  {
    weight: 2,
    arbitrary: argument('id', 'string').map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
  },
);

const body = fc.oneof(
  { weight: 3, arbitrary: argument('mutations', 'object') },
  { weight: 2, arbitrary: argument('spec', 'object') },
  { weight: 2, arbitrary: argument('patch', 'array') },
  { weight: 1, arbitrary: fc.record({ snapshot: argument('snapshot', 'object') }) },
  { weight: 1, arbitrary: hostileValue },
);

const query = fc.dictionary(
  fc.constantFrom(
    'traces',
    'at',
    'paths',
    'depth',
    'limit',
    'pathPrefix',
    '__proto__',
    'constructor',
    'code',
    'expectedRevision',
  ),
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('$.__proto__.x', 'true', '-1', '99999999999')),
  { maxKeys: 3 },
);

/** Idempotency-Key (writes): absent, ordinary, over-long, control and non-ASCII text, or prototype names. */
const idempotencyKey = fc.option(
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('__proto__', 'constructor', 'k'.repeat(300), 'a\u0001b', 'clé', 'retry-1'),
  ),
  { nil: undefined },
);

const request = fc.record({
  params: fc.array(param, { minLength: 3, maxLength: 3 }),
  body,
  query,
  idempotencyKey,
});

/** `/models/:id/state/:path` with the parameters filled in, each URL-encoded. */
function fill(url: string, params: string[]): string {
  let i = 0;
  // lone surrogates cannot be URL-encoded; a client would have replaced them before sending
  const encode = (p: string): string => encodeURIComponent(p.replace(/[\ud800-\udfff]/g, '\ufffd'));
  return url.replace(/:[A-Za-z]+|\*/g, () => encode(params[i++ % params.length] ?? ''));
}

async function send(
  method: string,
  url: string,
  r: { params: string[]; body: unknown; query: Record<string, string>; idempotencyKey?: string },
) {
  requests++;
  const target = fill(url, r.params);
  const label = `#${requests} ${method} ${target} ${JSON.stringify(r.body)?.slice(0, 200)}`;
  const withBody = method !== 'GET' && method !== 'HEAD' && method !== 'DELETE';
  const res = await app.inject({
    method: method as 'GET',
    url: target,
    query: r.query,
    ...(withBody
      ? {
          headers: {
            'content-type': url.endsWith('/patch') ? 'application/json-patch+json' : 'application/json',
            // a header value cannot carry control or non-Latin-1 characters: a client refuses to send them
            ...(r.idempotencyKey !== undefined && /^[\x20-\x7e]*$/.test(r.idempotencyKey)
              ? { 'idempotency-key': r.idempotencyKey }
              : {}),
          },
          payload: JSON.stringify(r.body) ?? 'null',
        }
      : {}),
  });
  if (res.statusCode >= 500)
    expect(res.json(), `${label}: a 500 must be our generic problem`).toMatchObject({
      detail: 'Internal server error',
    });
  checkAfterCall(label, res.body.length > 20_000 ? res.body.slice(0, 20_000) : res.body);
  if (requests % 25 === 0) await liveness(label);
}

beforeAll(async () => {
  calc = new CalcService(new MemoryStore());
  app = await buildApp({
    calc,
    sandbox: { pairing: new PairingService({}), sandboxHtml: () => '<html></html>' },
    share: { runner: new CardRunner() },
  });
  await app.ready();
  await seedModels();
});

afterAll(async () => {
  await app?.close();
  await calc?.close();
});

describe('every REST route under hostile requests', () => {
  it(
    'answers every request in our words, pollutes nothing, stays within memory and stays alive',
    async () => {
      // the WebSocket upgrade and the MCP transport have suites of their own
      const routes = registeredRoutes(app).filter(
        (r) =>
          r.method !== 'HEAD' && r.method !== 'OPTIONS' && !r.url.endsWith('/subscribe') && r.url !== '/mcp',
      );
      expect(routes.length).toBeGreaterThanOrEqual(25);
      const perRoute = runsPer(routes.length, TOTAL_REQUESTS);
      for (const route of routes) {
        await fc.assert(
          fc.asyncProperty(request, (r) => send(route.method, route.url, r)),
          fuzzParameters(perRoute),
        );
        await seedModels();
      }
      await liveness('end');
      expect(requests).toBeGreaterThanOrEqual(perRoute * routes.length);
    },
    10 * 60_000,
  );
});
