import { describe, expect, it } from 'vitest';
import { canonicalJson, cloneJson, jsonEqual } from '../../src/calc/index.js';

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code units at every level, integer-like keys included', () => {
    expect(canonicalJson({ b: 1, a: { z: true, '10': 'x', '9': null }, A: [3, { d: 1, c: 2 }] })).toBe(
      '{"A":[3,{"c":2,"d":1}],"a":{"10":"x","9":null,"z":true},"b":1}',
    );
    expect(canonicalJson({ é: 1, z: 2, '\u{1F600}': 3, '\uFFFF': 4 })).toBe(
      '{"z":2,"é":1,"\u{1F600}":3,"\uFFFF":4}',
    );
  });

  it('omits undefined members, keeps nulls, prints non-finite numbers as null, escapes strings', () => {
    expect(canonicalJson({ a: undefined, b: null, c: Number.NaN, d: 'q"\n', e: [undefined] })).toBe(
      '{"b":null,"c":null,"d":"q\\"\\n","e":[null]}',
    );
  });

  it('is JSON that reads back equal to the input', () => {
    const value = {
      rows: [
        { id: 2, tags: ['x', 'y'], n: -0.5 },
        { id: 1e21, nested: { deep: [[1], []] } },
      ],
      s: 'ü',
    };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
    expect(canonicalJson(JSON.parse(canonicalJson(value)))).toBe(canonicalJson(value));
  });
});

describe('cloneJson and jsonEqual', () => {
  it('clone drops functions and undefined, and turns NaN/Infinity into null', () => {
    expect(cloneJson({ f: () => 1, u: undefined, n: Infinity, a: [Number.NaN, 1] })).toEqual({
      n: null,
      a: [null, 1],
    });
  });
  it('equality compares numbers numerically and objects regardless of key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});
