/**
 * The record hash streams the canonical text of a record into SHA-256 (src/store/record-text.ts).
 * It must hash exactly what the chain's definition says, `sha256(prevHash + "\n" +
 * canonicalJson(record without prevHash/hash, null fields left out))`: chains written before it
 * (the fixture, written by the code before it on the memory and SQLite stores) still verify, and
 * on random records it agrees with that definition computed the plain way.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, compileModel, normalizeSpec, startRuntime } from '../../src/calc/index.js';
import { recordHash, verifyChain } from '../../src/service/audit.js';
import type { AuditRecord } from '../../src/store/store.js';

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/audit-chain-2026-12-05.json', import.meta.url), 'utf8'),
) as { memory: AuditRecord[]; sqlite: AuditRecord[] };

/** The chain's definition, computed the plain way (one canonical string, one hash). */
function definedHash(prevHash: string, record: AuditRecord): string {
  const content: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (k === 'prevHash' || k === 'hash' || v === null || v === undefined) continue;
    Object.defineProperty(content, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return createHash('sha256')
    .update(`${prevHash}\n${canonicalJson(content)}`)
    .digest('hex');
}

const trace = (over: Record<string, unknown> = {}) => ({
  targetPath: '$.total',
  expression: 'price * qty',
  inputPaths: ['$.price', '$.qty'],
  result: 7.5,
  constraintPassed: null,
  errorMessage: null,
  ...over,
});

/** Six enumerable keys, one of them not a trace field, and `result` own but not enumerable (not printed). */
function hiddenResult(): object {
  const t: Record<string, unknown> = { ...trace(), extra: 1 };
  delete t.result;
  return Object.defineProperty(t, 'result', { value: 5, enumerable: false });
}

function record(traces: unknown[], extra: Record<string, unknown> = {}): AuditRecord {
  return {
    modelId: 'm',
    sequence: 0,
    timestamp: '2026-12-05T17:00:00.000Z',
    modelVersion: '1',
    source: 'client',
    mutations: { '$.price': 2.5, '$.qty': 3 },
    derivedUpdated: ['$.total'],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces,
    prevHash: '0'.repeat(64),
    ...extra,
  } as unknown as AuditRecord;
}

describe('audit record hash', () => {
  it.each(['memory', 'sqlite'] as const)(
    'a chain written by the earlier code (%s store) still verifies',
    (kind) => {
      const chain = fixture[kind];
      expect(chain.length).toBe(5);
      expect(verifyChain(chain)).toEqual({
        valid: true,
        recordsChecked: 5,
        firstBrokenSequence: null,
        detail: 'ok',
      });
      for (const r of chain) expect(recordHash(r.prevHash!, r)).toBe(r.hash);
    },
  );

  it('an edit of any trace field of the stored chain breaks it', () => {
    for (const field of [
      'targetPath',
      'expression',
      'inputPaths',
      'result',
      'constraintPassed',
      'errorMessage',
    ]) {
      const chain = structuredClone(fixture.memory);
      const t = chain[2]!.traces[0] as Record<string, unknown>;
      t[field] = field === 'inputPaths' ? ['$.other'] : field === 'constraintPassed' ? true : 'changed';
      expect(verifyChain(chain)).toMatchObject({ valid: false, firstBrokenSequence: 2 });
    }
  });

  it('a trace list changed in place after hashing is hashed afresh (the kept text is not trusted)', () => {
    const shared = ['$.price', '$.qty'];
    const r = record([trace({ inputPaths: shared })]);
    const before = recordHash(r.prevHash!, r);
    expect(before).toBe(definedHash(r.prevHash!, r));
    shared[1] = '$.quantity';
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
    expect(recordHash(r.prevHash!, r)).not.toBe(before);
    shared.push('$.tax');
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
    // the same list under another expression
    const other = record([trace({ inputPaths: shared, expression: 'price * quantity + tax' })]);
    expect(recordHash(other.prevHash!, other)).toBe(definedHash(other.prevHash!, other));
  });

  it('a list changed in place and only then frozen is hashed afresh (frozen when printed is what counts)', () => {
    const shared = ['$.price', '$.qty'];
    const r = record([trace({ inputPaths: shared })]);
    const before = recordHash(r.prevHash!, r);
    shared[1] = '$.quantity';
    Object.freeze(shared);
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
    expect(recordHash(r.prevHash!, r)).not.toBe(before);
  });

  it("the engine freezes a rule's input list, so every trace of the rule shares one unchangeable list", async () => {
    const runtime = await startRuntime(
      await compileModel(
        normalizeSpec({
          id: 'f',
          version: '1',
          schema: {},
          derivations: [{ path: '$.total', expr: 'price * qty' }],
        }).spec,
      ),
    );
    const first = (await runtime.mutate({ '$.price': 2, '$.qty': 3 })).traces;
    const second = (await runtime.mutate({ '$.price': 4 })).traces;
    expect(first).toHaveLength(1);
    expect(Object.isFrozen(first[0]!.inputPaths)).toBe(true);
    expect(second[0]!.inputPaths).toBe(first[0]!.inputPaths);
  });

  it('rows sharing one input list, and traces with a flag or an error, hash as the definition says', () => {
    const shared = ['$.items[*].price'];
    const rows = [0, 1, 2, 1, 0].map((i) =>
      trace({ targetPath: `$.items[${i}].total`, inputPaths: shared, result: i * 1.5 }),
    );
    rows.push(trace({ inputPaths: shared, constraintPassed: false, targetPath: '$constraint:c' }));
    rows.push(trace({ inputPaths: shared, errorMessage: 'boom "x"', result: null }));
    rows.push(trace({ inputPaths: shared, constraintPassed: true }));
    const r = record(rows);
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r)); // with the kept texts
  });

  it('traces of other shapes take the generic printer and hash the same', () => {
    const odd: unknown[] = [
      trace({ result: undefined }), // the key is left out
      trace({ result: { 10: 'ten', 9: 'nine', b: [1, { z: 1, a: null }], a: -0 } }),
      trace({ result: Number.NaN }),
      trace({ result: Infinity }),
      trace({ extra: 1 }),
      { ...trace(), constraintPassed: 'yes' },
      { ...trace(), errorMessage: 3 },
      { ...trace(), expression: 42 },
      { ...trace(), expression: undefined },
      { ...trace(), targetPath: undefined },
      { ...trace(), targetPath: null },
      { ...trace(), inputPaths: ['$.a', 3, null] },
      { ...trace(), inputPaths: 'not a list' },
      { targetPath: '$.a' },
      Object.assign(Object.create(null) as object, trace()),
      // six enumerable keys, one of them not a trace field, and `result` present but not printed
      hiddenResult(),
      {
        errorMessage: null,
        constraintPassed: null,
        result: 2,
        inputPaths: ['$.b'],
        expression: 'b',
        targetPath: '$.c',
      },
      new Date(0),
      ['a', 1],
      'text',
      null,
      7,
    ];
    const r = record(odd, { origin: { b: 1, a: { 2: 'x', 10: 'y' } }, stateHash: 'ab'.repeat(32) });
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
  });

  it('a record with fields beyond the known ones, or missing some, hashes as the definition says', () => {
    // the known fields are printed from a fixed sorted list; anything else takes the generic printer
    const base = record([trace()]);
    const cases: AuditRecord[] = [
      { ...base, aaa: 1, zzz: [2] } as unknown as AuditRecord,
      { ...base, stateHash: 'ab'.repeat(32), origin: { z: 1, a: 2 } },
      { ...base, origin: null, stateHash: undefined } as unknown as AuditRecord,
      (() => {
        const r: Record<string, unknown> = { ...base };
        delete r.modelVersion;
        delete r.dispatchedEffects;
        return r as unknown as AuditRecord;
      })(),
      // a known field own but not enumerable is not printed (JSON leaves it out)
      Object.defineProperty({ ...base }, 'source', { value: 'agent', enumerable: false }),
      // an enumerable field inherited, not own, is not printed either
      Object.assign<object, AuditRecord>(Object.create({ origin: { from: 'prototype' } }) as object, base),
    ];
    for (const r of cases) expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
  });

  it('records larger than one chunk of text hash as the definition says', () => {
    const traces = Array.from({ length: 3000 }, (_, i) =>
      trace({ targetPath: `$.x_${i}`, result: i / 7, inputPaths: [`$.y_${i}`, '$.g'] }),
    );
    traces.push(trace({ result: '𝄞 ☃ \u0001 "q" \ud800 lone' })); // a lone surrogate is escaped
    const r = record(traces, { derivedUpdated: traces.map((t) => t.targetPath) });
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
  });

  it('non-ASCII text at every offset of the byte chunks, and pieces larger than a chunk, hash as defined', () => {
    // record-text.ts gathers UTF-8 bytes into 64 KB chunks: a piece may start anywhere in a chunk,
    // be partly ASCII, or be larger than a chunk on its own
    const wide = '€𝄞é'; // 3, 4 and 2 UTF-8 bytes
    for (let shift = 0; shift < 7; shift++) {
      const traces = Array.from({ length: 700 }, (_, i) =>
        trace({
          targetPath: `$.x_${i}${'y'.repeat(shift)}`,
          expression: i % 3 === 0 ? `a${wide} * ${i}` : 'price * qty',
          inputPaths: [`$.a${i % 5 === 0 ? wide : ''}`, '$.g'],
          result: i % 4 === 0 ? `r${wide.repeat(i % 9)}` : i / 3,
          errorMessage: i % 7 === 0 ? `e${wide}` : null,
        }),
      );
      const r = record(traces, {
        mutations: { [`$.k${wide}`]: 'x'.repeat(shift) + wide.repeat(9000) },
        // a long piece that fits a chunk (encoded in one call) with non-ASCII text in it
        origin: { note: `${'y'.repeat(shift)}${wide.repeat(60 + shift)}` },
        derivedUpdated: traces.map((t) => t.targetPath),
      });
      expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
    }
    const huge = record([trace({ result: 'a'.repeat(70_000) }), trace({ result: wide.repeat(30_000) })]);
    expect(recordHash(huge.prevHash!, huge)).toBe(definedHash(huge.prevHash!, huge));
    const longSource = trace({ expression: `x + ${'y'.repeat(70_000)}`, inputPaths: ['$.x'] });
    const r = record([longSource, trace(), longSource]);
    expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
  });

  it('random records with any Unicode, some larger than a chunk, hash as the definition says', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    const arbTrace = fc.record({
      targetPath: text,
      expression: text,
      inputPaths: fc.array(text, { maxLength: 4 }),
      result: fc.oneof(fc.double(), text, fc.jsonValue({ maxDepth: 2 })),
      constraintPassed: fc.constantFrom(null, true, false),
      errorMessage: fc.option(text),
    });
    fc.assert(
      fc.property(fc.array(arbTrace, { maxLength: 1500 }), (traces) => {
        const r = record(traces);
        expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
      }),
      { numRuns: 30 },
    );
  });

  it('random records hash as the definition says', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const arbTrace = fc.oneof(
      fc.record({
        targetPath: fc.string(),
        expression: fc.string(),
        inputPaths: fc.array(fc.string(), { maxLength: 4 }),
        result: json,
        constraintPassed: fc.constantFrom(null, true, false),
        errorMessage: fc.option(fc.string()),
      }),
      json,
    );
    fc.assert(
      fc.property(
        fc.array(arbTrace, { maxLength: 8 }),
        fc.dictionary(fc.string(), json, { maxKeys: 4 }),
        fc.option(fc.dictionary(fc.string(), json, { maxKeys: 3 })),
        (traces, mutations, origin) => {
          const r = record(traces, { mutations, origin });
          expect(recordHash(r.prevHash!, r)).toBe(definedHash(r.prevHash!, r));
        },
      ),
      { numRuns: 300 },
    );
  });
});
