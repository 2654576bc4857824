/** get_state's token savers: project subtrees by address, then cap nesting depth. */
import { parseAddress, WILDCARD } from './address.js';
import { ABSENT, expandPattern, getAt, setAt } from './document.js';
import { CalcError } from './errors.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from './json.js';

/**
 * Keeps only the given subtrees, spliced into an empty document at their addresses (absent ones
 * skipped). A `[*]` pattern keeps every element it matches, each at its own index (rows before it
 * that hold no match are null), so `$.items[*].price` reads one field of every row.
 * @throws CalcError (INVALID_ARGUMENT) for a non-canonical address
 */
export function projectPaths(doc: JsonObject, paths: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const address of paths) {
    const parsed = parseAddress(address);
    if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', parsed.message);
    if (parsed.path.length === 0) return cloneJson(doc);
    if (parsed.path.includes(WILDCARD)) {
      for (const concrete of expandPattern(doc, parsed.path))
        setAt(out, concrete, cloneJson(getAt(doc, concrete)));
      continue;
    }
    const v = getAt(doc, parsed.path);
    if (v === ABSENT) continue;
    setAt(out, parsed.path, cloneJson(v));
  }
  return out;
}

/** Containers reached with no depth left become `"<object: N fields>"` / `"<array: N items>"`. */
export function capDepth(value: JsonValue, depth: number): JsonValue {
  if (Array.isArray(value)) {
    if (depth <= 0) return `<array: ${value.length} items>`;
    return value.map((v) => capDepth(v, depth - 1));
  }
  if (isObject(value)) {
    if (depth <= 0) return `<object: ${Object.keys(value).length} fields>`;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = capDepth(v, depth - 1);
    return out;
  }
  return value;
}
