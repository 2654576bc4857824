/**
 * Keys that request data may not use. `__proto__` is the one name a plain JavaScript object does not
 * treat as data: assigning it replaces the object's prototype, and a walker that follows it reaches
 * `Object.prototype`, which every object of the process shares. We refuse it wherever request data
 * names a key or a path segment, so no walker ever sees it. `constructor` and `prototype` stay ordinary
 * data keys: walkers read own properties only (`ownValue`), so they never reach the inherited ones.
 */

/** The only key refused as data. */
export const FORBIDDEN_KEY = '__proto__';

/** Deepest nesting accepted in a value from a request (each level is a frame in every recursive walk). */
export const MAX_VALUE_DEPTH = 512;

export function isForbiddenKey(key: unknown): boolean {
  return key === FORBIDDEN_KEY;
}

/** Why `__proto__` is refused, in one sentence for error messages. */
export const FORBIDDEN_KEY_REASON =
  "'__proto__' cannot be used as a key: it names JavaScript's object prototype, not data";

/** `obj[key]` when `obj` has that own property; never an inherited member. */
export function ownValue(obj: object, key: string | number): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key)
    ? (obj as Record<string | number, unknown>)[key]
    : undefined;
}

export type UnsafeValue =
  { kind: 'forbidden-key'; path: (string | number)[] } | { kind: 'too-deep'; path: (string | number)[] };

/**
 * The first place in a JSON-like value that request data may not hold: an own `__proto__` key, or
 * nesting deeper than `maxDepth`. Iterative, so a hostile depth cannot overflow the stack here.
 * An object whose prototype holds data (a parser that assigned a `__proto__` key) is reported as
 * the forbidden key too: its members would otherwise be read through the prototype.
 */
export function findUnsafeValue(value: unknown, maxDepth = MAX_VALUE_DEPTH): UnsafeValue | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // each entry links to its parent instead of copying its path: a spec of 36,000 objects made as
  // many path arrays; the path is spelled out only for the answer
  const stack: Visit[] = [{ node: value, parent: undefined, key: 0, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node, depth } = visit;
    if (depth > maxDepth) return { kind: 'too-deep', path: pathOf(visit) };
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const v: unknown = node[i];
        if (v !== null && typeof v === 'object')
          stack.push({ node: v, parent: visit, key: i, depth: depth + 1 });
      }
      continue;
    }
    // Dates and byte arrays can reach a value from in-process callers; they hold no keys of ours
    if (node instanceof Date || ArrayBuffer.isView(node)) continue;
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null && Object.keys(proto as object).length > 0)
      return { kind: 'forbidden-key', path: [...pathOf(visit), FORBIDDEN_KEY] };
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (k === FORBIDDEN_KEY) return { kind: 'forbidden-key', path: [...pathOf(visit), k] };
      const v: unknown = (node as Record<string, unknown>)[k];
      if (v !== null && typeof v === 'object')
        stack.push({ node: v, parent: visit, key: k, depth: depth + 1 });
    }
  }
  return undefined;
}

/** One object or array `findUnsafeValue` has yet to look at, and how it was reached. */
interface Visit {
  node: object;
  parent: Visit | undefined;
  /** Its key or index in the parent (unused at the root). */
  key: string | number;
  depth: number;
}

/** The keys and indices from the root to a visited node. */
function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** Where an unsafe value sits, appended to `base` (`base.a[0].__proto__`; no base: `a[0].__proto__`). */
export function unsafeValueLocation(unsafe: UnsafeValue, base = ''): string {
  let out = base;
  for (const seg of unsafe.path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** Why an unsafe value is refused, in one sentence. */
export function unsafeValueReason(unsafe: UnsafeValue): string {
  return unsafe.kind === 'forbidden-key'
    ? FORBIDDEN_KEY_REASON
    : `the value nests deeper than ${MAX_VALUE_DEPTH} levels`;
}

/** The Schema violation for an unsafe value written at `address` (`{path, keyword, message}`). */
export function unsafeValueViolation(
  address: string,
  unsafe: UnsafeValue,
): { path: string; keyword: string; message: string } {
  const path = unsafe.kind === 'forbidden-key' ? unsafeValueLocation(unsafe, address) : address;
  return {
    path,
    keyword: unsafe.kind === 'forbidden-key' ? 'forbiddenKey' : 'maxDepth',
    message: `${path}: ${unsafeValueReason(unsafe)}`,
  };
}
