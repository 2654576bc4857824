/**
 * llm effects through the provider layer (issue 44 point 4): with a provider configured, an llm
 * effect is answered server-side by it, with no MCP client attached at all; a responseSchema is
 * asked as structured output and still checked; the call is in the interactions log.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient, llmConfigFromEnv } from '../../src/llm/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { effectSettingsFromEnv, startEffectExecutors } from '../../src/service/effects/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';

const KEY = 'sk-effects-KEY-51aa';
let llm: LoopbackLlm;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  llm = await startLoopbackLlm();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await llm?.close();
});

const LABEL_SCHEMA = {
  type: 'object',
  required: ['label'],
  properties: { label: { enum: ['billing', 'outage'] } },
};

function triageSpec() {
  return {
    id: 'triage',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: { note: { type: 'string' }, label: { type: 'string' }, triage: { type: 'object' } },
    },
    effects: [
      {
        id: 'classify',
        executor: 'llm',
        trigger: '$exists(note)',
        dedupeKey: 'note',
        statusPath: '$.triage',
        prompt: '"Classify this note: " & note',
        responseSchema: LABEL_SCHEMA,
        response: { set: { '$.label': '$response.label' } },
      },
    ],
  };
}

/** The service and runner as `serve` starts them, with a provider and no MCP server at all. */
async function served(provider: 'anthropic' | 'openai') {
  const client = new LlmClient(
    llmConfigFromEnv({
      MODELWORKS_LLM_PROVIDER: provider,
      MODELWORKS_LLM_MODEL: 'effect-model',
      MODELWORKS_LLM_BASE_URL: provider === 'anthropic' ? llm.anthropicUrl : llm.openaiUrl,
      MODELWORKS_LLM_API_KEY: KEY,
    })!,
  );
  const calc = new CalcService(new MemoryStore());
  const started = startEffectExecutors(calc, effectSettingsFromEnv({}), () => {}, client)!;
  cleanups.push(async () => {
    await started.runner.stop();
    await calc.close();
  });
  await calc.createModel(triageSpec());
  return { calc, runner: started.runner, client };
}

describe.each(['anthropic', 'openai'] as const)(
  'an llm effect through %s, no MCP client attached',
  (provider) => {
    it('is answered by the provider and folded back', async () => {
      llm.script(['{"label":"billing"}']);
      const { calc, runner, client } = await served(provider);
      const before = llm.requests.length;
      const settled = runner.next((s) => s.phase !== 'skipped');
      await calc.mutate('triage', { '$.note': 'charged twice' });
      expect(await settled).toMatchObject({ executor: 'llm', phase: 'applied', key: 'charged twice' });
      const state = (await calc.getState('triage')) as Record<string, unknown>;
      expect(state.label).toBe('billing');
      expect(state.triage).toMatchObject({ phase: 'applied' });
      const sent = llm.requests[before]!;
      expect(JSON.stringify(sent.body.messages)).toContain('Classify this note: charged twice');
      // the responseSchema as structured output: a forced tool, or response_format
      if (provider === 'anthropic') expect(sent.body.tool_choice).toEqual({ type: 'tool', name: 'answer' });
      else expect(sent.body.response_format).toMatchObject({ type: 'json_schema' });
      const [record] = client.log.list();
      expect(record).toMatchObject({ purpose: 'effect', outcome: 'ok', provider, model: 'effect-model' });
      expect(JSON.stringify(state)).not.toContain(KEY);
    });

    it('fails, in our words, when the answer breaks the responseSchema or the provider fails', async () => {
      llm.script(['{"label":"poetry"}', { status: 500 }]);
      const { calc, runner } = await served(provider);
      let settled = runner.next((s) => s.phase !== 'skipped');
      await calc.mutate('triage', { '$.note': 'a sonnet' });
      expect(await settled).toMatchObject({ phase: 'failed', error: { code: 'EFFECT_LLM_FAILED' } });
      settled = runner.next((s) => s.phase !== 'skipped');
      await calc.mutate('triage', { '$.note': 'site down' });
      expect(await settled).toMatchObject({ phase: 'failed', error: { code: 'EFFECT_LLM_FAILED' } });
      const state = (await calc.getState('triage')) as Record<string, unknown>;
      expect((state.triage as { error: string }).error).toBe('the provider answered HTTP 500');
    });
  },
);
