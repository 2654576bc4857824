/** A tool as data: its listing (name, title, schemas, annotations) and the function behind it. */
import type { ToolResult } from './results.js';

export type JsonSchema = Record<string, unknown>;

export interface ToolContext {
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** notifications/progress for the call, when the client passed a progressToken. */
  progress?: (progress: number, total: number | undefined, message: string) => void;
  /**
   * A URL-mode elicitation (elicitation/create, mode "url"), when the client supports it; returns
   * the function that sends notifications/elicitation/complete.
   */
  elicitUrl?: (url: string, message: string) => () => void;
  /**
   * Closes the call's SSE stream (Streamable HTTP, resumable session, 2025-11-25 client): the
   * client reconnects after the retry hint and gets what follows from the session's event store.
   */
  closeStream?: () => void;
  /** notifications/message for the session, at or above the level the client set. */
  log?: (level: 'debug' | 'info' | 'notice' | 'warning' | 'error', data: string) => void;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: false;
  };
  /** What the arguments are checked against when not the (shallow) input schema. */
  argsSchema?: JsonSchema;
  /** Listed with the tool (MCP Apps: `ui.resourceUri`, `ui.visibility`). */
  _meta?: Record<string, unknown>;
  /** Hint for the "Result too large" note. */
  narrowHint?: string;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** An input schema: an object with the given properties, `required` listing the mandatory ones. */
export function input(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * An output schema listing the success fields; error results (which also carry structured content)
 * satisfy the alternative that requires only `error`.
 */
export function output(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return {
    type: 'object',
    properties: { ...properties, error: { type: 'string' } },
    ...(required.length > 0 ? { anyOf: [{ required }, { required: ['error'] }] } : {}),
  };
}

export const READ = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
export const WRITE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;
export const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const;
