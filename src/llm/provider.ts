/**
 * One call to a language model, whatever the provider: a system text, a user text, a length bound,
 * a temperature and, optionally, the JSON Schema the answer should follow (structured output).
 */

export interface CompletionRequest {
  system: string;
  user: string;
  maxTokens: number;
  temperature?: number;
  /** Structured output: a forced tool on Anthropic, `response_format` on OpenAI-style endpoints. */
  schema?: { name: string; description: string; schema: Record<string, unknown> };
}

export interface Completion {
  /** The answer as text (JSON text when the provider returned structured output). */
  text: string;
  /** The answer hit the length bound. */
  truncated: boolean;
  inputTokens: number;
  outputTokens: number;
}

export interface LlmProvider {
  readonly kind: string;
  readonly model: string;
  complete(request: CompletionRequest, signal: AbortSignal, timeoutMs: number): Promise<Completion>;
}
