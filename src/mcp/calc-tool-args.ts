/**
 * Arguments shared by the calc model tools (calc-tools.ts, lifecycle-tools.ts): their schemas and
 * how a tool reads them before handing them to the service, which checks them.
 */
import { SPEC_EVOLUTION_SCHEMA } from '../calc/index.js';
import { embedSchema, FULL_SPEC, type JsonSchema } from './tool.js';

export const EVOLUTION = embedSchema(SPEC_EVOLUTION_SCHEMA);

export const id = { type: 'string', description: 'Model id' };
export const path = { type: 'string', description: 'Canonical address, e.g. "$.items[0].total"' };
export const includeTraces = {
  type: 'boolean',
  description: 'Also return the cycle traces (what explain serves); default false',
};
export const expectedRevision = {
  type: 'integer',
  minimum: 0,
  description: 'Write only at this revision (get_model_info), else Version conflict {expected, actual}',
};
export const idempotencyKey = { type: 'string', description: 'Safe-retry key' };
/** The optional expectedRevision argument, passed on when given: the service checks it. */
export const revisionOf = (a: Record<string, unknown>): { expectedRevision?: number } =>
  a.expectedRevision === undefined ? {} : { expectedRevision: a.expectedRevision as number };
/** The optional idempotencyKey argument, passed on when given: the service checks it. */
export const keyOf = (a: Record<string, unknown>): { idempotencyKey?: string } =>
  a.idempotencyKey === undefined ? {} : { idempotencyKey: a.idempotencyKey as string };
/** How to read a committed write's outcome when its answer is too large to send. */
export const NARROW_READ =
  'Read what you need with get_state paths (or get_field), and get_model_info for the revision';
export const str = (s: unknown): string => (typeof s === 'string' ? s : '');

/** Argument validation looks at the top level only; the spec validator judges specs in depth. */
export function shallowInputSchema(schema: JsonSchema): JsonSchema {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const shallow: Record<string, JsonSchema> = {};
  for (const [k, v] of Object.entries(props))
    shallow[k] = v === FULL_SPEC || v === EVOLUTION ? { type: 'object' } : v;
  return { ...schema, properties: shallow };
}
