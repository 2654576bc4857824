/**
 * Anthropic's Messages API through the official client. Structured output is a forced tool whose
 * input schema is the requested one: the tool's input is the answer.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { Completion, CompletionRequest, LlmProvider } from './provider.js';

export class AnthropicProvider implements LlmProvider {
  readonly kind = 'anthropic';
  private readonly client: Anthropic;

  constructor(
    readonly model: string,
    apiKey: string | undefined,
    baseUrl: string | undefined,
  ) {
    // retries are the generation loop's business, with its own budgets
    this.client = new Anthropic({
      apiKey: apiKey ?? null,
      ...(baseUrl ? { baseURL: baseUrl } : {}),
      maxRetries: 0,
    });
  }

  async complete(request: CompletionRequest, signal: AbortSignal, timeoutMs: number): Promise<Completion> {
    const tool = request.schema;
    const message = await this.client.messages.create(
      {
        model: this.model,
        max_tokens: request.maxTokens,
        system: request.system,
        messages: [{ role: 'user', content: request.user }],
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(tool
          ? {
              tools: [
                {
                  name: tool.name,
                  description: tool.description,
                  input_schema: { ...tool.schema, type: 'object' as const },
                },
              ],
              tool_choice: { type: 'tool' as const, name: tool.name },
            }
          : {}),
      },
      { signal, timeout: timeoutMs },
    );
    let text = '';
    for (const block of message.content) {
      if (block.type === 'tool_use' && tool && block.name === tool.name) {
        text = JSON.stringify(block.input);
        break;
      }
      if (block.type === 'text') text += block.text;
    }
    return {
      text,
      truncated: message.stop_reason === 'max_tokens',
      inputTokens: message.usage?.input_tokens ?? 0,
      outputTokens: message.usage?.output_tokens ?? 0,
    };
  }
}
