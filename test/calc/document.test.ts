import { describe, expect, it } from 'vitest';
import { WILDCARD } from '../../src/calc/address.js';
import {
  ABSENT,
  deleteAt,
  expandPattern,
  getAt,
  IndexLimitError,
  MAX_ARRAY_INDEX,
  setAt,
  spliceAt,
  UndoLog,
} from '../../src/calc/document.js';

describe('setAt: create-as-you-go (calc-spec §10 step 2)', () => {
  it('creates objects and arrays on the way and pads arrays with null', () => {
    const doc: Record<string, unknown> = {};
    expect(setAt(doc, ['a', 'b', 2, 'c'], 1)).toBe(true);
    expect(doc).toEqual({ a: { b: [null, null, { c: 1 }] } });
  });

  it('replaces a null intermediate', () => {
    const doc: Record<string, unknown> = { a: null };
    setAt(doc, ['a', 0], 'x');
    expect(doc).toEqual({ a: ['x'] });
  });

  it('refuses to run through a scalar', () => {
    const doc: Record<string, unknown> = { a: 5 };
    expect(setAt(doc, ['a', 'b'], 1)).toBe(false);
    expect(doc).toEqual({ a: 5 });
  });

  it('throws past the index limit', () => {
    expect(() => setAt({}, ['a', MAX_ARRAY_INDEX + 1], 1)).toThrow(IndexLimitError);
  });

  it('undoes every change exactly', () => {
    const doc: Record<string, unknown> = { keep: { x: 1 }, arr: [1] };
    const before = structuredClone(doc);
    const undo = new UndoLog();
    setAt(doc, ['keep', 'x'], 2, undo);
    setAt(doc, ['arr', 4], 9, undo);
    setAt(doc, ['fresh', 'deep', 0], true, undo);
    expect(doc).not.toEqual(before);
    undo.rollback();
    expect(doc).toEqual(before);
  });
});

describe('spliceAt: no resurrected rows (calc-spec §4)', () => {
  it('skips an index at or past the array length', () => {
    const doc: Record<string, unknown> = { items: [{ p: 1 }] };
    expect(spliceAt(doc, ['items', 2, 'total'], 5)).toBe(false);
    expect(doc).toEqual({ items: [{ p: 1 }] });
  });

  it('creates intermediate objects inside an existing row', () => {
    const doc: Record<string, unknown> = { A: [{ x: 1 }] };
    expect(spliceAt(doc, ['A', 0, 'b', 'c'], 7)).toBe(true);
    expect(doc).toEqual({ A: [{ x: 1, b: { c: 7 } }] });
  });
});

describe('reading and expanding', () => {
  const doc = { items: [{ q: 1 }, { r: 2 }, null, { q: 3 }] };

  it('getAt answers ABSENT for missing paths and wildcards', () => {
    expect(getAt(doc, ['items', 0, 'q'])).toBe(1);
    expect(getAt(doc, ['items', 9])).toBe(ABSENT);
    expect(getAt(doc, ['items', WILDCARD])).toBe(ABSENT);
    expect(getAt(doc, ['items', 2])).toBeNull();
  });

  it('expandPattern lists only concrete matches of the whole pattern', () => {
    expect(expandPattern(doc, ['items', WILDCARD, 'q'])).toEqual([
      ['items', 0, 'q'],
      ['items', 3, 'q'],
    ]);
    expect(expandPattern(doc, ['items', WILDCARD])).toHaveLength(4);
  });

  it('deleteAt removes an object key and records it', () => {
    const d: Record<string, unknown> = { a: { b: 1, c: 2 } };
    const undo = new UndoLog();
    deleteAt(d, ['a', 'b'], undo);
    expect(d).toEqual({ a: { c: 2 } });
    undo.rollback();
    expect(d).toEqual({ a: { b: 1, c: 2 } });
  });
});
