/**
 * The generation routes (issue 44) under hostile requests with a provider configured (the loopback
 * provider answering junk, a good spec, a provider failure or a slow answer): every answer has a
 * status below 500 or the catalogue's status for an LLM code (502 LLM_FAILED, 503 never here), a
 * body in our words, no polluted prototype, and the server still generates afterwards.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpStatusOf } from '../../src/errors/catalogue.js';
import { buildApp } from '../../src/http/app.js';
import { LlmClient, llmConfigFromEnv } from '../../src/llm/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SpecGenerator } from '../../src/service/generate.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { GOOD, loanSpec, NOT_JSON } from '../helpers/generation-specs.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';
import { hostileValue } from './arbitraries.js';
import { checkAfterCall, fuzzParameters, runsPer } from './oracle.js';

let llm: LoopbackLlm;
let app: FastifyInstance;
let calc: CalcService;

const ROUTES = [
  '/models/generate/preview',
  '/models/generate',
  '/models/generate/stream',
  '/models/live/spec/evolve/ai',
  '/models/%5F%5Fproto%5F%5F/spec/evolve/ai',
];

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('__proto__', 'constructor', 'a car loan', 'x'.repeat(5001), '', '   ', 'loan/../../etc'),
);
const body = fc.oneof(
  fc.record(
    {
      description: fc.oneof(text, hostileValue),
      modelId: fc.oneof(text, hostileValue),
      includeView: fc.oneof(fc.boolean(), hostileValue),
      topics: fc.oneof(fc.array(text, { maxLength: 3 }), hostileValue),
      create: fc.oneof(fc.boolean(), hostileValue),
      prompt: text,
      expectedRevision: fc.oneof(fc.integer(), hostileValue),
    },
    { requiredKeys: [] },
  ),
  hostileValue,
);
const answer = fc.constantFrom<string | { status: number } | { text: string; delayMs: number }>(
  GOOD,
  NOT_JSON,
  '{"__proto__": {"polluted": true}, "id": "x"}',
  JSON.stringify({ ...loanSpec('p'), constructor: { prototype: { zzz: 1 } } }),
  { status: 500 },
  { status: 401 },
);

beforeAll(async () => {
  llm = await startLoopbackLlm([GOOD]);
  const config = llmConfigFromEnv({
    MODELWORKS_LLM_PROVIDER: 'openai',
    MODELWORKS_LLM_MODEL: 'fuzz-model',
    MODELWORKS_LLM_BASE_URL: llm.openaiUrl,
    MODELWORKS_LLM_API_KEY: 'sk-fuzz',
  })!;
  const client = new LlmClient({
    ...config,
    budgets: { ...config.budgets, maxAttempts: 2, maxAttemptsHard: 2 },
  });
  calc = new CalcService(new MemoryStore());
  app = await buildApp({ calc, generator: new SpecGenerator(client, []) });
  await app.ready();
  await calc.createModel(loanSpec('live'));
});
afterAll(async () => {
  await app?.close();
  await calc?.close();
  await llm?.close();
});

describe('the generation routes under hostile requests', () => {
  it('answer in our words with catalogue statuses, pollute nothing and keep working', async () => {
    const perRoute = runsPer(ROUTES.length, 150);
    for (const url of ROUTES) {
      await fc.assert(
        fc.asyncProperty(body, answer, async (b, a) => {
          llm.script([a]);
          const res = await app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(b) ?? 'null',
          });
          const label = `POST ${url} ${JSON.stringify(b)?.slice(0, 200)} → ${res.statusCode}`;
          if (res.statusCode >= 500) {
            const code = res.json<{ code?: string }>().code;
            expect(code, label).toBe('LLM_FAILED');
            expect(res.statusCode, label).toBe(httpStatusOf('LLM_FAILED'));
          }
          checkAfterCall(label, res.body.slice(0, 20_000));
        }),
        fuzzParameters(perRoute),
      );
    }
    llm.script([GOOD]);
    const after = await app.inject({
      method: 'POST',
      url: '/models/generate',
      payload: { description: 'a car loan', modelId: 'after' },
    });
    expect(after.statusCode, after.body).toBe(200);
  }, 300_000);
});
