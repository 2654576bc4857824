/**
 * The generation loop (issue 44 point 3) against the loopback provider through both official
 * clients: it converges in the scripted number of attempts, feeds each attempt's errors back,
 * reports progress in order, stops a runaway loop at its budgets, and evolves a stored model
 * through the ordinary evolve path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient, LlmError, llmConfigFromEnv, type LlmConfig } from '../../src/llm/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SpecGenerator, type ProgressFrame } from '../../src/service/generate.js';
import { BUILTIN_GUIDANCE_TOPICS } from '../../src/service/guidance/topics.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import {
  BAD_INITIAL_STATE,
  CONVERGING_SCRIPT,
  FAILING_TEST,
  GOOD,
  loanSpec,
  NOT_JSON,
  SCHEMA_ERROR,
} from '../helpers/generation-specs.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';

const KEY = 'sk-generate-test-7d1e';
let llm: LoopbackLlm;

beforeAll(async () => {
  llm = await startLoopbackLlm();
});
afterAll(async () => {
  await llm?.close();
});

function generator(provider: LlmConfig['provider'], budgets: Partial<LlmConfig['budgets']> = {}) {
  const base = llmConfigFromEnv({
    MODELWORKS_LLM_PROVIDER: provider,
    MODELWORKS_LLM_MODEL: 'loop-model',
    MODELWORKS_LLM_BASE_URL: provider === 'anthropic' ? llm.anthropicUrl : llm.openaiUrl,
    MODELWORKS_LLM_API_KEY: KEY,
  })!;
  const client = new LlmClient({ ...base, budgets: { ...base.budgets, ...budgets } });
  return { client, gen: new SpecGenerator(client, BUILTIN_GUIDANCE_TOPICS) };
}

const DESCRIPTION = 'A car loan with a deposit that cannot exceed the price; show the amount financed.';

describe.each(['anthropic', 'openai'] as const)('generation through %s', (provider) => {
  it('converges in 4 attempts: not JSON, a schema error, a failing test, then a good spec', async () => {
    llm.script(CONVERGING_SCRIPT);
    const { gen, client } = generator(provider);
    const frames: ProgressFrame[] = [];
    const before = llm.requests.length;
    const result = await gen.generate(
      { description: DESCRIPTION, modelId: 'car-loan' },
      { progress: (f) => frames.push(f) },
    );
    expect(result.valid).toBe(true);
    expect(result.attempts).toBe(4);
    expect(result.spec).toEqual(loanSpec('car-loan'));
    expect(result.verification).toMatchObject({
      state: 'green',
      checkedCount: 1,
      passedCount: 1,
      unverifiableCount: 0,
    });
    expect(llm.requests.length - before).toBe(4);

    expect(frames.map((f) => `${f.attempt}:${f.phase}`)).toEqual([
      '1:llm_requesting',
      '1:validation_failed',
      '2:retrying',
      '2:llm_requesting',
      '2:validating',
      '2:validation_failed',
      '3:retrying',
      '3:llm_requesting',
      '3:validating',
      '3:test_running',
      '3:test_failed',
      '4:retrying',
      '4:llm_requesting',
      '4:validating',
      '4:test_running',
    ]);
    expect(frames[0]).toMatchObject({ provider, model: 'loop-model' });

    // each repair prompt carries the previous attempt's errors
    const users = llm.requests.slice(before).map((r) => JSON.stringify(r.body.messages));
    expect(users[0]).toContain(DESCRIPTION.slice(0, 30));
    expect(users[1]).toMatch(/not valid JSON/);
    expect(users[2]).toMatch(/unknown function \$minus/);
    expect(users[3]).toMatch(/financed is price less deposit.*expected 900, got 800/);

    // the interactions log: one record per attempt, newest first, never the key
    const records = client.log.list();
    expect(records.map((r) => r.attempt)).toEqual([4, 3, 2, 1]);
    expect(JSON.stringify(records)).not.toContain(KEY);
  });
});

describe('the checks and the budgets', () => {
  it('the initial-state gate: a seeded state breaking a rollback constraint is sent back', async () => {
    llm.script([BAD_INITIAL_STATE, GOOD]);
    const { gen } = generator('openai');
    const before = llm.requests.length;
    const result = await gen.generate({ description: DESCRIPTION, modelId: 'car-loan' });
    expect(result.attempts).toBe(2);
    expect(JSON.stringify(llm.requests[before + 1]!.body.messages)).toMatch(
      /initial state.*deposit-within-price|deposit-within-price.*initial state/,
    );
  });

  it('a runaway loop stops at the base attempts when the errors do not drop', async () => {
    llm.script([NOT_JSON]);
    const { gen } = generator('anthropic', { maxAttempts: 3, maxAttemptsHard: 10 });
    const before = llm.requests.length;
    const err = await gen.generate({ description: DESCRIPTION }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('GENERATION_UNCONVERGED');
    expect((err as LlmError).details).toMatchObject({ attempts: 3, rawResponse: NOT_JSON });
    expect(llm.requests.length - before).toBe(3);
  });

  it('past the base attempts it goes on only while the error count drops, up to the hard ceiling', async () => {
    // attempt 1: two failing tests; attempt 2: one; attempt 3 (extra): one again, so it stops
    const twoFailing = { ...loanSpec('car-loan', { expected: 900 }) };
    twoFailing.tests = [
      ...twoFailing.tests,
      { description: 'second', given: { '$.price': 10, '$.deposit': 1 }, expect: { '$.financed': 1 } },
    ];
    llm.script([JSON.stringify(twoFailing), FAILING_TEST, FAILING_TEST, FAILING_TEST]);
    const { gen } = generator('openai', { maxAttempts: 2, maxAttemptsHard: 5 });
    const before = llm.requests.length;
    const err = (await gen.generate({ description: DESCRIPTION }).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('GENERATION_UNCONVERGED');
    expect(llm.requests.length - before).toBe(3);
    // the best spec so far rides along, with its verification report
    expect(err.details.verification).toMatchObject({ state: 'amber', checkedCount: 1, passedCount: 0 });
  });

  it('the token budget stops the loop', async () => {
    llm.script([SCHEMA_ERROR]);
    const { gen } = generator('openai', { tokenBudget: 1 });
    const before = llm.requests.length;
    const err = (await gen.generate({ description: DESCRIPTION }).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('LLM_BUDGET_EXCEEDED');
    expect(err.status).toBe(413);
    expect(llm.requests.length - before).toBe(1);
  });

  it('the time budget stops the loop', async () => {
    llm.script([{ text: GOOD, delayMs: 3000 }]);
    const { gen } = generator('anthropic', { timeBudgetMs: 300 });
    const started = Date.now();
    const err = (await gen.generate({ description: DESCRIPTION }).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('LLM_BUDGET_EXCEEDED');
    expect(err.message).toMatch(/time budget/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('a request without a description is refused before any call; no provider is LLM_NOT_CONFIGURED', async () => {
    const { gen } = generator('openai');
    await expect(gen.generate({})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(gen.generate({ description: 'x'.repeat(5001) })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const none = new SpecGenerator(undefined, BUILTIN_GUIDANCE_TOPICS);
    await expect(none.generate({ description: DESCRIPTION })).rejects.toMatchObject({
      code: 'LLM_NOT_CONFIGURED',
      status: 503,
    });
    // the preview needs no provider: the description, the model id, the guides and the matched topics
    const preview = none.preview({ description: 'a loan repayment schedule', modelId: 'loan-plan' });
    expect(preview.user).toContain('Model ID: loan-plan');
    expect(preview.user).toContain('a loan repayment schedule');
    expect(preview.system).toContain('# The ModelSpec format');
    expect(preview.topics).toContain('amortization_schedule');
  });
});

describe('evolution from a description', () => {
  it('goes through the evolve path: applied, audited, the version moves on', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel(loanSpec('car-loan'));
    const evolution = {
      newVersion: '1.1.0',
      upsertSchemaNodes: [{ path: '$.depositShare', schema: { type: 'number', readOnly: true } }],
      upsertDerivations: [{ path: '$.depositShare', expr: 'price = 0 ? 0 : deposit / price' }],
      newTests: [
        {
          description: 'share',
          given: { '$.price': 1000, '$.deposit': 250 },
          expect: { '$.depositShare': 0.25 },
        },
      ],
    };
    const wrong = {
      ...evolution,
      newTests: [{ ...evolution.newTests[0]!, expect: { '$.depositShare': 0.5 } }],
    };
    llm.script([JSON.stringify(wrong), JSON.stringify(evolution)]);
    const { gen } = generator('anthropic');
    const result = await gen.evolve(calc, 'car-loan', {
      description: 'Show the deposit as a share of the price.',
    });
    expect(result).toMatchObject({ id: 'car-loan', version: '1.1.0', attempts: 2 });
    expect(await calc.getField('car-loan', '$.depositShare')).toBe(0.1);
    const audit = await calc.getAudit('car-loan');
    expect(audit.some((r) => r.source === 'evolution')).toBe(true);
    await calc.close();
  });

  it('a model that changed meanwhile is a version conflict, not retried', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel(loanSpec('car-loan'));
    const evolution = { newVersion: '1.1.0', upsertConstants: { rate: 1 } };
    llm.script([JSON.stringify(evolution)]);
    const { gen } = generator('openai');
    const racing = {
      getSpec: (id: string) => calc.getSpec(id),
      evolveSpec: async (id: string, ev: unknown) => {
        await calc.evolveSpec(id, { newVersion: '1.0.1' }); // someone else got there first
        return calc.evolveSpec(id, ev);
      },
    };
    await expect(
      gen.evolve(racing, 'car-loan', { description: 'add a rate constant' }),
    ).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
    });
    await calc.close();
  });
});
