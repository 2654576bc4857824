/**
 * Refused edits shown beside their fields. A refusal remembers the model's value at its field when
 * it was made; once the model holds another value there (the person's next edit, the agent's, a
 * read-back), the refusal is stale and goes: "24,000 was refused" never stands beside a newer value.
 */
import { valueAt, type Json, type JsonObject } from './model';

export interface Refusal {
  message: string;
  /** The value the person tried. */
  value: Json;
  /** The model's value at the field when the refusal was made (null: none; undefined: not known). */
  was?: Json | undefined;
}

export type Refusals = Record<string, Refusal>;

const same = (a: Json, b: Json): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The refusals still current in `state`: those whose field holds what it held when refused. */
export function currentRefusals(refusals: Refusals, state: JsonObject | undefined): Refusals {
  if (state === undefined) return refusals;
  let changed = false;
  const kept: Refusals = {};
  for (const [path, r] of Object.entries(refusals)) {
    if (r.was !== undefined && !same(valueAt(state, path) ?? null, r.was)) changed = true;
    else kept[path] = r;
  }
  return changed ? kept : refusals;
}

/** The refusal of `value` at `path`, remembering what the model holds there now. */
export function refusal(message: string, value: Json, path: string, state: JsonObject | undefined): Refusal {
  return { message, value, ...(state !== undefined ? { was: valueAt(state, path) ?? null } : {}) };
}
