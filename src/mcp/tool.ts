/** A tool as data: its listing (name, title, schemas, annotations) and the function behind it. */
import { MODEL_SPEC_SCHEMA, type JsonObject } from '../calc/index.js';
import type { ToolResult } from './results.js';

export type JsonSchema = Record<string, unknown>;

/** A JSON Schema document used as an argument's schema (without `$schema` and `$id`). */
export function embedSchema(schema: JsonObject): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** The full ModelSpec schema, for the tools an agent writes a new spec for (create_model, render_model). */
export const FULL_SPEC = embedSchema(MODEL_SPEC_SCHEMA);

/**
 * The spec argument of tools that check, test, preview or re-send a spec: the full schema is on
 * create_model and render_model and at valem://schema/model-spec, and repeating it on each of
 * these tools cost ~6 KB of every tools/list. A loose schema also lets validate_spec receive the
 * invalid specs it exists to diagnose.
 */
export const SPEC_REFERENCE: JsonSchema = {
  type: 'object',
  description:
    "A ModelSpec, as create_model takes it (full JSON Schema: create_model's spec, or valem://schema/model-spec)",
};

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
