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

/** The definition, printed the slow and obvious way: the oracle for the fast path. */
function reference(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value !== 'object') return 'null';
  if (Array.isArray(value)) return `[${Array.from(value, reference).join(',')}]`; // holes too
  const obj = value as Record<string, unknown>;
  const members = Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference(obj[k])}`);
  return `{${members.join(',')}}`;
}

describe('canonicalJson: the native fast path prints exactly the definition', () => {
  const cases: [string, unknown][] = [
    ['sorted already', { a: 1, b: [1, 2], c: { d: null } }],
    ['unsorted inside sorted', { a: { z: 1, y: 2 }, b: [{ q: 1, p: 2 }] }],
    [
      'a trace as the engine builds it',
      { targetPath: '$.t', expression: 'a*b', inputPaths: ['$.a'], result: 6 },
    ],
    ['integer-like keys', { b: { '10': 1, '9': 2, x: 3 }, a: { '2': 1, '1': 0 } }],
    ['__proto__ as an ordinary key', JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}') as unknown],
    ['functions and undefined', { b: () => 1, a: undefined, c: [undefined, () => 2] }],
    ['a Date and a Map', { when: new Date(0), m: new Map([[1, 2]]) }],
    ['non-finite numbers and -0', { n: [Number.NaN, Infinity, -0, 1e21, 5e-7] }],
    ['strings that need escapes', { 'k"ey': 'q"\n\u0000\u2028', '\uD800': '\uDFFF' }],
    ['null prototype', Object.assign(Object.create(null) as object, { b: 1, a: 2 })],
    ['sparse array', [1, , 3]], // eslint-disable-line no-sparse-arrays
    ['top-level scalars', 'x'],
  ];
  for (const [what, value] of cases) {
    it(what, () => {
      const before = JSON.stringify(value);
      expect(canonicalJson(value)).toBe(reference(value));
      expect(JSON.stringify(value)).toBe(before); // the input is never reordered in place
    });
  }

  it('agrees with the definition on random nested values', () => {
    let seed = 7;
    const rnd = (n: number): number => (((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n) + n) % n;
    const keys = ['a', 'b', 'Z', '10', '9', 'é', '_', 'aa', '\u{1F600}'];
    const make = (depth: number): unknown => {
      switch (depth > 3 ? rnd(4) : rnd(7)) {
        case 0:
          return rnd(1000) - 500;
        case 1:
          return keys[rnd(keys.length)];
        case 2:
          return rnd(2) === 0 ? null : rnd(2) === 0;
        case 3:
          return rnd(10) / 7;
        case 4:
        case 5: {
          const o: Record<string, unknown> = {};
          for (let i = rnd(5); i > 0; i--) o[keys[rnd(keys.length)]!] = make(depth + 1);
          return o;
        }
        default:
          return Array.from({ length: rnd(4) }, () => make(depth + 1));
      }
    };
    for (let i = 0; i < 2000; i++) {
      const value = make(0);
      expect(canonicalJson(value)).toBe(reference(value));
    }
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
