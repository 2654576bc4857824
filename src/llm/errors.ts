/**
 * The provider layer's refusals. Each code is in the one catalogue (src/errors/catalogue.ts), so
 * every surface answers it with the same status; messages are ours and never carry a key.
 */
import { httpStatusOf } from '../errors/catalogue.js';

export type LlmErrorCode =
  | 'LLM_NOT_CONFIGURED'
  | 'LLM_FAILED'
  | 'LLM_BUDGET_EXCEEDED'
  | 'GENERATION_UNCONVERGED'
  | 'INVALID_ARGUMENT'
  | 'BUSY';

export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'LlmError';
  }

  get status(): number {
    return httpStatusOf(this.code);
  }
}

/** What to tell a caller when no provider is set up (docs/generate.md has the details). */
export const NOT_CONFIGURED_MESSAGE =
  'No language-model provider is configured: set MODELWORKS_LLM_PROVIDER (anthropic, openai or openai-compatible), ' +
  'MODELWORKS_LLM_MODEL and MODELWORKS_LLM_API_KEY (or MODELWORKS_LLM_API_KEY_FILE; a local Ollama needs none, ' +
  'only MODELWORKS_LLM_BASE_URL) and restart; see docs/generate.md';

export function notConfigured(): LlmError {
  return new LlmError('LLM_NOT_CONFIGURED', NOT_CONFIGURED_MESSAGE);
}
