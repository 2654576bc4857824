/**
 * Reading and writing inside JSON documents by parsed address, with an undo log so a cycle can be
 * rolled back (and history rewound) without copying the whole document.
 */
import { WILDCARD, type Path, type Segment } from './address.js';
import { cloneJson, isObject, type JsonValue } from './json.js';
import { isForbiddenKey, ownValue } from './safe-keys.js';

/** Largest array index a write may create (a guard against `$.a[999999999]`). */
export const MAX_ARRAY_INDEX = 1_000_000;

const ABSENT = Symbol('absent');
export type Maybe = JsonValue | typeof ABSENT;
export { ABSENT };

export function getAt(doc: unknown, path: Path): Maybe {
  let node: unknown = doc;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (!Array.isArray(node) || seg >= node.length) return ABSENT;
      node = node[seg];
    } else if (seg === WILDCARD) {
      return ABSENT;
    } else {
      if (!isObject(node) || !Object.prototype.hasOwnProperty.call(node, seg)) return ABSENT;
      node = node[seg];
    }
  }
  return node as JsonValue;
}

/** One reversible change: a key set or deleted in a container, or an array's length changed. */
export type UndoEntry =
  | {
      kind: 'key';
      container: Record<string, unknown> | unknown[];
      key: string | number;
      had: boolean;
      old: unknown;
      path: Path | undefined;
      depth: number;
    }
  | { kind: 'length'; array: unknown[]; length: number; path: Path | undefined; depth: number };

/** What replaying needs of an undo entry: its address, not the live container (history may be stored). */
export type ReplayEntry =
  | { kind: 'key'; path: Path | undefined; depth: number; had: boolean; old: unknown }
  | { kind: 'length'; path: Path | undefined; depth: number; length: number };

/** An undo entry as JSON: its address cut to the key (or the array, for a length change). */
export type StoredReplayEntry =
  | { kind: 'key'; path: Segment[]; had: boolean; old?: JsonValue }
  | { kind: 'length'; path: Segment[]; length: number };

export function storeReplayEntry(e: ReplayEntry): StoredReplayEntry | undefined {
  if (!e.path) return undefined;
  const path = e.path.slice(0, e.depth);
  if (e.kind === 'length') return { kind: 'length', path, length: e.length };
  return e.had
    ? { kind: 'key', path, had: true, old: cloneJson(e.old) as JsonValue }
    : { kind: 'key', path, had: false };
}

export function loadReplayEntry(e: StoredReplayEntry): ReplayEntry {
  return e.kind === 'length'
    ? { kind: 'length', path: e.path, depth: e.path.length, length: e.length }
    : { kind: 'key', path: e.path, depth: e.path.length, had: e.had, old: e.old };
}

export class UndoLog {
  entries: UndoEntry[] = [];
  /** Also remember each entry's address, so the log can be replayed on a copy (history). */
  constructor(readonly recordPaths = false) {}
  /** Reverts every recorded change, newest first, and empties the log. */
  rollback(): void {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.kind === 'length') {
        e.array.length = e.length;
      } else if (e.had) {
        (e.container as Record<string | number, unknown>)[e.key] = e.old;
      } else if (Array.isArray(e.container)) {
        e.container[e.key as number] = null;
      } else {
        delete e.container[e.key as string];
      }
    }
    this.entries = [];
  }
}

function setKey(
  container: Record<string, unknown> | unknown[],
  key: string | number,
  value: unknown,
  undo: UndoLog | undefined,
  path: Path,
  depth: number,
): void {
  if (Array.isArray(container)) {
    const index = key as number;
    if (index >= container.length) {
      // entries keep the caller's (immutable) path and a depth; history slices it only on replay
      undo?.entries.push({
        kind: 'length',
        array: container,
        length: container.length,
        path: undo.recordPaths ? path : undefined,
        depth,
      });
      while (container.length < index) container.push(null);
      container.push(value);
      return;
    }
    undo?.entries.push({
      kind: 'key',
      container,
      key: index,
      had: true,
      old: container[index],
      path: undo.recordPaths ? path : undefined,
      depth: depth + 1,
    });
    container[index] = value;
    return;
  }
  // addresses are parsed with `__proto__` refused; reaching here with it is a bug, never a write
  if (isForbiddenKey(key)) throw new Error('refusing to write the __proto__ key');
  if (undo) {
    const had = Object.prototype.hasOwnProperty.call(container, key);
    const old = had ? container[key as string] : undefined;
    undo.entries.push({
      kind: 'key',
      container,
      key,
      had,
      old,
      path: undo.recordPaths ? path : undefined,
      depth: depth + 1,
    });
  }
  container[key as string] = value;
}

export class IndexLimitError extends Error {}

/**
 * Writes `value` at `path`, creating missing or null intermediates (`[]` before an index, `{}`
 * otherwise) and padding arrays with null. Returns false when the path runs through a scalar.
 * The root cannot be replaced here (callers own the root object).
 * @throws IndexLimitError when an index exceeds MAX_ARRAY_INDEX
 */
export function setAt(root: Record<string, unknown>, path: Path, value: unknown, undo?: UndoLog): boolean {
  if (path.length === 0) return false;
  let node: Record<string, unknown> | unknown[] = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] as Segment;
    if (seg === WILDCARD) return false;
    if (typeof seg === 'number') {
      if (seg > MAX_ARRAY_INDEX)
        throw new IndexLimitError(`array index ${seg} exceeds the limit of ${MAX_ARRAY_INDEX}`);
      if (!Array.isArray(node)) return false;
    } else if (Array.isArray(node)) {
      return false;
    }
    if (i === path.length - 1) {
      setKey(node, seg, value, undo, path, i);
      return true;
    }
    const next = ownValue(node, seg);
    if (next === undefined || next === null) {
      const created: Record<string, unknown> | unknown[] = typeof path[i + 1] === 'number' ? [] : {};
      setKey(node, seg, created, undo, path, i);
      node = created;
    } else if (typeof next === 'object') {
      node = next as Record<string, unknown> | unknown[];
    } else {
      return false;
    }
  }
  return true;
}

/**
 * Splices a value into an existing structure without resurrecting vanished rows: intermediate
 * objects are created, but an index at or past the array's current length is skipped.
 */
export function spliceAt(root: Record<string, unknown>, path: Path, value: unknown, undo?: UndoLog): boolean {
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] as Segment;
    const last = i === path.length - 1;
    if (typeof seg === 'number') {
      if (!Array.isArray(node) || seg >= node.length) return false;
      if (last) {
        setKey(node, seg, value, undo, path, i);
        return true;
      }
      const next = node[seg];
      if (next === null || next === undefined) {
        const created = typeof path[i + 1] === 'number' ? [] : {};
        setKey(node, seg, created, undo, path, i);
        node = created;
      } else if (typeof next !== 'object') return false;
      else node = next;
    } else if (seg === WILDCARD) {
      return false;
    } else {
      if (!isObject(node)) return false;
      if (last) {
        setKey(node, seg, value, undo, path, i);
        return true;
      }
      const next = ownValue(node, seg);
      if (next === null || next === undefined) {
        // An absent array is never created for an indexed splice: there is no row to land in.
        if (typeof path[i + 1] === 'number') return false;
        const created = {};
        setKey(node, seg, created, undo, path, i);
        node = created;
      } else if (typeof next !== 'object') return false;
      else node = next;
    }
  }
  return false;
}

/** Removes the value at `path` (used for lazy or vanished derived entries). */
export function deleteAt(root: Record<string, unknown>, path: Path, undo?: UndoLog): void {
  const parent = getAt(root, path.slice(0, -1));
  const key = path[path.length - 1];
  if (parent === ABSENT || key === undefined) return;
  if (isObject(parent) && typeof key === 'string' && Object.prototype.hasOwnProperty.call(parent, key)) {
    undo?.entries.push({
      kind: 'key',
      container: parent,
      key,
      had: true,
      old: parent[key],
      path: undo.recordPaths ? path : undefined,
      depth: path.length,
    });
    delete parent[key];
  }
}

/** Concrete paths matching a pattern in a document (every `[*]` expanded over existing elements). */
export function expandPattern(doc: unknown, pattern: Path): Path[] {
  const out: Path[] = [];
  const walk = (node: unknown, i: number, acc: Segment[]): void => {
    if (i === pattern.length) {
      out.push(acc.slice());
      return;
    }
    const seg = pattern[i] as Segment;
    if (seg === WILDCARD) {
      if (!Array.isArray(node)) return;
      for (let k = 0; k < node.length; k++) {
        acc.push(k);
        walk(node[k], i + 1, acc);
        acc.pop();
      }
    } else if (typeof seg === 'number') {
      if (!Array.isArray(node) || seg >= node.length) return;
      acc.push(seg);
      walk(node[seg], i + 1, acc);
      acc.pop();
    } else {
      if (!isObject(node) || !Object.prototype.hasOwnProperty.call(node, seg)) return;
      acc.push(seg);
      walk(node[seg], i + 1, acc);
      acc.pop();
    }
  };
  walk(doc, 0, []);
  return out;
}

/**
 * Replays path-carrying undo entries (newest first) on a document with the same shape as the one
 * they were recorded on: how history rewinds a copy of the current state.
 */
export function replayUndo(
  root: Record<string, unknown>,
  entries: readonly ReplayEntry[],
  clone: (v: unknown) => unknown,
): void {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (!e.path) continue;
    if (e.kind === 'length') {
      const arr = getAt(root, e.path.slice(0, e.depth));
      if (Array.isArray(arr)) arr.length = e.length;
      continue;
    }
    const parent = e.depth === 1 ? root : getAt(root, e.path.slice(0, e.depth - 1));
    const key = e.path[e.depth - 1]!;
    if (parent === ABSENT || parent === null || typeof parent !== 'object') continue;
    if (e.had) (parent as Record<string | number, unknown>)[key as string] = clone(e.old);
    else if (!Array.isArray(parent)) delete parent[key as string];
  }
}
