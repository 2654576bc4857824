/**
 * Generation over REST (issue 44 points 2, 3, 5) in process: the preview without a provider, 503
 * saying how to configure one, the one-shot and streamed generation against the loopback provider
 * (SSE frames in order, then done), evolution from a description, the interactions log (admin
 * only under a key, redactable) and the provider key absent from every answer.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { LlmClient, llmConfigFromEnv } from '../../src/llm/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SpecGenerator } from '../../src/service/generate.js';
import { BUILTIN_GUIDANCE_TOPICS } from '../../src/service/guidance/topics.js';
import { PairingService } from '../../src/service/pairing.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { CONVERGING_SCRIPT, GOOD, loanSpec, NOT_JSON } from '../helpers/generation-specs.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PROVIDER_KEY = 'sk-rest-provider-KEY-93be';
const SERVER_KEY = 'server-admin-key';
const DESCRIPTION = 'A car loan with a deposit that cannot exceed the price; show the amount financed.';

let llm: LoopbackLlm;
/** Every response body of this file, to look for the provider key in. */
const bodies: string[] = [];

function generator(logContent = true, budgets: Json = {}): SpecGenerator {
  const base = llmConfigFromEnv({
    MODELWORKS_LLM_PROVIDER: 'anthropic',
    MODELWORKS_LLM_MODEL: 'rest-model',
    MODELWORKS_LLM_BASE_URL: llm.anthropicUrl,
    MODELWORKS_LLM_API_KEY: PROVIDER_KEY,
    MODELWORKS_LLM_LOG_CONTENT: String(logContent),
  })!;
  return new SpecGenerator(
    new LlmClient({ ...base, budgets: { ...base.budgets, ...budgets } }),
    BUILTIN_GUIDANCE_TOPICS,
  );
}

async function appWith(options: { generator?: SpecGenerator; apiKey?: string; pairing?: PairingService }) {
  const calc = new CalcService(new MemoryStore());
  const app = await buildApp({
    calc,
    ...(options.generator ? { generator: options.generator } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.pairing ? { sandbox: { pairing: options.pairing, sandboxHtml: () => '<p>' } } : {}),
  });
  await app.ready();
  return { app, calc };
}

async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
  headers: Json = {},
) {
  const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

/** `event: x\ndata: {...}` frames of an SSE body. */
function frames(body: string): { event: string; data: Json }[] {
  return body
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(f)?.[1] ?? 'null') as Json;
      return { event, data };
    });
}

beforeAll(async () => {
  llm = await startLoopbackLlm();
});
afterAll(async () => {
  await llm?.close();
  // the acceptance list: the provider key never leaves the server
  expect(bodies.length).toBeGreaterThan(15);
  for (const b of bodies) expect(b).not.toContain(PROVIDER_KEY);
});

describe('without a provider', () => {
  let app: FastifyInstance;
  let calc: CalcService;
  beforeAll(async () => ({ app, calc } = await appWith({})));
  afterAll(async () => {
    await app.close();
    await calc.close();
  });

  it('the preview works; generating answers 503 saying how to configure a provider', async () => {
    const preview = await call(app, 'POST', '/models/generate/preview', {
      description: DESCRIPTION,
      modelId: 'car-loan',
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.json<Json>().user).toContain('Model ID: car-loan');
    expect(preview.json<Json>().user).toContain(DESCRIPTION);
    expect(preview.json<Json>().system).toContain('Modelworks');
    for (const url of ['/models/generate', '/models/generate/stream']) {
      const res = await call(app, 'POST', url, { description: DESCRIPTION });
      expect(res.statusCode, url).toBe(503);
      expect(res.json<Json>()).toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
      expect(res.json<Json>().detail).toMatch(/MODELWORKS_LLM_PROVIDER.*docs\/generate\.md/);
    }
    await calc.createModel(loanSpec('car-loan'));
    const evolve = await call(app, 'POST', '/models/car-loan/spec/evolve/ai', { description: 'add a rate' });
    expect(evolve.statusCode).toBe(503);
    expect((await call(app, 'GET', '/llm/interactions')).json<Json>()).toEqual({
      configured: false,
      interactions: [],
    });
  });

  it('a malformed request is 400 before anything else', async () => {
    expect((await call(app, 'POST', '/models/generate', {})).statusCode).toBe(400);
    expect(
      (await call(app, 'POST', '/models/generate', { description: 'x'.repeat(5001) })).json<Json>(),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(
      (await call(app, 'POST', '/models/generate', { description: 'a', includeView: 'maybe' })).statusCode,
    ).toBe(400);
  });
});

describe('with the loopback provider', () => {
  let app: FastifyInstance;
  let calc: CalcService;
  beforeAll(async () => ({ app, calc } = await appWith({ generator: generator() })));
  afterAll(async () => {
    await app.close();
    await calc.close();
  });

  it('POST /models/generate converges and, asked to, creates the model', async () => {
    llm.script(CONVERGING_SCRIPT);
    const res = await call(app, 'POST', '/models/generate', {
      description: DESCRIPTION,
      modelId: 'car-loan',
      create: true,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<Json>();
    expect(body).toMatchObject({ valid: true, attempts: 4, created: { id: 'car-loan' } });
    expect(body.verification).toMatchObject({
      state: 'green',
      checkedCount: 1,
      passedCount: 1,
      unverifiableCount: 0,
    });
    expect(body.verification.cases).toHaveLength(1);
    expect(await calc.getField('car-loan', '$.financed')).toBe(18000);
  });

  it('the stream sends progress frames in order, then done', async () => {
    llm.script(CONVERGING_SCRIPT);
    const res = await call(app, 'POST', '/models/generate/stream', {
      description: DESCRIPTION,
      modelId: 'loan-two',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const got = frames(res.body);
    expect(got.at(-1)).toMatchObject({
      event: 'done',
      data: { valid: true, attempts: 4, spec: { id: 'loan-two' } },
    });
    const progress = got
      .filter((f) => f.event === 'progress')
      .map((f) => `${f.data.attempt}:${f.data.phase}`);
    expect(progress[0]).toBe('1:llm_requesting');
    expect(progress).toContain('2:retrying');
    expect(progress.indexOf('3:test_failed')).toBeGreaterThan(progress.indexOf('2:validation_failed'));
    expect(progress.at(-1)).toBe('4:test_running');
    expect(got.find((f) => f.data.phase === 'validation_failed')?.data.errors[0]).toMatch(
      /^root: the answer is not valid JSON/,
    );
  });

  it('a loop that does not converge answers 422 (REST) or an error frame (stream) with the errors and raw answer', async () => {
    llm.script([NOT_JSON]);
    const res = await call(app, 'POST', '/models/generate', { description: DESCRIPTION });
    expect(res.statusCode).toBe(422);
    expect(res.json<Json>()).toMatchObject({
      code: 'GENERATION_UNCONVERGED',
      valid: false,
      rawResponse: NOT_JSON,
    });
    llm.script([NOT_JSON]);
    const stream = frames(
      (await call(app, 'POST', '/models/generate/stream', { description: DESCRIPTION })).body,
    );
    expect(stream.at(-1)).toMatchObject({ event: 'error', data: { code: 'GENERATION_UNCONVERGED' } });
    expect(stream.filter((f) => f.event === 'progress' && f.data.phase === 'llm_requesting')).toHaveLength(6);
  });

  it('evolves a stored model from a description', async () => {
    await calc.createModel(loanSpec('to-evolve'));
    llm.script([
      JSON.stringify({
        newVersion: '1.1.0',
        upsertConstants: { fee: 50 },
        upsertSchemaNodes: [{ path: '$.total', schema: { type: 'number', readOnly: true } }],
        upsertDerivations: [{ path: '$.total', expr: 'financed + $const.fee' }],
      }),
    ]);
    const res = await call(app, 'POST', '/models/to-evolve/spec/evolve/ai', {
      description: 'add a 50 fee to the total',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<Json>()).toMatchObject({ id: 'to-evolve', version: '1.1.0', attempts: 1 });
    expect(await calc.getField('to-evolve', '$.total')).toBe(18050);
    const missing = await call(app, 'POST', '/models/nope/spec/evolve/ai', { description: 'anything' });
    expect(missing.statusCode).toBe(404);
  });

  it('GET /llm/interactions lists each attempt, newest first, naming provider and model', async () => {
    llm.script([GOOD]);
    await call(app, 'POST', '/models/generate', { description: DESCRIPTION });
    const log = (await call(app, 'GET', '/llm/interactions')).json<Json>();
    expect(log).toMatchObject({ configured: true, provider: 'anthropic', model: 'rest-model' });
    expect(log.interactions[0]).toMatchObject({
      purpose: 'generate',
      attempt: 1,
      outcome: 'ok',
      provider: 'anthropic',
    });
    expect(log.interactions[0].user).toContain(DESCRIPTION);
    expect(log.interactions.length).toBeGreaterThan(10);
  });
});

describe('the interactions log under a key and with content capture off', () => {
  it('is for the key holder only (not a paired browser), and keeps sizes only when asked', async () => {
    const pairing = new PairingService({});
    const { app, calc } = await appWith({ generator: generator(false), apiKey: SERVER_KEY, pairing });
    const keyed = { authorization: `Bearer ${SERVER_KEY}` };
    llm.script([GOOD]);
    expect(
      (await call(app, 'POST', '/models/generate', { description: DESCRIPTION }, keyed)).statusCode,
    ).toBe(200);
    expect((await call(app, 'GET', '/llm/interactions')).statusCode).toBe(401);
    const log = await call(app, 'GET', '/llm/interactions', undefined, keyed);
    expect(log.statusCode).toBe(200);
    expect(log.json<Json>().interactions[0]).toMatchObject({
      system: '[redacted]',
      user: '[redacted]',
      response: '[redacted]',
    });
    expect(log.json<Json>().interactions[0].responseChars).toBe(GOOD.length);

    // a paired browser may generate (inside its namespace) but not read the log
    const started = (await call(app, 'POST', '/sandbox/pair', {}, keyed)).json<Json>();
    await call(app, 'POST', '/sandbox/approve', { userCode: started.userCode });
    const paired = (
      await call(
        app,
        'POST',
        '/sandbox/pair/token',
        { pairCode: started.pairCode, deviceSecret: started.deviceSecret },
        keyed,
      )
    ).json<Json>();
    const session = { 'x-session-token': paired.sessionToken as string };
    expect((await call(app, 'GET', '/llm/interactions', undefined, session)).statusCode).toBe(403);
    llm.script([GOOD]);
    const made = await call(
      app,
      'POST',
      '/models/generate',
      { description: DESCRIPTION, modelId: 'mine', create: true },
      session,
    );
    expect(made.statusCode).toBe(200);
    expect(made.json<Json>().created.id).toBe(`${paired.namespaceId}__mine`);
    await app.close();
    await calc.close();
  });
});

describe('through modelworks/client (a listening server)', () => {
  it('streams the progress frames to the caller, then answers the created model; 503 as a typed error', async () => {
    const { app, calc } = await appWith({ generator: generator() });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { ModelworksClient, ModelworksError } = await import('../../src/client/index.js');
    const client = new ModelworksClient({
      baseUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    });
    try {
      llm.script(CONVERGING_SCRIPT);
      const seen: string[] = [];
      const answer = await client.generateModelStream(
        { description: DESCRIPTION, modelId: 'streamed', create: true },
        (f) => seen.push(`${f.phase}#${f.attempt}`),
      );
      expect(seen[0]).toBe('llm_requesting#1');
      expect(seen).toContain('validation_failed#1');
      expect(answer).toMatchObject({
        valid: true,
        attempts: CONVERGING_SCRIPT.length,
        created: { id: 'streamed' },
      });
      expect((await client.getModelInfo('streamed')).id).toBe('streamed');
      expect((await client.previewGeneration({ description: DESCRIPTION })).user).toContain(DESCRIPTION);
      llm.script([NOT_JSON]);
      const failed = await client
        .generateModelStream({ description: DESCRIPTION }, () => {})
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ModelworksError);
      expect((failed as InstanceType<typeof ModelworksError>).code).toBe('GENERATION_UNCONVERGED');
    } finally {
      await app.close();
      await calc.close();
    }
    const bare = await appWith({});
    await bare.app.listen({ port: 0, host: '127.0.0.1' });
    const plain = new ModelworksClient({
      baseUrl: `http://127.0.0.1:${(bare.app.server.address() as { port: number }).port}`,
    });
    try {
      const refused = await plain.generateModel({ description: DESCRIPTION }).catch((e: unknown) => e);
      expect(refused as { status: number; code: string }).toMatchObject({
        status: 503,
        code: 'LLM_NOT_CONFIGURED',
      });
    } finally {
      await bare.app.close();
      await bare.calc.close();
    }
  }, 60_000);
});
