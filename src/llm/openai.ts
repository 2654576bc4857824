/**
 * OpenAI's Chat Completions API through the official client, for OpenAI itself and every endpoint
 * that speaks it (Ollama, vLLM, OpenRouter, Groq, Mistral, Gemini's compatible endpoint). Structured
 * output is `response_format`: a JSON Schema (`schema`), JSON mode (`json`) or nothing (`none`,
 * for servers that refuse both); the answer is parsed from the text either way.
 */
import OpenAI from 'openai';
import type { StructuredOutput } from './config.js';
import type { Completion, CompletionRequest, LlmProvider } from './provider.js';

export class OpenAiProvider implements LlmProvider {
  private readonly client: OpenAI;

  constructor(
    readonly kind: 'openai' | 'openai-compatible',
    readonly model: string,
    apiKey: string | undefined,
    baseUrl: string | undefined,
    private readonly structured: StructuredOutput,
  ) {
    this.client = new OpenAI({
      // a local server (Ollama) takes no key; the client insists on one, so it gets a placeholder
      apiKey: apiKey ?? 'no-key',
      ...(baseUrl ? { baseURL: baseUrl } : {}),
      maxRetries: 0,
    });
  }

  private responseFormat(request: CompletionRequest) {
    if (!request.schema || this.structured === 'none') return {};
    if (this.structured === 'json') return { response_format: { type: 'json_object' as const } };
    return {
      response_format: {
        type: 'json_schema' as const,
        json_schema: {
          name: request.schema.name,
          description: request.schema.description,
          schema: request.schema.schema,
          strict: false,
        },
      },
    };
  }

  async complete(request: CompletionRequest, signal: AbortSignal, timeoutMs: number): Promise<Completion> {
    const completion = await this.client.chat.completions.create(
      {
        model: this.model,
        max_tokens: request.maxTokens,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
        ],
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...this.responseFormat(request),
      },
      { signal, timeout: timeoutMs },
    );
    const choice = completion.choices[0];
    return {
      text: choice?.message?.content ?? '',
      truncated: choice?.finish_reason === 'length',
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    };
  }
}
