/** JSON values and the few operations on them that every part of the engine shares. */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep copy of a JSON-like value. Also turns JSONata sequences (arrays with extra flags) into plain
 * arrays and drops `undefined`, functions and other non-JSON members.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function') return undefined as T;
    // JSON has no NaN or Infinity (1/0 in an expression): they become null, as JSON.stringify does
    if (typeof value === 'number' && !Number.isFinite(value)) return null as T;
    return value;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = cloneJson(value[i]);
      out[i] = v === undefined ? null : v;
    }
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = cloneJson((value as Record<string, unknown>)[key]);
    if (v === undefined) continue;
    // an own `__proto__` key (JSON.parse makes them) stays data; assigning it would set the prototype
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out as T;
}

/** Deep equality where numbers compare numerically (JSON has one number type). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Equality that nothing reading the values can tell apart: same types, numbers by `Object.is`, object
 * keys in the same order (`$keys` and `$string` see the order). What lets a row keep its values.
 */
export function identicalJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || Object.is(a, b);
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!identicalJson(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i]) return false;
    if (!identicalJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Canonical JSON text: object keys sorted by UTF-16 code units at every level, no whitespace.
 * Plain JSON goes through the native JSON.stringify after its objects are put in canonical key
 * order (copies only where the order differs): this runs over every audit record and the native
 * printer is three times faster than building the text here. Anything JSON.stringify would print
 * differently (integer-like keys out of order, functions, Dates, BigInts) takes the printer below.
 */
export function canonicalJson(value: unknown): string {
  const ordered = inCanonicalOrder(value);
  return ordered === NOT_NATIVE ? printCanonical(value) : (JSON.stringify(ordered) ?? 'null');
}

const NOT_NATIVE = Symbol('not native');

/** `value` itself when JSON.stringify already prints it canonically, else a reordered copy. */
function inCanonicalOrder(value: unknown): unknown {
  if (value === null) return value;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'object':
      break;
    default:
      return NOT_NATIVE; // functions, symbols, BigInts
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const ordered = inCanonicalOrder(item);
      if (ordered === NOT_NATIVE) return NOT_NATIVE;
      if (ordered !== item) (copy ??= value.slice())[i] = ordered;
    }
    return copy ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_NATIVE; // Date, Map, class instances
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) {
    // JSON.stringify prints keys in Object.keys order, which is already the canonical one
    let copy: Record<string, unknown> | undefined;
    for (const k of keys) {
      const member = obj[k];
      const ordered = inCanonicalOrder(member);
      if (ordered === NOT_NATIVE) return NOT_NATIVE;
      if (ordered !== member) (copy ??= { ...obj })[k] = ordered;
    }
    return copy ?? obj;
  }
  keys.sort();
  // A plain object keeps JSON.stringify on its fast path (a null-prototype one is a dictionary and
  // prints a third slower); only a "__proto__" key needs the null prototype to stay an ordinary key.
  const copy = (keys.includes('__proto__') ? Object.create(null) : {}) as Record<string, unknown>;
  for (const k of keys) {
    // integer-like keys are enumerated first whatever the insertion order
    const c = k.charCodeAt(0);
    if (c >= 48 && c <= 57) return NOT_NATIVE;
    const ordered = inCanonicalOrder(obj[k]);
    if (ordered === NOT_NATIVE) return NOT_NATIVE;
    copy[k] = ordered;
  }
  return copy;
}

/** The canonical printer for any value: keys emitted in sorted order by hand. */
function printCanonical(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  // one string built in place: this runs over every audit record, traces included
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + printCanonical(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${printCanonical(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** Short type name for messages: "object", "array", "string", … */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Appends every item of `items` to `target`. `target.push(...items)` overflows the call stack for
 *  arrays of ~10^5 items (a write to row 100000 of a `[*]` rule makes that many). */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
