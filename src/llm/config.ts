/**
 * The provider layer's settings (docs/generate.md), read once at start. No MODELWORKS_LLM_PROVIDER
 * means no provider: generation answers LLM_NOT_CONFIGURED and llm effects use MCP sampling. A
 * malformed value is an Error naming the variable (never its value when it is the key), so the
 * process refuses to start rather than guess.
 */
import { readFileSync } from 'node:fs';
import { intSetting } from '../service/synth-settings.js';

export const PROVIDER_KINDS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** How structured output is asked of an OpenAI-style endpoint. */
export type StructuredOutput = 'schema' | 'json' | 'none';

export const LLM_ENV = {
  provider: 'MODELWORKS_LLM_PROVIDER',
  model: 'MODELWORKS_LLM_MODEL',
  baseUrl: 'MODELWORKS_LLM_BASE_URL',
  apiKey: 'MODELWORKS_LLM_API_KEY',
  apiKeyFile: 'MODELWORKS_LLM_API_KEY_FILE',
  maxTokens: 'MODELWORKS_LLM_MAX_TOKENS',
  maxTokensHard: 'MODELWORKS_LLM_MAX_TOKENS_HARD',
  tokenBudget: 'MODELWORKS_LLM_TOKEN_BUDGET',
  timeBudgetSeconds: 'MODELWORKS_LLM_TIME_BUDGET_SECONDS',
  requestTimeoutSeconds: 'MODELWORKS_LLM_REQUEST_TIMEOUT_SECONDS',
  concurrency: 'MODELWORKS_LLM_CONCURRENCY',
  queue: 'MODELWORKS_LLM_QUEUE',
  requestsPerMinute: 'MODELWORKS_LLM_REQUESTS_PER_MINUTE',
  maxAttempts: 'MODELWORKS_LLM_MAX_ATTEMPTS',
  maxAttemptsHard: 'MODELWORKS_LLM_MAX_ATTEMPTS_HARD',
  structuredOutput: 'MODELWORKS_LLM_STRUCTURED_OUTPUT',
  logContent: 'MODELWORKS_LLM_LOG_CONTENT',
  logSize: 'MODELWORKS_LLM_LOG_SIZE',
} as const;

/** Models used when MODELWORKS_LLM_MODEL is unset; an openai-compatible endpoint has no default. */
export const DEFAULT_MODELS: Partial<Record<ProviderKind, string>> = {
  anthropic: 'claude-sonnet-4-6',
  openai: 'gpt-4o',
};

export interface LlmBudgets {
  /** The completion length asked of one call. */
  maxTokens: number;
  /** The length a truncated answer is retried with, at most. */
  maxTokensHard: number;
  /** Input plus output tokens one generation may spend over all its attempts. */
  tokenBudget: number;
  /** Wall time of one generation (every attempt), ms. */
  timeBudgetMs: number;
  /** One provider call, ms. */
  requestTimeoutMs: number;
  /** Provider calls in flight at once (this process). */
  concurrency: number;
  /** Calls waiting for a slot; one more is refused BUSY. */
  queue: number;
  /** Provider calls started per minute (this process). */
  requestsPerMinute: number;
  /** Attempts a generation always gets. */
  maxAttempts: number;
  /** Attempts past which nothing continues, even while the error count drops. */
  maxAttemptsHard: number;
}

export interface LlmConfig {
  provider: ProviderKind;
  model: string;
  baseUrl: string | undefined;
  /** Never logged, never in a result or the interactions log. */
  apiKey: string | undefined;
  structuredOutput: StructuredOutput;
  budgets: LlmBudgets;
  /** false: the interactions log keeps sizes and outcomes only. */
  logContent: boolean;
  /** Records the interactions log keeps. */
  logSize: number;
}

export const DEFAULT_BUDGETS: LlmBudgets = {
  maxTokens: 8192,
  maxTokensHard: 16384,
  tokenBudget: 200_000,
  timeBudgetMs: 600_000,
  requestTimeoutMs: 120_000,
  concurrency: 2,
  queue: 32,
  requestsPerMinute: 30,
  maxAttempts: 6,
  maxAttemptsHard: 10,
};

function booleanSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = (env[name] ?? '').trim().toLowerCase();
  if (text === '') return fallback;
  if (text === 'true' || text === '1' || text === 'on') return true;
  if (text === 'false' || text === '0' || text === 'off') return false;
  throw new Error(`${name} must be true or false (got '${env[name]}')`);
}

function readKey(env: NodeJS.ProcessEnv): string | undefined {
  const direct = env[LLM_ENV.apiKey]?.trim();
  if (direct) return direct;
  const file = env[LLM_ENV.apiKeyFile]?.trim();
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(`${LLM_ENV.apiKeyFile} names ${file}, which cannot be read (${reason})`);
  }
  const key = text.trim();
  if (!key) throw new Error(`${LLM_ENV.apiKeyFile} names ${file}, which is empty`);
  return key;
}

function baseUrlSetting(env: NodeJS.ProcessEnv): string | undefined {
  const text = env[LLM_ENV.baseUrl]?.trim();
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${LLM_ENV.baseUrl} must be an http or https URL (got '${text}')`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${LLM_ENV.baseUrl} must be an http or https URL (got '${text}')`);
  if (url.username || url.password)
    throw new Error(`${LLM_ENV.baseUrl} must not carry credentials: put the key in ${LLM_ENV.apiKey}`);
  return text.replace(/\/+$/, '');
}

function budgetsFromEnv(env: NodeJS.ProcessEnv): LlmBudgets {
  const read = (name: string, fallback: number, what: string, max?: number): number =>
    intSetting(env, name, fallback, what, max);
  const d = DEFAULT_BUDGETS;
  const maxTokens = read(LLM_ENV.maxTokens, d.maxTokens, 'tokens', 1_000_000);
  const maxTokensHard = read(
    LLM_ENV.maxTokensHard,
    Math.max(d.maxTokensHard, maxTokens),
    'tokens',
    1_000_000,
  );
  if (maxTokensHard < maxTokens)
    throw new Error(
      `${LLM_ENV.maxTokensHard} (${maxTokensHard}) is below ${LLM_ENV.maxTokens} (${maxTokens})`,
    );
  const maxAttempts = read(LLM_ENV.maxAttempts, d.maxAttempts, 'attempts', 100);
  const maxAttemptsHard = read(
    LLM_ENV.maxAttemptsHard,
    Math.max(d.maxAttemptsHard, maxAttempts),
    'attempts',
    100,
  );
  if (maxAttemptsHard < maxAttempts)
    throw new Error(
      `${LLM_ENV.maxAttemptsHard} (${maxAttemptsHard}) is below ${LLM_ENV.maxAttempts} (${maxAttempts})`,
    );
  const queueText = env[LLM_ENV.queue]?.trim();
  const queue = queueText === '0' ? 0 : read(LLM_ENV.queue, d.queue, 'calls', 10_000);
  return {
    maxTokens,
    maxTokensHard,
    tokenBudget: read(LLM_ENV.tokenBudget, d.tokenBudget, 'tokens'),
    timeBudgetMs: read(LLM_ENV.timeBudgetSeconds, d.timeBudgetMs / 1000, 'seconds', 86_400) * 1000,
    requestTimeoutMs: read(LLM_ENV.requestTimeoutSeconds, d.requestTimeoutMs / 1000, 'seconds', 3600) * 1000,
    concurrency: read(LLM_ENV.concurrency, d.concurrency, 'calls', 256),
    queue,
    requestsPerMinute: read(LLM_ENV.requestsPerMinute, d.requestsPerMinute, 'calls', 100_000),
    maxAttempts,
    maxAttemptsHard,
  };
}

/**
 * The provider settings, or undefined when MODELWORKS_LLM_PROVIDER is unset.
 * @throws Error naming the variable when a value is malformed or a needed one is missing
 */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const providerText = (env[LLM_ENV.provider] ?? '').trim().toLowerCase();
  if (providerText === '') return undefined;
  const provider = PROVIDER_KINDS.find((p) => p === providerText);
  if (!provider)
    throw new Error(
      `${LLM_ENV.provider} must be one of ${PROVIDER_KINDS.join(', ')} (got '${env[LLM_ENV.provider]}')`,
    );
  const baseUrl = baseUrlSetting(env);
  const apiKey = readKey(env);
  const model = env[LLM_ENV.model]?.trim() || DEFAULT_MODELS[provider];
  if (!model) throw new Error(`${LLM_ENV.model} is needed with ${LLM_ENV.provider}=${provider}`);
  if (provider === 'openai-compatible' && !baseUrl)
    throw new Error(
      `${LLM_ENV.baseUrl} is needed with ${LLM_ENV.provider}=openai-compatible (e.g. http://127.0.0.1:11434/v1 for Ollama)`,
    );
  if (provider !== 'openai-compatible' && !apiKey)
    throw new Error(
      `${LLM_ENV.apiKey} or ${LLM_ENV.apiKeyFile} is needed with ${LLM_ENV.provider}=${provider}`,
    );
  const structuredText = (env[LLM_ENV.structuredOutput] ?? '').trim().toLowerCase();
  const structuredOutput: StructuredOutput =
    structuredText === ''
      ? provider === 'openai'
        ? 'schema'
        : 'json'
      : (structuredText as StructuredOutput);
  if (!['schema', 'json', 'none'].includes(structuredOutput))
    throw new Error(
      `${LLM_ENV.structuredOutput} must be schema, json or none (got '${env[LLM_ENV.structuredOutput]}')`,
    );
  return {
    provider,
    model,
    baseUrl,
    apiKey,
    structuredOutput,
    budgets: budgetsFromEnv(env),
    logContent: booleanSetting(env, LLM_ENV.logContent, true),
    logSize: intSetting(env, LLM_ENV.logSize, 50, 'records', 10_000),
  };
}
