/** What both llm routes (MCP sampling, the provider) make of a completion, and how they fail. */
import type { JsonValue } from '../../calc/index.js';
import type { ExecutorOutcome } from './executor.js';

export const failed = (message: string): ExecutorOutcome => ({
  kind: 'failed',
  code: 'EFFECT_LLM_FAILED',
  message,
});

/** JSON when the text is JSON (or one fenced ```json block), else undefined. */
export function parseJson(text: string): JsonValue | undefined {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  try {
    return JSON.parse(fenced ? fenced[1]! : text) as JsonValue;
  } catch {
    return undefined;
  }
}
