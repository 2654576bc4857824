/**
 * How long `JSON.stringify(value, null, 2)` would be, found by walking the value instead of
 * building the text: a result too large to send is measured without first holding it as a string.
 */

/** The length of `JSON.stringify(value, null, 2)` for JSON data (no toJSON, no cycles); `null` for nothing. */
export function prettyJsonLength(value: unknown): number {
  return measure(value, 0) ?? 'null'.length;
}

/** Characters of one value at `depth`; undefined where JSON.stringify leaves the value out. */
function measure(value: unknown, depth: number): number | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value).length;
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      break;
    default:
      // undefined, functions and symbols are left out (null inside an array)
      return undefined;
  }
  if (value === null) return 4;
  const inner = 2 * (depth + 1);
  if (Array.isArray(value)) {
    if (value.length === 0) return 2;
    // "[\n" + items joined by ",\n", each indented + "\n" + indent + "]"
    let n = 2 + (value.length - 1) * 2 + 1 + 2 * depth + 1;
    for (const item of value) n += inner + (measure(item, depth + 1) ?? 4);
    return n;
  }
  let entries = 0;
  let n = 0;
  for (const key of Object.keys(value)) {
    const v = measure((value as Record<string, unknown>)[key], depth + 1);
    if (v === undefined) continue;
    entries++;
    n += inner + JSON.stringify(key).length + 2 + v;
  }
  if (entries === 0) return 2;
  return n + 2 + (entries - 1) * 2 + 1 + 2 * depth + 1;
}
