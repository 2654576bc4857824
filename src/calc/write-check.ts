/**
 * The runtime's write checks, before and after the values land.
 *
 * Before: keys are canonical single-element addresses, values are safe data, read-only fields are
 * not written, and live meta limits (the overlay that makes the *effective* schema) hold.
 * After the write and its defaults: the model's whole JSON Schema (see `write-schema.ts`) holds at
 * every depth the write touched — checked then, not before, so a field `required` and filled by a
 * `defaultValues` rule is there when it is looked for.
 */
import { formatPath, parseAddress, WILDCARD, type Path } from './address.js';
import { ABSENT, getAt } from './document.js';
import { appendAll, isObject, type JsonObject } from './json.js';
import { checkValue, deref, schemaAt, writeSchema, type SchemaViolation } from './schema.js';
import { META_KEYWORDS, META_PROPERTIES, type MetaProperty } from './spec.js';
import { findUnsafeValue, unsafeValueViolation } from './safe-keys.js';
import type { WriteSchemaChecker } from './write-schema.js';

/** Meta properties that limit values (`required` and `relevant` steer the view, not writes). */
const LIMITING_META = (Object.keys(META_PROPERTIES) as MetaProperty[]).filter(
  (p) => p !== 'required' && p !== 'relevant' && p !== 'readOnly',
);

/** Nesting a read-only search follows into a whole write (the value's own depth is bounded too). */
const MAX_READONLY_DEPTH = 64;

/** The live meta limits at one address as a schema fragment, or undefined when none is set. */
function metaLimits(address: string, meta: ReadonlyMap<string, unknown>): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const prop of LIMITING_META) {
    const v = meta.get(`${address}#${META_PROPERTIES[prop]}`);
    if (v === undefined || v === null) continue;
    out ??= {};
    out[META_KEYWORDS[prop]] = v as never;
  }
  return out;
}

/**
 * Address, safety, read-only and meta-limit checks of a mutation map; the schema itself is checked
 * after the write (`checkWritten`).
 */
export function preWriteViolations(
  schema: JsonObject,
  meta: ReadonlyMap<string, unknown>,
  mutations: Record<string, unknown>,
): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  for (const [address, value] of Object.entries(mutations)) {
    const parsed = parseAddress(address);
    if (!parsed.ok) {
      violations.push({ path: address, keyword: 'address', message: parsed.message });
      continue;
    }
    if (parsed.path.includes(WILDCARD)) {
      violations.push({
        path: address,
        keyword: 'address',
        message: `${address}: a mutation key cannot contain [*]; name one element`,
      });
      continue;
    }
    if (parsed.path.length === 0) {
      violations.push({
        path: address,
        keyword: 'address',
        message: 'the root $ cannot be replaced by a mutation; write its fields',
      });
      continue;
    }
    const unsafe = findUnsafeValue(value);
    if (unsafe) {
      violations.push(unsafeValueViolation(address, unsafe));
      continue;
    }
    if (writeSchema(schema, parsed.path, address, meta).readOnly === true) {
      violations.push({ path: address, keyword: 'readOnly', message: `${address} is read-only` });
      continue;
    }
    if (typeof value === 'object' && value !== null)
      readOnlyInside(schema, schemaAt(schema, parsed.path), value, parsed.path, violations);
    if (meta.size > 0) appendAll(violations, metaViolations(parsed.path, address, value, meta));
  }
  return violations;
}

/** A whole write may not carry a value for a field the schema marks `readOnly`. */
function readOnlyInside(
  root: JsonObject,
  node: JsonObject,
  value: unknown,
  at: Path,
  out: SchemaViolation[],
  depth = 0,
): void {
  if (depth > MAX_READONLY_DEPTH) return;
  const visit = (child: unknown, sub: unknown, path: Path): void => {
    const schema = deref(root, sub);
    if (schema.readOnly === true) {
      const address = formatPath(path);
      out.push({ path: address, keyword: 'readOnly', message: `${address} is read-only` });
    } else if (typeof child === 'object' && child !== null) {
      readOnlyInside(root, schema, child, path, out, depth + 1);
    }
  };
  if (Array.isArray(value)) {
    if (isObject(node.items)) value.forEach((v, i) => visit(v, node.items, [...at, i]));
  } else if (isObject(value) && isObject(node.properties)) {
    const props = node.properties;
    for (const [k, v] of Object.entries(value)) if (Object.hasOwn(props, k)) visit(v, props[k], [...at, k]);
  }
}

/** Meta limits at the written address and, for a whole array or object, at every address inside it. */
function metaViolations(
  path: Path,
  address: string,
  value: unknown,
  meta: ReadonlyMap<string, unknown>,
): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const limits = metaLimits(address, meta);
  if (limits) appendAll(out, checkValue(limits, value, address, { ignoreReadOnly: true }));
  if (!isObject(value) && !Array.isArray(value)) return out;
  const inside = new Set<string>();
  for (const key of meta.keys()) {
    const hash = key.lastIndexOf('#');
    const at = hash < 0 ? key : key.slice(0, hash);
    if (
      at.length > address.length &&
      at.startsWith(address) &&
      (at[address.length] === '.' || at[address.length] === '[')
    )
      inside.add(at);
  }
  for (const at of inside) {
    const parsed = parseAddress(at);
    if (!parsed.ok) continue;
    const v = getAt(value, parsed.path.slice(path.length));
    const own = metaLimits(at, meta);
    if (v !== ABSENT && own) appendAll(out, checkValue(own, v, at, { ignoreReadOnly: true }));
  }
  return out;
}

/**
 * Checks the document after a write: for each written path, its topmost container the write
 * created (or itself) against its whole subschema, and every container above against its own
 * keywords; each container once per write.
 * @param firstCreated for each path, the length of its shortest prefix that was absent before the
 *   write (the path's own length when every container existed)
 * @param extraRoots further values the write created (rows padded before a new row)
 */
export function checkWritten(
  checker: WriteSchemaChecker,
  base: Record<string, unknown>,
  paths: readonly Path[],
  firstCreated: readonly number[],
  extraRoots: readonly Path[],
): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const read = (p: Path): unknown => {
    const v = getAt(base, p);
    return v === ABSENT ? undefined : v;
  };
  // a path whose containers all existed is its own root (no copy)
  const roots = paths.map((p, i) => {
    const n = Math.max(1, firstCreated[i] ?? p.length);
    return n >= p.length ? p : p.slice(0, n);
  });
  const ordered = extraRoots.length > 0 ? [...roots, ...extraRoots] : roots;
  // shallowest first; the sort is stable, so roots already in that order (one, or writes of one
  // depth) are left as they are without a sort's working copy
  if (!shallowestFirst(ordered)) ordered.sort((a, b) => a.length - b.length);
  const checkedRoots = new Set<string>();
  // one key: nothing to share between checks
  const checkedAncestors = ordered.length > 1 ? new Set<string>() : undefined;
  for (const root of ordered) {
    const key = formatPath(root);
    if (checkedRoots.has(key) || coveredBy(root, checkedRoots)) continue;
    checkedRoots.add(key);
    checker.check(root, read, out, checkedAncestors);
  }
  return out;
}

function shallowestFirst(paths: readonly Path[]): boolean {
  for (let i = 1; i < paths.length; i++) if (paths[i - 1]!.length > paths[i]!.length) return false;
  return true;
}

/** True when a proper prefix of `path` is a root already checked whole. */
function coveredBy(path: Path, roots: Set<string>): boolean {
  if (roots.size === 0) return false;
  for (let n = 1; n < path.length; n++) if (roots.has(formatPath(path.slice(0, n)))) return true;
  return false;
}

/** The length of the shortest prefix of `path` that is absent (or null) in `doc`; else the path's length. */
export function firstAbsentPrefix(doc: unknown, path: Path): number {
  let node: unknown = doc;
  for (let n = 0; n < path.length; n++) {
    const seg = path[n]!;
    if (Array.isArray(node) && typeof seg === 'number') node = seg < node.length ? node[seg] : undefined;
    else if (isObject(node) && typeof seg === 'string')
      node = Object.hasOwn(node, seg) ? node[seg] : undefined;
    else node = undefined;
    if (node === undefined || node === null) return n + 1;
  }
  return path.length;
}

/** Every object inside `value` (itself included), shallowest first, as paths under `at`. */
export function objectsWithin(value: unknown, at: Path, out: Path[]): void {
  if (isObject(value)) {
    out.push(at);
    for (const [k, v] of Object.entries(value))
      if (typeof v === 'object' && v !== null) objectsWithin(v, [...at, k], out);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v === 'object' && v !== null) objectsWithin(v, [...at, i], out);
    });
  }
}
