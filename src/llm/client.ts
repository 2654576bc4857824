/**
 * The provider layer as the service uses it: one configured provider behind the budgets (calls at
 * once, calls per minute, each call's timeout) and the interactions log. Failures come back as
 * LlmError in our words; the provider's own text and the key never leave this module.
 */
import type { RateLimiterQueue } from 'rate-limiter-flexible';
import { commonJs } from '../commonjs.js';
import { WorkGate } from '../service/work-gate.js';
import { LLM_ENV, llmConfigFromEnv, type LlmBudgets, type LlmConfig } from './config.js';
import { LlmError } from './errors.js';
import { InteractionLog, type InteractionPurpose } from './interactions.js';
import type { Completion, CompletionRequest, LlmProvider } from './provider.js';

export interface CallContext {
  purpose: InteractionPurpose;
  signal?: AbortSignal;
  attempt?: number;
}

/** The provider's failure in our words: its status class, never its body (which may echo a prompt). */
function describeFailure(err: unknown, timeoutMs: number, where: string): string {
  const e = err as { status?: unknown; name?: unknown; constructor?: { name?: string } };
  const kind = e?.constructor?.name ?? '';
  if (/Timeout/i.test(kind)) return `the provider did not answer within ${Math.round(timeoutMs / 1000)} s`;
  if (/Connection/i.test(kind)) return `the provider could not be reached at ${where}`;
  const status = typeof e?.status === 'number' ? e.status : undefined;
  if (status === 401 || status === 403)
    return `the provider refused the key (HTTP ${status}): check ${LLM_ENV.apiKey}`;
  if (status === 404)
    return `the provider does not know the model or the endpoint (HTTP 404): check ${LLM_ENV.model} and ${LLM_ENV.baseUrl}`;
  if (status === 429) return 'the provider is rate limiting this key (HTTP 429): try again later';
  if (status !== undefined) return `the provider answered HTTP ${status}`;
  return 'the provider call failed';
}

/**
 * The configured provider. Its official client (hundreds of modules: ~400 of the ~1,000 an MCP
 * server otherwise loads before it answers `initialize`) is loaded on the first call, not here;
 * constructing either client checks nothing that could fail earlier.
 */
export function createProvider(config: LlmConfig): LlmProvider {
  let loaded: Promise<LlmProvider> | undefined;
  const load = async (): Promise<LlmProvider> => {
    if (config.provider === 'anthropic') {
      const { AnthropicProvider } = await import('./anthropic.js');
      return new AnthropicProvider(config.model, config.apiKey, config.baseUrl);
    }
    const { OpenAiProvider } = await import('./openai.js');
    return new OpenAiProvider(
      config.provider,
      config.model,
      config.apiKey,
      config.baseUrl,
      config.structuredOutput,
    );
  };
  return {
    kind: config.provider,
    model: config.model,
    complete: async (request, signal, timeoutMs) =>
      (await (loaded ??= load())).complete(request, signal, timeoutMs),
  };
}

export class LlmClient {
  readonly log: InteractionLog;
  private readonly gate: WorkGate;
  /** The per-minute queue, built on the first call (its package loads then: a server may make none). */
  private perMinute: Promise<RateLimiterQueue> | undefined;

  constructor(
    private readonly config: LlmConfig,
    private readonly provider: LlmProvider = createProvider(config),
  ) {
    this.log = new InteractionLog(config.logSize, config.logContent, config.apiKey);
    const b = config.budgets;
    this.gate = new WorkGate(
      'language-model calls',
      { running: b.concurrency, queue: b.queue },
      {
        runningEnv: LLM_ENV.concurrency,
        queueEnv: LLM_ENV.queue,
        defaults: { running: b.concurrency, queue: b.queue },
      },
      (message, details) => new LlmError('BUSY', message, details),
    );
  }

  private minuteQueue(): Promise<RateLimiterQueue> {
    const b = this.config.budgets;
    return (this.perMinute ??= import('rate-limiter-flexible').then((loaded) => {
      // a CommonJS package: commonJs() reads its exports alike in the bundle and unbundled
      const { RateLimiterMemory, RateLimiterQueue } = commonJs(loaded);
      return new RateLimiterQueue(new RateLimiterMemory({ points: b.requestsPerMinute, duration: 60 }), {
        maxQueueSize: Math.max(1, b.queue),
      });
    }));
  }

  /** Which provider and model answer (never the key). */
  get identity(): { provider: string; model: string } {
    return { provider: this.config.provider, model: this.config.model };
  }

  get budgets(): LlmBudgets {
    return this.config.budgets;
  }

  /** Waits for a per-minute token; the wait ends early when the caller cancels. */
  private async takeRateToken(signal: AbortSignal | undefined): Promise<void> {
    const queue = await this.minuteQueue();
    const taking = queue.removeTokens(1).then(
      () => undefined,
      () => {
        throw new LlmError(
          'BUSY',
          `more language-model calls are waiting than ${LLM_ENV.requestsPerMinute}=${this.config.budgets.requestsPerMinute} lets through: retry later`,
          { retryAfterSeconds: 60 },
        );
      },
    );
    if (!signal) return taking;
    signal.throwIfAborted();
    await Promise.race([
      taking,
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
      ),
    ]);
  }

  /**
   * One call under the budgets, recorded in the interactions log whatever its outcome.
   * @throws LlmError LLM_FAILED (the provider failed), BUSY (too many waiting); the signal's reason when cancelled
   */
  async complete(request: CompletionRequest, context: CallContext): Promise<Completion> {
    const timeoutMs = this.config.budgets.requestTimeoutMs;
    return this.gate.run(async () => {
      await this.takeRateToken(context.signal);
      const started = Date.now();
      const signal = context.signal ?? new AbortController().signal;
      const base = {
        timestamp: new Date(started).toISOString(),
        purpose: context.purpose,
        ...this.identity,
        ...(context.attempt !== undefined ? { attempt: context.attempt } : {}),
        system: request.system,
        user: request.user,
        promptChars: request.system.length + request.user.length,
      };
      try {
        const answer = await this.provider.complete(request, signal, timeoutMs);
        this.log.add({
          ...base,
          response: answer.text,
          errorMessage: null,
          outcome: answer.truncated ? 'truncated' : 'ok',
          durationMs: Date.now() - started,
          responseChars: answer.text.length,
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
        });
        return answer;
      } catch (err) {
        const cancelled = signal.aborted;
        const message = cancelled
          ? 'cancelled'
          : describeFailure(err, timeoutMs, this.config.baseUrl ?? this.config.provider);
        this.log.add({
          ...base,
          response: '',
          errorMessage: message,
          outcome: 'failed',
          durationMs: Date.now() - started,
          responseChars: 0,
          inputTokens: 0,
          outputTokens: 0,
        });
        if (cancelled) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
        throw new LlmError('LLM_FAILED', message, { ...this.identity });
      }
    }, context.signal);
  }
}

/**
 * The client the environment configures, or undefined without MODELWORKS_LLM_PROVIDER.
 * @throws Error naming a malformed setting
 */
export function llmClientFromEnv(env: NodeJS.ProcessEnv = process.env): LlmClient | undefined {
  const config = llmConfigFromEnv(env);
  return config ? new LlmClient(config) : undefined;
}
