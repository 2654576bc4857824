/**
 * Property-based fuzzing of the synth Service's HTTP API (`modelworks synth serve`), in process
 * through Fastify's inject: hostile model texts, generation requests, ids and query strings, with
 * the liveness oracle of the other suites (answers in our words, no 500 but our generic one, no
 * polluted prototype, bounded memory; every few requests a real model registers and generates).
 *
 * MODELWORKS_FUZZ_SEED replays a failure; MODELWORKS_FUZZ_RUNS changes the number of requests.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SynthService } from '../../src/service/synth-service.js';
import { buildSynthServiceApp } from '../../src/synth-service-http/app.js';
import { argument, hostileValue, synthModel } from './arbitraries.js';
import { checkAfterCall, fuzzParameters, runsPer } from './oracle.js';

const TOTAL_REQUESTS = 300;
const MODEL = 'dataset.root = R\nR = Append(A, B)\nA = Uniform()\nB = Poisson(lambda=4)\n';

let app: FastifyInstance;
let service: SynthService;
let requests = 0;
/** Ids the fuzzer may aim at: a registered model and a generation, refreshed by liveness. */
const live = { modelId: '', generationId: '' };

async function liveness(label: string): Promise<void> {
  expect((await app.inject({ method: 'GET', url: '/health' })).statusCode, `${label}: /health`).toBe(200);
  const registered = await app.inject({ method: 'POST', url: '/v1/models', payload: { modelText: MODEL } });
  expect(registered.statusCode, `${label}: register: ${registered.body}`).toBe(201);
  live.modelId = registered.json<{ modelId: string }>().modelId;
  const generated = await app.inject({
    method: 'POST',
    url: '/v1/generate',
    payload: { modelId: live.modelId, count: 20, seed: 7 },
  });
  expect(generated.statusCode, `${label}: generate: ${generated.body}`).toBe(200);
  live.generationId = generated.json<{ generationId: string }>().generationId;
}

const id = fc.oneof(
  { weight: 3, arbitrary: fc.constant('LIVE') },
  {
    weight: 2,
    arbitrary: argument('id', 'string').map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
  },
);

const body = fc.oneof(
  { weight: 3, arbitrary: fc.record({ modelText: synthModel }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        modelId: id,
        count: argument('count', 'integer'),
        format: fc.oneof(fc.constantFrom('csv', 'json', 'tsv', 'xml', '__proto__'), hostileValue),
        seed: argument('seed', 'integer'),
        previewLimit: argument('previewLimit', 'integer'),
      },
      { requiredKeys: ['modelId'] },
    ),
  },
  { weight: 1, arbitrary: synthModel },
  { weight: 1, arbitrary: hostileValue },
);

const query = fc.dictionary(
  fc.constantFrom('offset', 'limit', 'maxChars', 'name', 'category', '__proto__', 'constructor'),
  fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('-1', '0', '99999999999', '1e3', '__proto__')),
  { maxKeys: 3 },
);

const ROUTES: [string, string][] = [
  ['GET', '/v1/components'],
  ['GET', '/v1/allowlists'],
  ['POST', '/v1/models'],
  ['GET', '/v1/models'],
  ['GET', '/v1/models/:id'],
  ['DELETE', '/v1/models/:id'],
  ['POST', '/v1/generate'],
  ['GET', '/v1/generate/:id'],
  ['GET', '/v1/generate/:id/data'],
  ['DELETE', '/v1/generate/:id'],
];

function resolveId(raw: string, url: string): string {
  if (raw !== 'LIVE') return raw;
  return url.startsWith('/v1/generate') ? live.generationId : live.modelId;
}

async function send(
  method: string,
  url: string,
  r: { id: string; body: unknown; query: Record<string, string> },
) {
  requests++;
  const target = url.replace(
    ':id',
    encodeURIComponent(resolveId(r.id, url).replace(/[\ud800-\udfff]/g, '\ufffd')),
  );
  const payload =
    typeof r.body === 'object' && r.body !== null && 'modelId' in r.body
      ? { ...r.body, modelId: resolveId(String(r.body.modelId), '/v1/models') }
      : r.body;
  const label = `#${requests} ${method} ${target} ${JSON.stringify(payload)?.slice(0, 200)}`;
  const withBody = method === 'POST';
  const res = await app.inject({
    method: method as 'GET',
    url: target,
    query: r.query,
    ...(withBody
      ? typeof payload === 'string'
        ? { headers: { 'content-type': 'text/plain' }, payload }
        : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) ?? 'null' }
      : {}),
  });
  // a hostile model that registered is the one the next generations run
  if (method === 'POST' && url === '/v1/models' && res.statusCode === 201)
    live.modelId = res.json<{ modelId: string }>().modelId;
  if (method === 'POST' && url === '/v1/generate' && res.statusCode === 200)
    live.generationId = res.json<{ generationId: string }>().generationId;
  if (res.statusCode >= 500)
    expect(res.json(), `${label}: a 500 must be our generic error`).toMatchObject({
      error: { code: 'INTERNAL' },
    });
  checkAfterCall(label, res.body.length > 20_000 ? res.body.slice(0, 20_000) : res.body);
  if (requests % 20 === 0) await liveness(label);
}

beforeAll(async () => {
  service = new SynthService({});
  app = buildSynthServiceApp({ service });
  await app.ready();
  await liveness('start');
});

afterAll(async () => {
  await app?.close();
  await service?.close();
});

describe('every synth Service route under hostile requests', () => {
  it(
    'answers every request in our words, pollutes nothing, stays within memory and stays alive',
    async () => {
      const perRoute = runsPer(ROUTES.length, TOTAL_REQUESTS);
      for (const [method, url] of ROUTES) {
        await fc.assert(
          fc.asyncProperty(fc.record({ id, body, query }), (r) => send(method, url, r)),
          fuzzParameters(perRoute),
        );
        await liveness(`after ${method} ${url}`);
      }
      // hostile models, each registered and then generated and read at once
      await fc.assert(
        fc.asyncProperty(synthModel, fc.record({ id, body, query }), async (text, r) => {
          await send('POST', '/v1/models', { ...r, body: { modelText: text } });
          await send('POST', '/v1/generate', { ...r, body: { modelId: 'LIVE', count: 1000, seed: 1 } });
          await send('GET', '/v1/generate/:id/data', { ...r, id: 'LIVE' });
        }),
        fuzzParameters(perRoute),
      );
      expect(requests).toBeGreaterThanOrEqual(perRoute * (ROUTES.length + 3));
    },
    10 * 60_000,
  );
});
