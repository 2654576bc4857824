/**
 * Refused edits shown beside their fields. A refusal remembers the model's value at its field when
 * it was made; once the model holds another value there (the person's next edit, the agent's, a
 * read-back), the refusal is stale and goes: "24,000 was refused" never stands beside a newer value.
 */
import { valueAt, type Component, type Json, type JsonObject } from './model';

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
  return refusalsStillAbout(refusals, (path) => valueAt(state, path) ?? null);
}

/** The refusals whose field, as `valueOf` reads it, still holds what it held when refused. */
export function refusalsStillAbout(refusals: Refusals, valueOf: (path: string) => Json): Refusals {
  let changed = false;
  const kept: Refusals = {};
  for (const [path, r] of Object.entries(refusals)) {
    if (r.was !== undefined && !same(valueOf(path), r.was)) changed = true;
    else kept[path] = r;
  }
  return changed ? kept : refusals;
}

/**
 * What a rendered view shows, by bound address (an item row's fields under their own addresses).
 * A refusal is about what the person saw, and the view is what they saw: where a page reads its
 * view and its state in separate requests, the two can straddle a write.
 */
export function shownValues(components: readonly Component[] | undefined): Map<string, Json> {
  const shown = new Map<string, Json>();
  const walk = (list: readonly Component[] | undefined): void => {
    for (const c of list ?? []) {
      if (typeof c.bind === 'string' && c.value !== undefined) shown.set(c.bind, c.value);
      walk(c.components);
      for (const row of c.rows ?? []) walk(row.components);
    }
  };
  walk(components);
  return shown;
}

/** The refusal of `value` at `path`, remembering what the model holds there now. */
export function refusal(message: string, value: Json, path: string, state: JsonObject | undefined): Refusal {
  return { message, value, ...(state !== undefined ? { was: valueAt(state, path) ?? null } : {}) };
}
