/**
 * Request data never reaches Object.prototype: `__proto__` as an address segment or as a key inside
 * a value is refused with a Schema violation naming where it is (never silently dropped), on every
 * route into the engine; `constructor`, `prototype` and other inherited names are ordinary fields.
 * (The suite-wide guard in test/setup also fails any test that leaves the prototype polluted.)
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/errors.js';
import { findUnsafeValue } from '../../src/calc/safe-keys.js';
import { validateSpec } from '../../src/calc/validator.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { live, rejectsWith } from './helpers/model.js';

const REASON = /'__proto__' cannot be used as a key/;

function prototypeKeys(): string[] {
  return [...Reflect.ownKeys(Object.prototype), ...Reflect.ownKeys(Array.prototype)].map(String);
}
const cleanKeys = prototypeKeys();

afterEach(() => {
  expect(prototypeKeys()).toEqual(cleanKeys);
});

/** The violations of a SCHEMA_VIOLATION, checked to name `path` and say why. */
function violationAt(err: CalcError, path: string): void {
  const violations = err.details.violations as { path: string; message: string }[];
  expect(violations.map((v) => v.path)).toContain(path);
  expect(violations.find((v) => v.path === path)?.message).toMatch(REASON);
}

const ORDER = {
  id: 'order',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { price: { type: 'number' }, qty: { type: 'number' }, note: { type: 'object' } },
  },
  derivations: [{ path: '$.total', expr: 'price * qty' }],
};

async function service(): Promise<CalcService> {
  const calc = new CalcService(new MemoryStore());
  await calc.createModel(ORDER);
  await calc.mutate('order', { '$.price': 2, '$.qty': 3 });
  return calc;
}

describe('__proto__ in an address is refused on every write route', () => {
  it.each(['$.__proto__.zzz', '$.__proto__', '$.note.__proto__.zzz', '$.items[0].__proto__'])(
    'mutate %s: a Schema violation naming the address; nothing changes',
    async (address) => {
      const calc = await service();
      const before = await calc.getState('order');
      const err = await rejectsWith(calc.mutate('order', { [address]: 'yes' }), 'SCHEMA_VIOLATION');
      const violations = err.details.violations as { path: string; message: string }[];
      expect(violations[0]!.path).toBe(address);
      expect(violations[0]!.message).toMatch(REASON);
      expect(await calc.getState('order')).toEqual(before);
      expect(({} as Record<string, unknown>).zzz).toBeUndefined();
    },
  );

  it('a dry run refuses it too', async () => {
    const calc = await service();
    const err = await rejectsWith(calc.dryRun(ORDER, { '$.__proto__.zzz': 'yes' }), 'SCHEMA_VIOLATION');
    violationAt(err, '$.__proto__.zzz');
  });

  it('JSON Patch: a path or from naming __proto__ is a Schema violation at that address', async () => {
    const calc = await service();
    const byPath = await rejectsWith(
      calc.patchModel('order', [{ op: 'add', path: '/__proto__/zzz', value: 1 }]),
      'SCHEMA_VIOLATION',
    );
    violationAt(byPath, '$.__proto__.zzz');
    const byFrom = await rejectsWith(
      calc.patchModel('order', [{ op: 'copy', from: '/note/__proto__', path: '/x' }]),
      'SCHEMA_VIOLATION',
    );
    violationAt(byFrom, '$.note.__proto__');
  });

  it('a derivation, meta rule or default targeting __proto__ makes the spec invalid', async () => {
    for (const section of ['derivations', 'defaultValues'] as const) {
      const report = await validateSpec({
        ...ORDER,
        [section]: [{ path: '$.__proto__.polluted', expr: '1' }],
      });
      expect(report.valid).toBe(false);
      expect(JSON.stringify(report.errors)).toMatch(REASON);
    }
  });

  it('evolution backfill keyed by a __proto__ address is refused', async () => {
    const calc = await service();
    await expect(
      calc.evolveSpec('order', { newVersion: '1.1.0', backfill: { '$.__proto__.zzz': 1 } }),
    ).rejects.toThrow(REASON);
  });
});

describe('__proto__ as a key inside a value is refused, never dropped', () => {
  const hostile = (): unknown => JSON.parse('{"safe": 1, "__proto__": {"zzz": "yes"}}');

  it('mutate: the violation names the key under the written address', async () => {
    const calc = await service();
    const err = await rejectsWith(calc.mutate('order', { '$.note': hostile() }), 'SCHEMA_VIOLATION');
    violationAt(err, '$.note.__proto__');
    expect(await calc.getField('order', '$.note')).toBeNull();
  });

  it('JSON Patch values are checked before the patch is applied', async () => {
    const calc = await service();
    const err = await rejectsWith(
      calc.patchModel('order', [{ op: 'add', path: '/note', value: { deep: [hostile()] } }]),
      'SCHEMA_VIOLATION',
    );
    violationAt(err, '$.note.deep[0].__proto__');
  });

  it('a snapshot holding one is refused by restore', async () => {
    const calc = await service();
    const snap = (await calc.snapshot('order')) as unknown as Record<string, unknown>;
    const tampered = { ...snap, baseDoc: { price: 1, note: hostile() } };
    const err = await rejectsWith(calc.restore('order', tampered), 'SCHEMA_VIOLATION');
    violationAt(err, 'snapshot.baseDoc.note.__proto__');
    expect(await calc.getField('order', '$.price')).toBe(2);
  });

  it('a spec holding one anywhere is invalid, and the error says where', async () => {
    const spec = JSON.parse(
      '{"id":"x","version":"1.0.0","schema":{"type":"object","properties":{"__proto__":{"type":"number"}}}}',
    ) as unknown;
    const report = await validateSpec(spec);
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toEqual({
      location: 'schema.properties.__proto__',
      message: expect.stringMatching(REASON),
    });
  });

  it('values nested deeper than the budget are refused without a stack overflow', async () => {
    const calc = await service();
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const err = await rejectsWith(calc.mutate('order', { '$.note': { deep } }), 'SCHEMA_VIOLATION');
    expect(JSON.stringify(err.details.violations)).toMatch(/nests deeper than 512 levels/);
  });
});

describe('inherited names are ordinary fields', () => {
  const NAMES = ['constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

  it('written, read, derived from, nested under and removed like any other field', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.sum', expr: 'constructor + prototype + toString' }],
    });
    await runtime.mutate({ '$.constructor': 1, '$.prototype': 2, '$.toString': 3 });
    expect(await runtime.getValue('$.sum')).toBe(6);
    // a name the object inherits is not a value to walk through: the write creates the container
    await runtime.mutate({ '$.box.hasOwnProperty.valueOf': 'x', '$.box.constructor.prototype': 'y' });
    expect(await runtime.getValue('$.box')).toEqual({
      hasOwnProperty: { valueOf: 'x' },
      constructor: { prototype: 'y' },
    });
  });

  it('a refused cycle restores an absent inherited name as absent', async () => {
    const { runtime } = await live({
      constraints: [{ id: 'small', expr: 'n < 10', message: 'n too big', policy: 'rollback' }],
    });
    await rejectsWith(runtime.mutate({ '$.n': 50, '$.constructor': 1 }), 'CONSTRAINT_VIOLATION');
    const state = (await runtime.getValue('$')) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(state, 'constructor')).toBe(false);
  });

  it('a model whose schema names them validates, and JSON Patch reaches them', async () => {
    const properties = Object.fromEntries(NAMES.map((n) => [n, { type: 'number' }]));
    const spec = { id: 'names', version: '1.0.0', schema: { type: 'object', properties } };
    expect((await validateSpec(spec)).valid).toBe(true);
    const calc = new CalcService(new MemoryStore());
    await calc.createModel(spec);
    await calc.patchModel(
      'names',
      NAMES.map((n, i) => ({ op: 'add', path: `/${n}`, value: i })),
    );
    expect(await calc.getState('names')).toEqual(Object.fromEntries(NAMES.map((n, i) => [n, i])));
  });
});

describe('property: no mutation of hostile shape touches a shared prototype', () => {
  const segment = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a', 'b'),
    fc.nat({ max: 3 }),
  );
  const address = fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .map((segs) => `$${segs.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('')}`);
  const value = fc
    .jsonValue({ maxDepth: 3 })
    .chain((v) =>
      fc.oneof(
        fc.constant(v),
        fc.constant(JSON.parse(`{"__proto__": ${JSON.stringify(v) ?? 'null'}}`) as unknown),
        fc.constant({ constructor: { prototype: v } }),
      ),
    );

  /** Whether `__proto__` is an own key somewhere inside a value. */
  const holdsProtoKey = (v: unknown): boolean =>
    typeof v === 'object' &&
    v !== null &&
    (Object.hasOwn(v, '__proto__') || Object.values(v).some(holdsProtoKey));

  it('the string "__proto__" as a value is data (found by the property below, seed 618479460)', async () => {
    const { runtime } = await live({
      schema: { type: 'object', properties: { a: { type: 'string' } } },
      derivations: [{ path: '$.n', expr: '$count($keys($))' }],
    });
    await runtime.mutate({ '$.a': '__proto__' });
    expect(await runtime.getValue('$.a')).toBe('__proto__');
    expect(prototypeKeys()).toEqual(cleanKeys);
  });

  it('every outcome is success or a coded refusal; __proto__ is always refused', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.n', expr: '$count($keys($))' }] });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(address, value, { maxKeys: 3 }), async (mutations) => {
        // __proto__ as a key (an address segment, or a member of a value); the string
        // "__proto__" as a value is data, stored like any other (fast-check draws it now and then)
        const hostile =
          Object.keys(mutations).some((a) => a.includes('.__proto__')) ||
          Object.values(mutations).some(holdsProtoKey);
        try {
          await runtime.mutate(mutations);
          expect(hostile).toBe(false);
        } catch (err) {
          expect(err).toBeInstanceOf(CalcError);
          if (hostile) expect((err as CalcError).code).toBe('SCHEMA_VIOLATION');
        }
        expect(prototypeKeys()).toEqual(cleanKeys);
      }),
      { numRuns: 300 },
    );
  });
});

describe('findUnsafeValue names where the unsafe value sits', () => {
  it('spells the path through objects and arrays, and the depth at which nesting stops', () => {
    const value = JSON.parse(
      '{"a": [{"ok": 1}, {"b": {"c": [0, {"__proto__": {"x": 1}}]}}], "d": {"e": 2}}',
    ) as unknown;
    expect(findUnsafeValue(value)).toEqual({
      kind: 'forbidden-key',
      path: ['a', 1, 'b', 'c', 1, '__proto__'],
    });
    let deep: unknown = { leaf: 1 };
    for (let i = 0; i < 6; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    const tooDeep = findUnsafeValue({ top: deep }, 4);
    expect(tooDeep).toEqual({ kind: 'too-deep', path: ['top', 'k', 0, 'k', 0] });
    expect(findUnsafeValue({ top: deep }, 7)).toBeUndefined();
  });
});
