/** A tool as data: its listing (name, title, schemas, annotations) and the function behind it. */
import { MODEL_SPEC_SCHEMA, type JsonObject } from '../calc/index.js';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import type { ToolResult } from './results.js';

export type JsonSchema = Record<string, unknown>;

/** A JSON Schema document used as an argument's schema (without `$schema` and `$id`). */
export function embedSchema(schema: JsonObject): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** The full ModelSpec schema, on create_model (the seed's one place for it besides the resource). */
export const FULL_SPEC = embedSchema(MODEL_SPEC_SCHEMA);

/**
 * The spec argument of tools that check, test, preview, render or re-send a spec. The full schema
 * is on create_model and at valem://schema/model-spec; repeating it on each of these tools cost
 * ~6 KB of every tools/list. A loose schema also lets validate_spec and render_model receive the
 * invalid specs they diagnose.
 */
export const SPEC_REFERENCE: JsonSchema = {
  type: 'object',
  description: "A ModelSpec: create_model's spec schema, or valem://schema/model-spec",
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
  /**
   * MCP 2026-07-28 (no server-to-client requests): what the client can answer in band, and its
   * answers to the call's last `input_required` round (input-required.ts).
   */
  inBand?: { urlElicitation: boolean; responses: Readonly<Record<string, unknown>> };
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
  /** The result, or (2026-07-28, when `ctx.inBand` allows) a round of requests for the client. */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult | InputRequiredResult>;
}

/** An input schema: an object with the given properties, `required` listing the mandatory ones. */
export function input(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/**
 * An output schema listing the success fields; error results (which also carry structured content)
 * satisfy the alternative that requires only `error` (a string: not declared, to keep the list short).
 */
export function output(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { anyOf: [{ required }, { required: ['error'] }] } : {}),
  };
}

/** Keywords whose value is one schema, a list of schemas, or a map of name → schema (2020-12). */
const ONE_SCHEMA = new Set([
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
const SCHEMA_LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

/** Where a subschema sits: its holder and key, and a name to give it if it is hoisted. */
interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  hint: string;
}

const isSchemaObject = (v: unknown): v is JsonSchema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every subschema of `node` in schema position (not `default`, `enum` or other data), depth first. */
function slotsOf(node: JsonSchema, hint: string, out: Slot[] = []): Slot[] {
  const visit = (holder: Slot['holder'], key: string | number, name: string): void => {
    const value = (holder as Record<string | number, unknown>)[key];
    if (!isSchemaObject(value)) return;
    out.push({ holder, key, hint: typeof value.title === 'string' ? value.title : name });
    slotsOf(value, name, out);
  };
  for (const [k, v] of Object.entries(node)) {
    if (ONE_SCHEMA.has(k)) visit(node, k, hint);
    else if (SCHEMA_LIST.has(k) && Array.isArray(v)) v.forEach((_, i) => visit(v, i, hint));
    else if (SCHEMA_MAP.has(k) && isSchemaObject(v)) for (const name of Object.keys(v)) visit(v, name, name);
  }
  return out;
}

/**
 * The same schema with every fragment that repeats often enough to pay for it moved once into
 * `$defs` at the root and referenced from where it was. The ModelSpec and SpecEvolution schemas
 * repeat the address and expression fragments dozens of times, and they are sent in every
 * tools/list. The result validates exactly the same documents (a `$ref` alone is its target).
 */
export function withSharedDefs(schema: JsonSchema): JsonSchema {
  const { $defs: own, ...root } = structuredClone(schema);
  // walked apart from the root, so that a definition's own slot is never replaced by its `$ref`
  const defs = new Map(Object.entries(isSchemaObject(own) ? (own as Record<string, JsonSchema>) : {}));
  for (;;) {
    const slots = slotsOf(root, 'def');
    for (const [name, body] of defs) slotsOf(body, name, slots);
    const best = mostSaving(slots, defs);
    if (!best) break;
    defs.set(best.name, JSON.parse(best.text) as JsonSchema);
    for (const { holder, key } of best.slots)
      (holder as Record<string | number, unknown>)[key] = { $ref: `#/$defs/${best.name}` };
  }
  return defs.size > 0 ? { ...root, $defs: Object.fromEntries(defs) } : root;
}

/** The repeated fragment whose hoisting saves the most characters, if any saves some. */
function mostSaving(
  slots: Slot[],
  defs: Map<string, JsonSchema>,
): { text: string; slots: Slot[]; name: string } | undefined {
  const seen = new Map<string, { slots: Slot[]; hint: string }>();
  for (const slot of slots) {
    const text = JSON.stringify((slot.holder as Record<string | number, unknown>)[slot.key]);
    const entry = seen.get(text);
    if (entry) entry.slots.push(slot);
    else seen.set(text, { slots: [slot], hint: slot.hint });
  }
  let best: { text: string; slots: Slot[]; name: string; saving: number } | undefined;
  for (const [text, { slots: at, hint }] of seen) {
    if (at.length < 2) continue;
    const base = hint.replace(/[^A-Za-z0-9_]/g, '') || 'def';
    let name = base;
    for (let n = 2; defs.has(name); n++) name = `${base}${n}`;
    const ref = `{"$ref":"#/$defs/${name}"}`.length;
    // each use shrinks to a ref; the fragment is written once more under its name
    const saving = at.length * (text.length - ref) - text.length - name.length - 4;
    if (saving > 0 && (!best || saving > best.saving)) best = { text, slots: at, name, saving };
  }
  return best;
}

/**
 * A read. MCP gives destructiveHint and idempotentHint meaning only when readOnlyHint is false, so a
 * read leaves them out: 44 bytes of every read tool's tools/list entry (the listing's budget is 50 KB).
 */
export const READ = {
  readOnlyHint: true,
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
