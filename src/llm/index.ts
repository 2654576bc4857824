/** The provider layer (issue 44): configuration, the two official clients, budgets, the interactions log. */
export { LlmClient, llmClientFromEnv, createProvider, type CallContext } from './client.js';
export {
  llmConfigFromEnv,
  LLM_ENV,
  DEFAULT_BUDGETS,
  DEFAULT_MODELS,
  type LlmConfig,
  type LlmBudgets,
} from './config.js';
export { LlmError, notConfigured, NOT_CONFIGURED_MESSAGE, type LlmErrorCode } from './errors.js';
export { InteractionLog, REDACTED, type InteractionRecord, type InteractionPurpose } from './interactions.js';
export type { Completion, CompletionRequest, LlmProvider } from './provider.js';
