/**
 * The `llm` effect's provider route (issue 44, docs/effects.md): when a language-model provider is
 * configured (MODELWORKS_LLM_*), an llm effect is answered by it, server-side, before MCP sampling
 * is considered: no client needs to be connected. The call goes through the provider layer's
 * budgets and interactions log (purpose `effect`).
 */
import type { ValidateFunction } from 'ajv';
import type { JsonValue } from '../../calc/index.js';
import { LlmError, type LlmClient } from '../../llm/index.js';
import type { EffectPolicy, ExecutorOutcome, RunContext } from './executor.js';
import { failed, parseJson } from './llm-answer.js';

/** The completion's length bound, as the sampling path asks of a client. */
const MAX_TOKENS = 1024;
/** The wait when the policy sets none (as the sampling path). */
const DEFAULT_TIMEOUT_MS = 60_000;

/** A server-side route to a model, injected into the llm executor. */
export interface ProviderRoute {
  /** Answers the effect, or undefined when it is not this route's to answer. */
  run(
    prompt: string,
    policy: EffectPolicy,
    schema: { value: JsonValue; validate: ValidateFunction } | undefined,
    context: RunContext | undefined,
  ): Promise<ExecutorOutcome>;
}

const isObjectSchema = (schema: JsonValue): schema is Record<string, JsonValue> =>
  schema !== null && typeof schema === 'object' && !Array.isArray(schema) && schema.type === 'object';

/** The provider route over the provider layer's client. */
export function providerRoute(llm: LlmClient): ProviderRoute {
  return {
    async run(prompt, policy, schema, context) {
      const timeout = AbortSignal.timeout(policy.timeoutMs > 0 ? policy.timeoutMs : DEFAULT_TIMEOUT_MS);
      const signal = context ? AbortSignal.any([context.signal, timeout]) : timeout;
      let text: string;
      try {
        const answer = await llm.complete(
          {
            system: schema
              ? `Answer with JSON only, matching this JSON Schema: ${JSON.stringify(schema.value)}`
              : 'Answer the request.',
            user: prompt,
            maxTokens: MAX_TOKENS,
            ...(typeof policy.temperature === 'number' ? { temperature: policy.temperature } : {}),
            // structured output takes an object schema (Anthropic's tool input must be one)
            ...(schema && isObjectSchema(schema.value)
              ? { schema: { name: 'answer', description: 'The answer', schema: schema.value } }
              : {}),
          },
          { purpose: 'effect', signal },
        );
        text = answer.text;
      } catch (err) {
        if (context?.signal.aborted) return { kind: 'aborted' };
        if (timeout.aborted)
          return failed(`the provider did not answer within ${policy.timeoutMs || DEFAULT_TIMEOUT_MS} ms`);
        return failed(err instanceof LlmError ? err.message : 'the provider call failed');
      }
      const parsed = parseJson(text);
      if (!schema) return { kind: 'ok', response: parsed ?? text, status: 200 };
      if (parsed === undefined)
        return failed('the completion is not JSON, and the effect has a responseSchema');
      if (!schema.validate(parsed)) {
        const first = schema.validate.errors?.[0];
        return failed(
          `the completion does not match the responseSchema: ${first ? `${first.instancePath || '/'} ${first.message ?? ''}` : 'rejected'}`,
        );
      }
      return { kind: 'ok', response: parsed, status: 200 };
    },
  };
}
