/**
 * RFC 6902 JSON Patch → one mutation map, so a patch runs as a single ordinary cycle.
 * The patch is applied to a copy of the base document by fast-json-patch; the translation then
 * reads the new values from that copy.
 */
import jsonPatch from 'fast-json-patch';
import { formatPath, fromPointer, type Path } from './address.js';
import { ABSENT, getAt } from './document.js';
import { CalcError, isEngineError, publicMessage, schemaViolationError } from './errors.js';
import { cloneJson, isObject } from './json.js';
import { FORBIDDEN_KEY_REASON, findUnsafeValue, isForbiddenKey, unsafeValueViolation } from './safe-keys.js';

export interface PatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** Address → parsed path of every field the patch touched, in the order first touched. */
type Touched = Map<string, Path>;

function touch(out: Touched, path: Path, moveToEnd = false): void {
  const key = formatPath(path);
  if (moveToEnd) out.delete(key);
  out.set(key, path);
}

function leaves(value: unknown, at: Path, out: Touched): void {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, [...at, k], out);
  } else if (Array.isArray(value) && value.length > 0) {
    value.forEach((v, i) => leaves(v, [...at, i], out));
  } else {
    touch(out, at);
  }
}

/**
 * Applies a patch to a copy of `base` and returns the equivalent mutation map (may be empty).
 * @throws CalcError (INVALID_PATCH) when the patch is malformed or cannot be applied
 */
export function translatePatch(
  base: Readonly<Record<string, unknown>>,
  patch: unknown,
): Record<string, unknown> {
  if (!Array.isArray(patch))
    throw new CalcError('INVALID_PATCH', 'Invalid patch: a JSON Patch is an array of operations');
  const ops = patch as PatchOperation[];
  refuseUnsafeOperations(ops);
  const before = cloneJson(base) as Record<string, unknown>;
  let after: unknown;
  try {
    const error = jsonPatch.validate(ops as jsonPatch.Operation[], before);
    if (error) throw error;
    after = jsonPatch.applyPatch(cloneJson(before), ops as jsonPatch.Operation[], true, false).newDocument;
  } catch (err) {
    // the patch library fails with a TypeError when a `from` runs through a missing container
    const why = isEngineError(err)
      ? 'an operation reads or writes through a location the document does not have'
      : publicMessage(err).split('\n')[0];
    throw new CalcError('INVALID_PATCH', `Invalid patch: ${why}`);
  }
  if (!isObject(after))
    throw new CalcError('INVALID_PATCH', 'Invalid patch: the document root must stay an object');

  // Walk the operations over a running copy, so each op sees the shape it was applied to.
  const out: Touched = new Map();
  let running: unknown = before;
  for (const op of ops) {
    const next = jsonPatch.applyOperation(
      cloneJson(running),
      op as jsonPatch.Operation,
      false,
      false,
    ).newDocument;
    // `test` changes nothing; a removed object key reads as absent below and is written as null
    const ends: string[] = [];
    if (op.op === 'add' || op.op === 'replace' || op.op === 'remove' || op.op === 'copy') ends.push(op.path);
    else if (op.op === 'move') ends.push(op.from ?? '', op.path);
    for (const end of ends) translateEnd(end, op.op, running, next, out);
    running = next;
  }
  // Values are read from the final document, so later operations win.
  const result: Record<string, unknown> = {};
  for (const [key, path] of out) {
    const v = getAt(after, path);
    result[key] = v === ABSENT ? null : cloneJson(v);
  }
  return result;
}

/**
 * A pointer or value naming `__proto__` is refused as a Schema violation at the address it names,
 * before the patch library sees it (its own refusal is an unstructured text).
 */
function refuseUnsafeOperations(ops: readonly unknown[]): void {
  for (const op of ops) {
    if (!isObject(op)) continue; // the patch library reports malformed operations
    for (const pointer of [op.path, op.from]) {
      if (typeof pointer !== 'string' || !pointer.startsWith('/')) continue;
      const path = fromPointer(pointer);
      if (path.some(isForbiddenKey))
        throw schemaViolationError([
          { path: formatPath(path), keyword: 'forbiddenKey', message: FORBIDDEN_KEY_REASON },
        ]);
    }
    const unsafe = findUnsafeValue(op.value);
    if (unsafe && typeof op.path === 'string' && op.path.startsWith('/')) {
      throw schemaViolationError([unsafeValueViolation(formatPath(fromPointer(op.path)), unsafe)]);
    }
  }
}

function translateEnd(pointer: string, op: string, before: unknown, after: unknown, out: Touched): void {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/');
  const parentPath = fromPointer(tokens.length > 1 ? `/${tokens.slice(0, -1).join('/')}` : '');
  const last = tokens[tokens.length - 1];
  const parentBefore = getAt(before, parentPath);
  const parentAfter = getAt(after, parentPath);
  if (last !== undefined && (Array.isArray(parentBefore) || Array.isArray(parentAfter))) {
    const isArrayOp = op !== 'replace';
    const index = last === '-' ? (Array.isArray(parentBefore) ? parentBefore.length : 0) : Number(last);
    if (isArrayOp) {
      // an insertion or removal shifts every element from `index` on
      const arr = Array.isArray(parentAfter) ? parentAfter : [];
      for (let i = index; i < arr.length; i++) leaves(arr[i], [...parentPath, i], out);
      touch(out, parentPath, true); // the whole array last
      return;
    }
  }
  const path = fromPointer(pointer);
  if (path.length === 0) {
    // replacing the root: every top-level field of the new document
    const keys = new Set([
      ...(isObject(before) ? Object.keys(before) : []),
      ...(isObject(after) ? Object.keys(after) : []),
    ]);
    for (const k of keys) touch(out, [k]);
    return;
  }
  touch(out, path);
}
