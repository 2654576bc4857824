/**
 * RFC 6902 JSON Patch → one mutation map, so a patch runs as a single ordinary cycle.
 *
 * fast-json-patch applies the operations, in order, to a working copy of the base document: it
 * owns RFC 6902 (pointer resolution, the six operations, array indices and `-`). This module owns
 * the translation: each operation records the locations it changed, and the map writes the final
 * value of each. A mutation map cannot delete, so a member that is gone at the end is removed by
 * writing its nearest remaining container without it.
 *
 * Where the library is looser than RFC 6902, or than request data needs, we step in first:
 * - it inserts values by reference, so every value is copied before it lands (two operations of
 *   one patch never share a value, and none reaches back into the patch);
 * - it treats `obj[key] !== undefined` as "there", which finds an inherited `toString`; the
 *   working copy's objects have no prototype, so only own members are found;
 * - its copy and move check `from` but not the target (an index past the end appends; to the root,
 *   not even `from`), so they run as the RFC defines them: an add of the value at `from` (after
 *   removing it, for a move);
 * - it reads an array index for an add with `~~` ('' is 0, '01' is 1, 4294967296 wraps to 0);
 * - its refusals are its own text, so each is said again in our words, naming the operation.
 */
import jsonPatch, { type Operation as LibraryOperation } from 'fast-json-patch';
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

/** The library's refusal of `__proto__` and `constructor/prototype` pointers stays on (we refuse both first). */
const BAN_PROTOTYPE_MODIFICATIONS = true;

/** What the operations changed: addresses written as they are, and arrays whose tail shifted. */
interface Changes {
  touched: Map<string, Path>;
  /** Array address → its path and the first index whose element moved. */
  shifted: Map<string, { path: Path; from: number }>;
}

/**
 * Applies a patch to a copy of `base` and returns the equivalent mutation map (may be empty).
 * @throws CalcError INVALID_PATCH when the patch is malformed, cannot be applied, or a `test`
 *   operation fails (then `details` holds `{op: 'test', index, path, expected, actual}`, and
 *   `absent: true` when nothing was at `path`)
 * @throws CalcError SCHEMA_VIOLATION when a pointer or value names `__proto__`
 */
export function translatePatch(
  base: Readonly<Record<string, unknown>>,
  patch: unknown,
): Record<string, unknown> {
  if (!Array.isArray(patch))
    throw new CalcError('INVALID_PATCH', 'Invalid patch: a JSON Patch is an array of operations');
  refuseUnsafeOperations(patch);
  let doc = workingCopy(base) as Record<string, unknown>;
  const changes: Changes = { touched: new Map(), shifted: new Map() };
  patch.forEach((raw, index) => {
    const op = checkOperation(raw, index);
    const next = applyOne(doc, op, index, changes);
    // a model's state is an object; below a scalar root the library would write nowhere, silently
    if (!isObject(next)) throw refused(index, op, 'the document root must stay an object');
    doc = next;
  });
  return mutationsFor(doc, changes);
}

// ---------------------------------------------------------------------------------------------
// Checking operations

interface Checked {
  op: OpName;
  path: string;
  tokens: string[];
  from?: { pointer: string; tokens: string[] };
  value?: unknown;
}

function invalid(index: number, what: string, details: Record<string, unknown> = {}): CalcError {
  return new CalcError('INVALID_PATCH', `Invalid patch: operation ${index} ${what}`, { index, ...details });
}

/** A refusal of a checked operation: `Invalid patch: operation 2 (add /items/0): <why>`. */
function refused(index: number, op: Checked, why: string): CalcError {
  return invalid(index, `(${op.op} ${shown(op.path)}): ${why}`, { op: op.op, path: op.path });
}

/** The library's shape check (`validator`), its refusals said in our words, then our stricter pointer syntax. */
function checkOperation(raw: unknown, index: number): Checked {
  // the library finds an op by looking it up in an object, so `toString` or its internal `_get` pass
  if (isObject(raw) && !(typeof raw.op === 'string' && (OPS as readonly string[]).includes(raw.op)))
    throw invalid(index, `has op ${JSON.stringify(raw.op ?? null)}; use one of ${OPS.join(', ')}`);
  try {
    jsonPatch.validator(raw as LibraryOperation, index);
  } catch (err) {
    if (err instanceof jsonPatch.JsonPatchError) throw malformed(err.name, raw, index);
    throw err;
  }
  const { op, path, from, value } = raw as PatchOperation & { op: OpName };
  const out: Checked = { op, path, tokens: pointerTokens(path, index, op, 'path') };
  if (op === 'move' || op === 'copy')
    out.from = { pointer: from!, tokens: pointerTokens(from!, index, op, 'from') };
  if (op === 'add' || op === 'replace' || op === 'test') out.value = value;
  return out;
}

/** A `validator` refusal (`JsonPatchError` name) in our words. */
function malformed(name: string, raw: unknown, index: number): CalcError {
  if (!isObject(raw)) return invalid(index, 'is not an object {op, path, ...}');
  const op = String(raw.op);
  const path = raw.path;
  if (typeof path !== 'string')
    return invalid(index, `(${op}) needs 'path', a JSON Pointer such as "/items/0"`, { op });
  const details = { op, path };
  switch (name) {
    case 'OPERATION_PATH_INVALID':
      return invalid(index, `(${op}) has path '${path}': a JSON Pointer is "" or starts with "/"`, details);
    case 'OPERATION_FROM_REQUIRED':
      return invalid(
        index,
        `(${op} ${shown(path)}) needs 'from', the JSON Pointer to take the value from`,
        details,
      );
    case 'OPERATION_VALUE_REQUIRED':
      return invalid(index, `(${op} ${shown(path)}) needs 'value'`, details);
    case 'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED':
      return invalid(
        index,
        `(${op} ${shown(path)}) has a 'value' holding undefined, which JSON cannot carry`,
        details,
      );
    default:
      return invalid(index, `(${op} ${shown(path)}) is not a JSON Patch operation`, details);
  }
}

/**
 * `""` → [], `/a/b~1c` → ['a', 'b/c']. Stricter than the library, which takes a `from` not
 * starting with "/" and a `~` not followed by 0 or 1.
 */
function pointerTokens(pointer: string, index: number, op: string, field: string): string[] {
  const refuse = (why: string) =>
    invalid(index, `(${op}) has ${field} '${pointer}': ${why}`, { op, path: pointer });
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw refuse('a JSON Pointer is "" or starts with "/"');
  const raw = pointer.slice(1).split('/');
  if (raw.some((t) => /~(?![01])/.test(t))) throw refuse("'~' must be written ~0, '/' as ~1");
  const tokens = raw.map((t) => jsonPatch.unescapePathComponent(t));
  if (tokens.some((t, i) => t === 'prototype' && tokens[i - 1] === 'constructor'))
    throw refuse(
      "a pointer may not step from 'constructor' into 'prototype' (JSON Patch refuses that route to an object's prototype)",
    );
  return tokens;
}

/** A pointer as messages show it: the root's empty pointer as "". */
function shown(pointer: string): string {
  return pointer === '' ? '""' : pointer;
}

function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${jsonPatch.escapePathComponent(t)}`).join('');
}

// ---------------------------------------------------------------------------------------------
// Applying operations (by the library) and recording what they changed

/**
 * A copy of a JSON value whose objects have no prototype, so the library, which tests a member
 * with `obj[key] !== undefined`, finds own members only. Every value is copied before it lands.
 */
function workingCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => workingCopy(v));
  if (!isObject(value)) return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) out[key] = workingCopy(value[key]);
  return out;
}

/** The value at `pointer` as the library resolves it (validated), or ABSENT when nothing is there. */
function lookup(doc: unknown, pointer: string): unknown {
  const get = { op: '_get' as const, path: pointer, value: undefined as unknown };
  try {
    jsonPatch.applyOperation(doc, get, true, true, BAN_PROTOTYPE_MODIFICATIONS);
  } catch (err) {
    if (err instanceof jsonPatch.JsonPatchError || err instanceof TypeError) return ABSENT; // as in apply()
    throw err;
  }
  return get.value;
}

/** One library operation on the working copy (validated, in place); its refusal becomes `refusal()`. */
function apply(
  doc: unknown,
  operation: LibraryOperation,
  index: number,
  refusal: () => CalcError,
): { newDocument: unknown; removed?: unknown } {
  try {
    return jsonPatch.applyOperation(doc, operation, true, true, BAN_PROTOTYPE_MODIFICATIONS, index);
  } catch (err) {
    // a TypeError: the library walked into something that is not a container (none known: kept
    // so one would still be refused in our words)
    if (err instanceof jsonPatch.JsonPatchError || err instanceof TypeError) throw refusal();
    throw err;
  }
}

/** Applies one checked operation to `doc` (in place where it can); returns the document. */
function applyOne(doc: Record<string, unknown>, op: Checked, index: number, changes: Changes): unknown {
  const fail = (tokens: readonly string[], forAdd: boolean, field = '') =>
    refused(index, op, `${field}${whyRefused(doc, tokens, forAdd)}`);
  switch (op.op) {
    case 'test': {
      // the value is found by the library; compared by jsonEqual, as the library's comparison
      // calls `value.hasOwnProperty`, which a member named hasOwnProperty replaces
      const actual = lookup(doc, op.path);
      if (actual === ABSENT) throw testFailure(index, op, whyRefused(doc, op.tokens, false), undefined);
      if (!jsonEqual(actual, op.value)) throw testFailure(index, op, undefined, actual);
      return doc;
    }
    case 'add':
      return add(doc, op.path, op.tokens, workingCopy(op.value), index, changes, fail);
    case 'replace': {
      const value = workingCopy(op.value);
      const next = apply(doc, { op: 'replace', path: op.path, value }, index, () => fail(op.tokens, false));
      if (op.tokens.length === 0) touchRoot(changes, doc, next.newDocument);
      else touch(changes, segmentsOf(next.newDocument, op.tokens).path);
      return next.newDocument;
    }
    case 'remove':
      if (op.tokens.length === 0) throw refused(index, op, 'the document root cannot be removed');
      remove(doc, op.path, op.tokens, index, changes, () => fail(op.tokens, false));
      return doc;
    case 'copy':
    case 'move': {
      const from = op.from!;
      const value = lookup(doc, from.pointer);
      if (value === ABSENT) throw fail(from.tokens, false, `from ${from.pointer}: `);
      if (op.op === 'copy') return add(doc, op.path, op.tokens, workingCopy(value), index, changes, fail);
      if (from.pointer === op.path) return doc; // RFC 6902: moving a value onto itself changes nothing
      if (op.path.startsWith(`${from.pointer}/`))
        throw refused(index, op, `a value cannot be moved into itself (from ${shown(from.pointer)})`);
      // taken out of the document, the value is no longer shared with it
      const taken = remove(doc, from.pointer, from.tokens, index, changes, () =>
        fail(from.tokens, false, `from ${from.pointer}: `),
      );
      return add(doc, op.path, op.tokens, taken, index, changes, fail);
    }
  }
}

type Refusal = (tokens: readonly string[], forAdd: boolean) => CalcError;

/** `add`: a new or replaced object member, an array element inserted (shifting the rest), or the root. */
function add(
  doc: Record<string, unknown>,
  pointer: string,
  tokens: readonly string[],
  value: unknown,
  index: number,
  changes: Changes,
  fail: Refusal,
): unknown {
  if (tokens.length === 0) {
    const next = apply(doc, { op: 'add', path: '', value }, index, () => fail(tokens, true)).newDocument;
    touchRoot(changes, doc, next);
    return next;
  }
  const parent = lookup(doc, pointer.slice(0, pointer.lastIndexOf('/')));
  const token = tokens[tokens.length - 1]!;
  // the library reads the index with `~~`; RFC 6901 has no '', no leading zero, no wrap-around
  if (Array.isArray(parent) && token !== '-' && !(ARRAY_INDEX.test(token) && Number(token) <= parent.length))
    throw fail(tokens, true);
  const next = apply(doc, { op: 'add', path: pointer, value }, index, () => fail(tokens, true)).newDocument;
  record(changes, segmentsOf(next, tokens));
  return next;
}

/** `remove` (and the first half of a move) below the root; returns the removed value. */
function remove(
  doc: Record<string, unknown>,
  pointer: string,
  tokens: readonly string[],
  index: number,
  changes: Changes,
  refusal: () => CalcError,
): unknown {
  const removed = apply(doc, { op: 'remove', path: pointer }, index, refusal).removed;
  record(changes, segmentsOf(doc, tokens));
  return removed;
}

/**
 * The engine path of a pointer the library has just applied (a token is an index where its
 * container is an array; '-' the index it appended at), and whether it ends in an array.
 */
function segmentsOf(doc: unknown, tokens: readonly string[]): { path: Path; inArray: boolean } {
  let node: unknown = doc;
  const path: Segment[] = [];
  let inArray = false;
  for (const token of tokens) {
    inArray = Array.isArray(node);
    const segment = Array.isArray(node) ? (token === '-' ? node.length - 1 : Number(token)) : token;
    path.push(segment);
    node = (node as Record<string | number, unknown> | undefined)?.[segment];
  }
  return { path, inArray };
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/**
 * Why the library refused `tokens` in `doc`, in our words: the first token that does not lead
 * anywhere. `forAdd`: the last token may name a new member or the end of an array.
 */
function whyRefused(doc: unknown, tokens: readonly string[], forAdd: boolean): string {
  let node: unknown = doc;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const here = formatPointer(tokens.slice(0, i));
    const end = forAdd && i === tokens.length - 1;
    if (Array.isArray(node)) {
      if (!(end && token === '-') && !ARRAY_INDEX.test(token))
        return `'${token}' is not an index of the array at ${here || '/'}`;
      const at = token === '-' ? node.length : Number(token);
      if (at > (end ? node.length : node.length - 1))
        return `index ${at} is past the end of the array at ${here || '/'} (length ${node.length})`;
      node = node[at];
    } else if (isObject(node)) {
      if (!end && !Object.hasOwn(node, token)) return `nothing at ${formatPointer(tokens.slice(0, i + 1))}`;
      node = node[token];
    } else {
      return `${here || 'the root'} holds ${describe(node)}, not an object or array`;
    }
  }
  return 'it cannot be applied there';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

/** A replaced root: every top-level member of either document is written (or removed). */
function touchRoot(changes: Changes, before: unknown, after: unknown): void {
  for (const k of [
    ...(isObject(before) ? Object.keys(before) : []),
    ...(isObject(after) ? Object.keys(after) : []),
  ])
    touch(changes, [k]);
}

/** An add or remove at `path`: in an array it shifts the elements after it, else it writes `path`. */
function record(changes: Changes, { path, inArray }: { path: Path; inArray: boolean }): void {
  if (inArray) shift(changes, path.slice(0, -1), path[path.length - 1] as number);
  else touch(changes, path);
}

function touch(changes: Changes, path: Path): void {
  const key = formatPath(path);
  if (!changes.touched.has(key)) changes.touched.set(key, path);
}

/** An insertion or removal at `from` in the array at `arrayPath` shifted every element from there on. */
function shift(changes: Changes, arrayPath: Path, from: number): void {
  const key = formatPath(arrayPath);
  const seen = changes.shifted.get(key);
  if (!seen || from < seen.from) changes.shifted.set(key, { path: arrayPath, from });
  touch(changes, arrayPath);
}

function testFailure(index: number, op: Checked, missing: string | undefined, actual: unknown): CalcError {
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
