/**
 * The `llm` executor. With a provider configured (MODELWORKS_LLM_*) the provider route answers
 * first (llm-provider-route.ts); otherwise it asks the connected MCP client's model through sampling
 * (`sampling/createMessage`), so no API key lives in the server. Only a client that declared the
 * `sampling` capability is asked: the newest connected 2025-era one by a server-to-client request,
 * else a 2026-07-28 one in band (the request waits in `inBand` for that client's next tool call,
 * sampling-queue.ts); without either the effect ends `blocked` saying so. The completion is parsed as JSON when it is JSON (a fenced ```json block too), else
 * kept as text; with a `responseSchema` it must be JSON that the schema accepts (ajv).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { Server } from '@modelcontextprotocol/server';
import { BoundedCache, contentKey, type JsonObject, type JsonValue } from '../../calc/index.js';
import type { EffectExecutor, EffectPolicy, ExecutorOutcome, RunContext } from './executor.js';
import type { ProviderRoute } from './llm-provider-route.js';
import { SamplingQueue } from './sampling-queue.js';
import { failed, parseJson } from './llm-answer.js';

/** The completion's length bound asked of the client. */
const MAX_TOKENS = 1024;
/** The wait for the client's answer when the policy sets none. */
const DEFAULT_TIMEOUT_MS = 60_000;
/** Servers remembered; older ones (their connections long gone) are dropped. */
const MAX_ATTACHED = 64;

/** Response schemas kept compiled; each owns its Ajv instance, so one pushed out frees all it compiled. */
const MAX_RESPONSE_SCHEMAS = 64;

export class LlmExecutor implements EffectExecutor {
  readonly name = 'llm';
  private readonly servers: Server[] = [];
  private readonly validators = new BoundedCache<string, ValidateFunction>(MAX_RESPONSE_SCHEMAS);
  /** Completions waiting for a 2026-07-28 client's next tool call (no server-to-client requests there). */
  readonly inBand = new SamplingQueue();

  /** `provider`: the server-side route, taken before sampling when a provider is configured. */
  constructor(private readonly provider?: ProviderRoute) {}

  /** Makes a connection's server one the executor may ask (each MCP connection has its own). */
  attach(server: Server): void {
    this.servers.push(server);
    if (this.servers.length > MAX_ATTACHED) this.servers.shift();
  }

  /** The newest connected server whose client samples. */
  private sampler(): Server | undefined {
    for (let i = this.servers.length - 1; i >= 0; i--) {
      const s = this.servers[i]!;
      if (s.transport && s.getClientCapabilities()?.sampling) return s;
    }
    return undefined;
  }

  private validator(schema: JsonValue): ValidateFunction | string {
    const key = contentKey(schema);
    let v = this.validators.get(key);
    if (!v) {
      try {
        v = new Ajv({ strict: false, allErrors: false }).compile(schema as object);
      } catch (err) {
        return `the responseSchema is not a usable JSON Schema: ${(err as Error).message}`;
      }
      this.validators.set(key, v);
    }
    return v;
  }

  async execute(request: JsonObject, policy: EffectPolicy, context?: RunContext): Promise<ExecutorOutcome> {
    const prompt = request.prompt;
    if (typeof prompt !== 'string' || prompt.trim() === '')
      return {
        kind: 'failed',
        code: 'EFFECT_INVALID_REQUEST',
        message: 'the prompt did not evaluate to text',
      };
    if (this.provider) return this.viaProvider(this.provider, prompt, policy, context);
    const server = this.sampler();
    if (!server && !this.inBand.available) {
      return {
        kind: 'blocked',
        code: 'EFFECT_BLOCKED',
        message:
          'no connected MCP client offers sampling (sampling/createMessage): llm effects run only while such a client is connected to modelworks mcp',
      };
    }
    const schema = context?.effect?.responseSchema;
    const validate = schema !== undefined && schema !== null ? this.validator(schema) : undefined;
    if (typeof validate === 'string')
      return { kind: 'failed', code: 'EFFECT_INVALID_REQUEST', message: validate };
    const model = typeof policy.model === 'string' ? policy.model : undefined;
    const temperature = typeof policy.temperature === 'number' ? policy.temperature : undefined;
    const params = {
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt } }],
      maxTokens: MAX_TOKENS,
      ...(validate
        ? { systemPrompt: `Answer with JSON only, matching this JSON Schema: ${JSON.stringify(schema)}` }
        : {}),
      ...(model ? { modelPreferences: { hints: [{ name: model }] } } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
    };
    const timeout = policy.timeoutMs > 0 ? policy.timeoutMs : DEFAULT_TIMEOUT_MS;
    let text: string;
    try {
      const result = server
        ? await server.createMessage(params, { timeout, ...(context ? { signal: context.signal } : {}) })
        : ((await this.inBand.ask(params, timeout, context?.signal)) as { content?: unknown });
      const content = (Array.isArray(result.content) ? result.content[0] : result.content) as
        { type?: string; text?: unknown } | undefined;
      if (content?.type !== 'text' || typeof content.text !== 'string')
        return failed(`the client answered with ${content?.type ?? 'nothing'}, not text`);
      text = content.text;
    } catch (err) {
      if (context?.signal.aborted) return { kind: 'aborted' };
      return failed(`the client's sampling request failed: ${(err as Error).message}`);
    }
    const parsed = parseJson(text);
    if (!validate) return { kind: 'ok', response: parsed ?? text, status: 200 };
    if (parsed === undefined)
      return failed('the completion is not JSON, and the effect has a responseSchema');
    if (!validate(parsed)) {
      const first = validate.errors?.[0];
      return failed(
        `the completion does not match the responseSchema: ${first ? `${first.instancePath || '/'} ${first.message ?? ''}` : 'rejected'}`,
      );
    }
    return { kind: 'ok', response: parsed, status: 200 };
  }

  /** The provider route (docs/effects.md, "Which model answers"): no MCP client needed. */
  private viaProvider(
    route: ProviderRoute,
    prompt: string,
    policy: EffectPolicy,
    context: RunContext | undefined,
  ): Promise<ExecutorOutcome> {
    const schema = context?.effect?.responseSchema;
    if (schema === undefined || schema === null) return route.run(prompt, policy, undefined, context);
    const validate = this.validator(schema);
    if (typeof validate === 'string')
      return Promise.resolve({ kind: 'failed', code: 'EFFECT_INVALID_REQUEST', message: validate });
    return route.run(prompt, policy, { value: schema, validate }, context);
  }
}
