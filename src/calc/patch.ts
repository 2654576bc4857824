/**
 * RFC 6902 JSON Patch → one mutation map, so a patch runs as a single ordinary cycle.
 *
 * The operations are applied in order to a copy of the base document by the small applier below
 * (own properties only; every operation's value is copied before it lands, so no later operation
 * can reach back into an earlier one's value). Each operation records the locations it changed;
 * the map then writes the final value of each. A mutation map cannot delete, so a member that is
 * gone at the end is removed by writing its nearest remaining container without it.
 */
import { formatPath, fromPointer, parseAddress, type Path, type Segment } from './address.js';
import { ABSENT, getAt } from './document.js';
import { CalcError, schemaViolationError } from './errors.js';
import { cloneJson, isObject, jsonEqual } from './json.js';
import { FORBIDDEN_KEY_REASON, findUnsafeValue, isForbiddenKey, unsafeValueViolation } from './safe-keys.js';

export interface PatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type OpName = (typeof OPS)[number];

type Container = Record<string, unknown> | unknown[];

/** Where a pointer lands: the container holding it (none for the root) and the key in it. */
interface Location {
  parent: Container | undefined;
  key: string | number;
  path: Path;
}

/** What the operations changed: addresses written as they are, and arrays whose tail shifted. */
interface Changes {
  touched: Map<string, Path>;
  /** Array address → its path and the first index whose element moved. */
  shifted: Map<string, { path: Path; from: number }>;
}

/**
 * Applies a patch to a copy of `base` and returns the equivalent mutation map (may be empty).
 * @throws CalcError INVALID_PATCH when the patch is malformed, cannot be applied, or a `test`
 *   operation fails (then `details` holds `{op: 'test', index, path, expected, actual}`)
 * @throws CalcError SCHEMA_VIOLATION when a pointer or value names `__proto__`
 */
export function translatePatch(
  base: Readonly<Record<string, unknown>>,
  patch: unknown,
): Record<string, unknown> {
  if (!Array.isArray(patch))
    throw new CalcError('INVALID_PATCH', 'Invalid patch: a JSON Patch is an array of operations');
  refuseUnsafeOperations(patch);
  let doc: unknown = cloneJson(base);
  const changes: Changes = { touched: new Map(), shifted: new Map() };
  patch.forEach((raw, index) => {
    doc = applyOperation(doc, checkOperation(raw, index), index, changes);
  });
  if (!isObject(doc))
    throw new CalcError('INVALID_PATCH', 'Invalid patch: the document root must stay an object');
  return mutationsFor(doc, changes);
}

// ---------------------------------------------------------------------------------------------
// Checking and applying operations

interface Operation {
  op: OpName;
  path: string;
  tokens: string[];
  from?: { pointer: string; tokens: string[] };
  value?: unknown;
}

function invalid(index: number, what: string, details: Record<string, unknown> = {}): CalcError {
  return new CalcError('INVALID_PATCH', `Invalid patch: operation ${index} ${what}`, { index, ...details });
}

function checkOperation(raw: unknown, index: number): Operation {
  if (!isObject(raw)) throw invalid(index, 'is not an object {op, path, ...}');
  const op = raw.op;
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op))
    throw invalid(index, `has op ${JSON.stringify(op ?? null)}; use one of ${OPS.join(', ')}`);
  const name = op as OpName;
  const path = raw.path;
  if (typeof path !== 'string')
    throw invalid(index, `(${name}) needs 'path', a JSON Pointer such as "/items/0"`, { op: name });
  const out: Operation = { op: name, path, tokens: pointerTokens(path, index, name, 'path') };
  if (name === 'move' || name === 'copy') {
    if (typeof raw.from !== 'string')
      throw invalid(index, `(${name} ${shown(path)}) needs 'from', the JSON Pointer to take the value from`, {
        op: name,
        path,
      });
    out.from = { pointer: raw.from, tokens: pointerTokens(raw.from, index, name, 'from') };
  }
  if (name === 'add' || name === 'replace' || name === 'test') {
    if (!Object.prototype.hasOwnProperty.call(raw, 'value') || raw.value === undefined)
      throw invalid(index, `(${name} ${shown(path)}) needs 'value'`, { op: name, path });
    out.value = raw.value;
  }
  return out;
}

/** `""` → [], `/a/b~1c` → ['a', 'b/c']. */
function pointerTokens(pointer: string, index: number, op: string, field: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw invalid(index, `(${op}) has ${field} '${pointer}': a JSON Pointer is "" or starts with "/"`, {
      op,
      path: pointer,
    });
  return pointer
    .slice(1)
    .split('/')
    .map((t) => {
      if (/~(?![01])/.test(t))
        throw invalid(index, `(${op}) has ${field} '${pointer}': '~' must be written ~0, '/' as ~1`, {
          op,
          path: pointer,
        });
      return t.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/**
 * Finds where `tokens` lands in `doc`. `forAdd`: the last token may name a new member or the end
 * of an array (`-`, or the length); otherwise it must name something that is there.
 */
function locate(
  doc: unknown,
  tokens: string[],
  forAdd: boolean,
  fail: (what: string) => CalcError,
): Location {
  if (tokens.length === 0) return { parent: undefined, key: '', path: [] };
  let node: unknown = doc;
  const path: Segment[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const last = i === tokens.length - 1;
    const here = formatPointer(tokens.slice(0, i));
    let key: string | number;
    if (Array.isArray(node)) {
      if (last && forAdd && token === '-') key = node.length;
      else if (ARRAY_INDEX.test(token)) key = Number(token);
      else throw fail(`'${token}' is not an index of the array at ${here || '/'}`);
      const limit = last && forAdd ? node.length : node.length - 1;
      if (key > limit)
        throw fail(`index ${key} is past the end of the array at ${here || '/'} (length ${node.length})`);
    } else if (isObject(node)) {
      key = token;
      if (!(last && forAdd) && !Object.prototype.hasOwnProperty.call(node, token))
        throw fail(`nothing at ${formatPointer(tokens.slice(0, i + 1))}`);
    } else {
      throw fail(`${here || 'the root'} holds ${describe(node)}, not an object or array`);
    }
    path.push(key);
    if (last) return { parent: node, key, path };
    node = Array.isArray(node) ? node[key as number] : node[key as string];
  }
  /* c8 ignore next */
  throw fail('has an empty path');
}

/** A pointer as messages show it: the root's empty pointer as "". */
function shown(pointer: string): string {
  return pointer === '' ? '""' : pointer;
}

function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

function valueAt(loc: Location, doc: unknown): unknown {
  if (!loc.parent) return doc;
  return Array.isArray(loc.parent) ? loc.parent[loc.key as number] : loc.parent[loc.key as string];
}

/** Applies one checked operation to `doc` (in place where it can); returns the document. */
function applyOperation(doc: unknown, op: Operation, index: number, changes: Changes): unknown {
  const fail = (what: string) =>
    invalid(index, `(${op.op} ${shown(op.path)}): ${what}`, { op: op.op, path: op.path });
  switch (op.op) {
    case 'test': {
      const loc = locate(doc, op.tokens, false, (what) => testFailure(index, op, what, undefined));
      const actual = valueAt(loc, doc);
      if (!jsonEqual(actual, op.value)) throw testFailure(index, op, undefined, actual);
      return doc;
    }
    case 'add':
      return insert(doc, locate(doc, op.tokens, true, fail), cloneJson(op.value), changes);
    case 'replace': {
      const loc = locate(doc, op.tokens, false, fail);
      return put(doc, loc, cloneJson(op.value), changes);
    }
    case 'remove': {
      const loc = locate(doc, op.tokens, false, fail);
      if (!loc.parent) throw fail('the document root cannot be removed');
      remove(loc, changes);
      return doc;
    }
    case 'copy': {
      const from = op.from!;
      const src = locate(doc, from.tokens, false, (what) => fail(`from ${from.pointer}: ${what}`));
      const value = cloneJson(valueAt(src, doc));
      return insert(doc, locate(doc, op.tokens, true, fail), value, changes);
    }
    case 'move': {
      const from = op.from!;
      if (from.pointer === op.path) return doc; // RFC 6902: moving a value onto itself changes nothing
      if (op.path.startsWith(`${from.pointer}/`))
        throw fail(`a value cannot be moved into itself (from ${from.pointer})`);
      const src = locate(doc, from.tokens, false, (what) => fail(`from ${from.pointer}: ${what}`));
      if (!src.parent) throw fail('the document root cannot be moved');
      const value = valueAt(src, doc);
      remove(src, changes);
      return insert(doc, locate(doc, op.tokens, true, fail), value, changes);
    }
  }
}

/** `add`: a new or replaced object member, an array element inserted (shifting the rest), or the root. */
function insert(doc: unknown, loc: Location, value: unknown, changes: Changes): unknown {
  if (Array.isArray(loc.parent)) {
    loc.parent.splice(loc.key as number, 0, value);
    shift(changes, loc);
    return doc;
  }
  return put(doc, loc, value, changes);
}

/** `replace` (and `add` on an object member or the root): the value at the location becomes `value`. */
function put(doc: unknown, loc: Location, value: unknown, changes: Changes): unknown {
  if (!loc.parent) {
    // every top-level member of either document is written (or removed)
    for (const k of [
      ...(isObject(doc) ? Object.keys(doc) : []),
      ...(isObject(value) ? Object.keys(value) : []),
    ])
      touch(changes, [k]);
    return value;
  }
  if (Array.isArray(loc.parent)) loc.parent[loc.key as number] = value;
  else loc.parent[loc.key as string] = value;
  touch(changes, loc.path);
  return doc;
}

function remove(loc: Location, changes: Changes): void {
  if (Array.isArray(loc.parent)) {
    loc.parent.splice(loc.key as number, 1);
    shift(changes, loc);
  } else {
    delete (loc.parent as Record<string, unknown>)[loc.key as string];
    touch(changes, loc.path);
  }
}

function touch(changes: Changes, path: Path): void {
  const key = formatPath(path);
  if (!changes.touched.has(key)) changes.touched.set(key, path);
}

/** An insertion or removal at `loc` shifted every element from its index on. */
function shift(changes: Changes, loc: Location): void {
  const arrayPath = loc.path.slice(0, -1);
  const key = formatPath(arrayPath);
  const seen = changes.shifted.get(key);
  const from = loc.key as number;
  if (!seen || from < seen.from) changes.shifted.set(key, { path: arrayPath, from });
  touch(changes, arrayPath);
}

function testFailure(index: number, op: Operation, missing: string | undefined, actual: unknown): CalcError {
  const expected = cloneJson(op.value);
  const found = missing !== undefined ? `nothing (${missing})` : JSON.stringify(actual);
  return new CalcError(
    'INVALID_PATCH',
    `Test failed: operation ${index} expected ${JSON.stringify(expected)} at ${op.path === '' ? 'the root' : op.path}, found ${found}`,
    {
      op: 'test',
      index,
      path: op.path,
      expected,
      actual: missing !== undefined ? null : (cloneJson(actual) ?? null),
      ...(missing !== undefined ? { absent: true } : {}),
    },
  );
}

// ---------------------------------------------------------------------------------------------
// The mutation map

/**
 * One write per changed location, each the final value: a location that is gone is written as its
 * nearest remaining container (a removed top-level member, whose container is the root, is
 * written as null). Ancestors come before descendants, so no write runs through a value an
 * earlier write has yet to replace.
 */
function mutationsFor(after: Record<string, unknown>, changes: Changes): Record<string, unknown> {
  const writes = new Map<string, Path>(changes.touched);
  // the elements an insertion or removal moved: each leaf, as it stands at the end
  for (const { path, from } of changes.shifted.values()) {
    const arr = getAt(after, path);
    if (!Array.isArray(arr)) continue;
    for (let i = from; i < arr.length; i++) leaves(arr[i], [...path, i], writes);
  }
  const targets: { key: string; path: Path | undefined; depth: number; order: number }[] = [];
  const taken = new Set<string>();
  let order = 0;
  for (const [key, path] of writes) {
    const target = writableTarget(after, path);
    const targetKey = target ? formatPath(target) : key;
    if (taken.has(targetKey)) continue;
    taken.add(targetKey);
    targets.push({ key: targetKey, path: target, depth: (target ?? path).length, order: order++ });
  }
  targets.sort((a, b) => a.depth - b.depth || a.order - b.order);
  const result: Record<string, unknown> = {};
  for (const t of targets) result[t.key] = t.path ? cloneJson(getAt(after, t.path)) : null;
  return result;
}

function leaves(value: unknown, at: Path, out: Map<string, Path>): void {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, [...at, k], out);
  } else if (Array.isArray(value) && value.length > 0) {
    value.forEach((v, i) => leaves(v, [...at, i], out));
  } else {
    const key = formatPath(at);
    if (!out.has(key)) out.set(key, at);
  }
}

/**
 * The location to write for a changed `path`: itself when it is there at the end and an address
 * can name it, else its nearest ancestor that is; undefined for a gone top-level member.
 * @throws CalcError INVALID_PATCH when only the root could hold the change (a top-level key no
 *   address can name)
 */
function writableTarget(after: unknown, path: Path): Path | undefined {
  for (let n = path.length; n >= 1; n--) {
    const candidate = path.slice(0, n);
    if (getAt(after, candidate) === ABSENT) continue;
    if (nameable(candidate)) return candidate;
  }
  const top = path[0];
  if (typeof top === 'string' && !nameable([top]))
    throw new CalcError(
      'INVALID_PATCH',
      `Invalid patch: the top-level key '${top}' cannot be named by an address (an empty key, an all-digit key, or one holding '.', '[' or ']')`,
      { path: formatPointer([top]) },
    );
  return undefined;
}

/** True when the address of `path` reads back as the same segments (`a.b` or `0` as keys do not). */
function nameable(path: Path): boolean {
  const parsed = parseAddress(formatPath(path));
  return parsed.ok && parsed.path.length === path.length && parsed.path.every((s, i) => s === path[i]);
}

/**
 * A pointer or value naming `__proto__` is refused as a Schema violation at the address it names,
 * before anything is applied.
 */
function refuseUnsafeOperations(ops: readonly unknown[]): void {
  for (const op of ops) {
    if (!isObject(op)) continue; // reported with its index when applied
    for (const pointer of [op.path, op.from]) {
      if (typeof pointer !== 'string' || !pointer.startsWith('/')) continue;
      const path = fromPointer(pointer);
      if (path.some(isForbiddenKey))
        throw schemaViolationError([
          { path: formatPath(path), keyword: 'forbiddenKey', message: FORBIDDEN_KEY_REASON },
        ]);
    }
    const unsafe = findUnsafeValue(op.value);
    if (unsafe && typeof op.path === 'string' && (op.path === '' || op.path.startsWith('/')))
      throw schemaViolationError([unsafeValueViolation(formatPath(fromPointer(op.path)), unsafe)]);
  }
}
