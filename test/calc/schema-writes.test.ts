/**
 * Writes are held to the model's whole JSON Schema (Ajv, 2020-12) at every depth they touch, and
 * every object a write creates gets its defaults (issues 38 and 47).
 */
import { describe, expect, it } from 'vitest';
import { translatePatch } from '../../src/calc/patch.js';
import { validateSpec } from '../../src/calc/validator.js';
import type { JsonObject } from '../../src/calc/json.js';
import type { SchemaViolation } from '../../src/calc/schema.js';
import { WriteSchemaChecker } from '../../src/calc/write-schema.js';
import { live, rejectsWith } from './helpers/model.js';

const rows = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          price: { type: 'number', minimum: 0 },
          qty: { type: 'integer', maximum: 10 },
          net: { type: 'number' },
        },
      },
    },
    cust: { type: 'object', properties: { age: { type: 'integer', minimum: 18 } } },
    total: { type: 'number' },
  },
};
const derivations = [
  { path: '$.total', expr: '$sum(items.(price * qty))' },
  { path: '$.items[*].net', expr: '$parent.price * $parent.qty' },
];

async function violationsOf(promise: Promise<unknown>): Promise<unknown[]> {
  const err = await rejectsWith(promise, 'SCHEMA_VIOLATION');
  return err.details.violations as unknown[];
}

describe('whole-array and whole-object writes are checked inside', () => {
  it('refuses a row breaking its fields in a whole-array write, and changes nothing', async () => {
    const { runtime } = await live({ schema: rows, derivations });
    const totalBefore = await runtime.getValue('$.total');
    const v = await violationsOf(runtime.mutate({ '$.items': [{ price: -5, qty: 99 }] }));
    expect(v).toEqual([
      expect.objectContaining({ path: '$.items[0].price', keyword: 'minimum', expected: 0, actual: -5 }),
      expect.objectContaining({ path: '$.items[0].qty', keyword: 'maximum', expected: 10, actual: 99 }),
    ]);
    expect(await runtime.getValue('$.items')).toBeUndefined();
    expect(await runtime.getValue('$.total')).toEqual(totalBefore);
  });

  it('refuses a whole-object write breaking a nested minimum', async () => {
    const { runtime } = await live({ schema: rows });
    const v = await violationsOf(runtime.mutate({ '$.cust': { age: 3 } }));
    expect(v).toEqual([expect.objectContaining({ path: '$.cust.age', keyword: 'minimum', actual: 3 })]);
    await runtime.mutate({ '$.cust': { age: 30 } });
    expect(await runtime.getValue('$.cust.age')).toBe(30);
  });

  it('a field written beside its container, the field named first, is reported once (the container is checked whole)', async () => {
    // the roots are checked shallowest first: `$.cust` whole covers `$.cust.age`, in either order
    for (const writes of [
      { '$.cust.age': 4, '$.cust': { age: 3 } },
      { '$.cust': { age: 3 }, '$.cust.age': 4 },
    ]) {
      const { runtime } = await live({ schema: rows });
      await runtime.mutate({ '$.cust': { age: 30 } }); // the container exists: each write is its own root
      const v = await violationsOf(runtime.mutate(writes));
      expect(v).toEqual([expect.objectContaining({ path: '$.cust.age', keyword: 'minimum' })]);
      expect(await runtime.getValue('$.cust.age')).toBe(30);
    }
  });

  it('checks the values a JSON Patch writes', async () => {
    const { runtime } = await live({ schema: rows, derivations });
    await runtime.mutate({ '$.items': [{ price: 1, qty: 1 }] });
    const map = translatePatch(runtime.baseDocument(), [
      { op: 'add', path: '/items/-', value: { price: -1, qty: 1 } },
    ]);
    const v = await violationsOf(runtime.mutate(map));
    expect(v).toEqual([expect.objectContaining({ path: '$.items[1].price', keyword: 'minimum' })]);
  });
});

describe('keywords beyond the old subset are enforced on writes', () => {
  const cases: [string, Record<string, unknown>, string, unknown, unknown][] = [
    ['exclusiveMinimum', { type: 'number', exclusiveMinimum: 0 }, '$.x', 0, 1],
    ['multipleOf', { type: 'number', multipleOf: 5 }, '$.x', 7, 10],
    ['const', { const: 'EUR' }, '$.x', 'USD', 'EUR'],
    ['minItems', { type: 'array', minItems: 2 }, '$.x', [1], [1, 2]],
    ['uniqueItems', { type: 'array', uniqueItems: true }, '$.x', [1, 1], [1, 2]],
    ['required', { type: 'object', required: ['a'] }, '$.x', { b: 1 }, { a: 1 }],
    [
      'additionalProperties',
      { type: 'object', properties: { a: {} }, additionalProperties: false },
      '$.x',
      { a: 1, b: 2 },
      { a: 1 },
    ],
    ['format', { type: 'string', format: 'date' }, '$.x', '2024-13-45', '2024-12-31'],
  ];
  for (const [keyword, fragment, address, bad, good] of cases) {
    it(`${keyword}: refuses ${JSON.stringify(bad)}, accepts ${JSON.stringify(good)}`, async () => {
      const { runtime } = await live({ schema: { type: 'object', properties: { x: fragment } } });
      const v = await violationsOf(runtime.mutate({ [address]: bad }));
      expect(v.map((x) => (x as { keyword: string }).keyword)).toContain(keyword);
      await runtime.mutate({ [address]: good });
      expect(await runtime.getValue(address)).toEqual(good);
    });
  }

  it('an ancestor keyword holds for a field write (additionalProperties, maxItems past the end)', async () => {
    const schema = {
      type: 'object',
      properties: {
        o: { type: 'object', properties: { a: {} }, additionalProperties: false },
        l: { type: 'array', maxItems: 2, items: { type: 'number' } },
      },
    };
    const { runtime } = await live({ schema });
    expect(await violationsOf(runtime.mutate({ '$.o.zz': 1 }))).toEqual([
      expect.objectContaining({ path: '$.o.zz', keyword: 'additionalProperties' }),
    ]);
    await runtime.mutate({ '$.l': [1, 2] });
    expect(await violationsOf(runtime.mutate({ '$.l[2]': 3 }))).toEqual([
      expect.objectContaining({ path: '$.l', keyword: 'maxItems', expected: 2, actual: 3 }),
    ]);
  });

  it('required on a nested object is checked after defaults fill it; derived fields never count', async () => {
    const schema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['price', 'qty', 'net'],
            properties: { price: { type: 'number' }, qty: { type: 'integer' }, net: { type: 'number' } },
          },
        },
      },
    };
    const { runtime } = await live({
      schema,
      derivations: [{ path: '$.items[*].net', expr: '$parent.price * $parent.qty' }],
      defaultValues: [{ path: '$.items[*]', expr: '{"qty": 1}' }],
    });
    await runtime.mutate({ '$.items': [{ price: 10 }] });
    expect(await runtime.getValue('$.items[0]')).toEqual({ price: 10, qty: 1, net: 10 });
    const v = await violationsOf(runtime.mutate({ '$.items[1].qty': 2 }));
    expect(v).toEqual([
      expect.objectContaining({ path: '$.items[1]', keyword: 'required', expected: ['price', 'qty'] }),
    ]);
  });
});

describe('defaults apply to every object a write creates, once, before derivations', () => {
  const schema = rows;
  const defaultValues = [{ path: '$.items[*]', expr: '{"qty": 1}' }];

  it('a whole-array write', async () => {
    const { runtime } = await live({ schema, derivations, defaultValues });
    await runtime.mutate({ '$.items': [{ price: 10 }, { price: 2, qty: 3 }] });
    expect(await runtime.getValue('$.items')).toEqual([
      { price: 10, qty: 1, net: 10 },
      { price: 2, qty: 3, net: 6 },
    ]);
    expect(await runtime.getValue('$.total')).toBe(16);
  });

  it('a whole-row write, a JSON Patch add, and rows padded by a write past the end', async () => {
    const { runtime } = await live({ schema, derivations, defaultValues });
    await runtime.mutate({ '$.items[0]': { price: 4 } });
    expect(await runtime.getValue('$.items[0]')).toEqual({ price: 4, qty: 1, net: 4 });
    await runtime.mutate(
      translatePatch(runtime.baseDocument(), [{ op: 'add', path: '/items/0', value: { price: 5 } }]),
    );
    expect(await runtime.getValue('$.items[0]')).toEqual({ price: 5, qty: 1, net: 5 });
    await runtime.mutate({ '$.items[4].price': 1 });
    expect(await runtime.getValue('$.items[2]')).toEqual({ qty: 1, net: null });
    expect(await runtime.getValue('$.items[3]')).toEqual({ qty: 1, net: null });
    expect(await runtime.getValue('$.items[4]')).toEqual({ price: 1, qty: 1, net: 1 });
  });

  it('runs a rule once per created object', async () => {
    const { runtime } = await live({
      schema: { type: 'object', properties: { n: { type: 'number' } } },
      defaultValues: [{ path: '$.o', expr: '{"stamp": $count($keys($self)) }' }],
    });
    await runtime.mutate({ '$.o': { a: 1 } });
    expect(await runtime.getValue('$.o')).toEqual({ a: 1, stamp: 1 });
  });
});

describe('validate_spec refuses what writes cannot enforce', () => {
  const findings = async (schema: unknown): Promise<string[]> =>
    (await validateSpec({ id: 't', schema })).errors.map((e) => e.location);

  it('an unknown format, annotation-only content keywords (a top-level required is no finding)', async () => {
    expect(await findings({ type: 'object', required: ['a'], properties: { a: {} } })).toEqual([]);
    expect(
      await findings({ type: 'object', properties: { d: { type: 'string', format: 'no-such' } } }),
    ).toEqual(['schema.properties.d.format']);
    expect(
      await findings({ type: 'object', properties: { d: { type: 'string', contentMediaType: 'x/y' } } }),
    ).toEqual(['schema.properties.d.contentMediaType']);
    expect(
      await findings({
        type: 'object',
        properties: { o: { type: 'object', required: ['a'], properties: { a: {} } } },
      }),
    ).toEqual([]);
  });
});

describe('readOnly', () => {
  it('refuses a whole write that carries a read-only field, at the field', async () => {
    const schema = {
      type: 'object',
      properties: {
        rows: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string', readOnly: true }, v: {} } },
        },
      },
    };
    const { runtime } = await live({ schema });
    expect(await violationsOf(runtime.mutate({ '$.rows': [{ v: 1 }, { id: 'x', v: 2 }] }))).toEqual([
      expect.objectContaining({ path: '$.rows[1].id', keyword: 'readOnly' }),
    ]);
    await runtime.mutate({ '$.rows': [{ v: 1 }] });
    expect(await runtime.getValue('$.rows')).toEqual([{ v: 1 }]);
  });
});

describe('a top-level required', () => {
  const schema = { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: {} } };

  it('holds from creation: the $ rule or schema defaults must give every listed input a value', async () => {
    await expect(live({ schema })).rejects.toMatchObject({
      code: 'SPEC_INVALID',
      message: expect.stringContaining("'a', 'b'"),
    });
    const seeded = await live({ schema, defaultValues: [{ path: '$', expr: '{"a": 1}' }] }).catch(
      (e: unknown) => e,
    );
    expect(seeded).toMatchObject({ code: 'SPEC_INVALID', message: expect.stringContaining("'b'") });
    const { runtime } = await live({
      schema: { ...schema, properties: { ...schema.properties, b: { default: 'x' } } },
      defaultValues: [{ path: '$', expr: '{"a": 1}' }],
    });
    expect(await runtime.getState()).toEqual({ a: 1, b: 'x' });
  });

  it('a derived field listed as required needs no value at creation', async () => {
    const { runtime } = await live({
      schema: { type: 'object', required: ['a', 'total'], properties: { a: { default: 2 }, total: {} } },
      derivations: [{ path: '$.total', expr: 'a * 2' }],
    });
    expect(await runtime.getState()).toEqual({ a: 2, total: 4 });
  });
});

describe('compiled write checks are shared by subschema content (issue 45)', () => {
  it('writing 40 fields of one schema compiles one function for them, and still refuses a bad value', async () => {
    const properties: JsonObject = {};
    for (let k = 0; k < 40; k++) properties[`in${k}`] = { type: 'number', minimum: 0 };
    properties.label = { type: 'string', maxLength: 3 };
    const schema = { type: 'object', properties };
    const checker = new WriteSchemaChecker(schema);
    const before = checker.compiledFunctions();
    const doc: Record<string, unknown> = {};
    for (let k = 0; k < 40; k++) {
      doc[`in${k}`] = k;
      const out: SchemaViolation[] = [];
      checker.check([`in${k}`], (p) => (p.length === 0 ? doc : doc[p[0] as string]), out);
      expect(out).toEqual([]);
    }
    // the root's own keywords and the one field schema
    expect(checker.compiledFunctions() - before).toBeLessThanOrEqual(2);
    const { runtime } = await live({ schema, derivations: [{ path: '$.total', expr: 'in0 + in39' }] });
    await runtime.mutate({ '$.in7': 3, '$.in8': 4 });
    await rejectsWith(runtime.mutate({ '$.in9': -1 }), 'SCHEMA_VIOLATION');
    await rejectsWith(runtime.mutate({ '$.in10': 'x' }), 'SCHEMA_VIOLATION');
    await rejectsWith(runtime.mutate({ '$.label': 'long' }), 'SCHEMA_VIOLATION');
    expect(await runtime.getValue('$.in9')).toBeUndefined();
  });
});
