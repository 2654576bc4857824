import { describe, expect, it } from 'vitest';
import { WILDCARD } from '../../src/calc/address.js';
import type { JsonObject } from '../../src/calc/json.js';
import { checkValue, deref, effectiveSchema, schemaAt, seedSchemaDefaults } from '../../src/calc/schema.js';
import { live, rejectsWith } from './helpers/model.js';

const ROOT: JsonObject = {
  $defs: {
    Line: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } },
    Alias: { $ref: '#/$defs/Line' },
    Loop: { $ref: '#/$defs/Loop' },
  },
  type: 'object',
  properties: {
    lines: { type: 'array', items: { $ref: '#/$defs/Alias' } },
    customer: { type: 'object', properties: { name: { type: 'string' } } },
    loop: { $ref: '#/$defs/Loop' },
    dangling: { $ref: '#/$defs/Nope' },
    either: { anyOf: [{ type: 'object', properties: { x: { type: 'number' } } }] },
    open: { type: 'object', additionalProperties: { type: 'number' } },
  },
};

describe('schema navigation (calc-spec §3)', () => {
  it('follows properties, items (index or [*]) and $ref chains', () => {
    expect(schemaAt(ROOT, ['customer', 'name'])).toEqual({ type: 'string' });
    expect(schemaAt(ROOT, ['lines', 3, 'qty'])).toEqual({ type: 'integer', minimum: 1 });
    expect(schemaAt(ROOT, ['lines', WILDCARD, 'qty'])).toEqual({ type: 'integer', minimum: 1 });
    expect(schemaAt(ROOT, ['lines', 0])).toEqual(ROOT.$defs && (ROOT.$defs as JsonObject).Line);
  });

  it('unknown paths, dangling or looping refs, and combinators are {}', () => {
    expect(schemaAt(ROOT, ['nope'])).toEqual({});
    expect(schemaAt(ROOT, ['customer', 'name', 'deeper'])).toEqual({});
    expect(schemaAt(ROOT, ['loop'])).toEqual({});
    expect(schemaAt(ROOT, ['dangling'])).toEqual({});
    expect(schemaAt(ROOT, ['either', 'x'])).toEqual({});
    expect(schemaAt(ROOT, ['open', 'k'])).toEqual({});
    expect(deref(ROOT, { $ref: 'http://elsewhere/x' })).toEqual({});
  });
});

describe('checkValue keyword subset (calc-spec §3)', () => {
  const at = '$.f';
  const kw = (schema: JsonObject, value: unknown): string[] =>
    checkValue(schema, value, at).map((v) => v.keyword);

  it('readOnly stops everything else', () => {
    expect(kw({ readOnly: true, type: 'string', minimum: 5 }, 1)).toEqual(['readOnly']);
    expect(kw({ readOnly: true, type: 'number' }, 1)).toEqual(['readOnly']);
    expect(checkValue({ readOnly: true }, 1, at, { ignoreReadOnly: true })).toEqual([]);
  });

  it('type stops the rest; only the string form is checked', () => {
    expect(kw({ type: 'number', minimum: 5, enum: [9] }, 'x')).toEqual(['type']);
    expect(kw({ type: ['number', 'null'] }, 'x')).toEqual([]);
    expect(kw({ type: 'string' }, null)).toEqual(['type']);
    expect(kw({ type: 'null' }, null)).toEqual([]);
    expect(kw({ type: 'integer' }, 2.0)).toEqual([]);
    expect(kw({ type: 'integer' }, 2.5)).toEqual(['type']);
    expect(kw({ type: 'object' }, [])).toEqual(['type']);
    expect(kw({ type: 'array' }, {})).toEqual(['type']);
    expect(kw({ type: 'boolean' }, 0)).toEqual(['type']);
  });

  it('minimum/maximum are inclusive', () => {
    const s = { minimum: 1, maximum: 3 };
    expect(kw(s, 1)).toEqual([]);
    expect(kw(s, 3)).toEqual([]);
    expect(kw(s, 0.999)).toEqual(['minimum']);
    expect(kw(s, 3.001)).toEqual(['maximum']);
    expect(kw(s, '9')).toEqual([]); // numeric keywords only for numbers
  });

  it('minLength/maxLength count code points, as JSON Schema (and Ajv) do', () => {
    expect(kw({ maxLength: 1 }, '😀')).toEqual([]); // one code point, two UTF-16 units
    expect(kw({ minLength: 2 }, '😀')).toEqual(['minLength']);
    expect(kw({ minLength: 3 }, 'ab')).toEqual(['minLength']);
    expect(kw({ maxLength: 2 }, 'ab')).toEqual([]);
  });

  it('pattern matches the whole string; a broken pattern is skipped; huge input is a violation', () => {
    expect(kw({ pattern: 'b' }, 'abc')).toEqual(['pattern']);
    expect(kw({ pattern: '[a-c]+' }, 'abc')).toEqual([]);
    expect(kw({ pattern: 'a|abc' }, 'abc')).toEqual([]);
    expect(kw({ pattern: '(' }, 'abc')).toEqual([]);
    expect(kw({ pattern: '.*' }, 'x'.repeat(100_001))).toEqual(['pattern']);
  });

  it('enum is deep-equal for every value type', () => {
    const s = { enum: [1, 'a', { k: [1, 2] }, null, true] };
    expect(kw(s, 1.0)).toEqual([]);
    expect(kw(s, { k: [1, 2] })).toEqual([]);
    expect(kw(s, { k: [2, 1] })).toEqual(['enum']);
    expect(kw(s, null)).toEqual([]);
    expect(kw(s, 'b')).toEqual(['enum']);
    expect(kw(s, false)).toEqual(['enum']);
  });

  it('after the stopping checks every failing keyword is reported', () => {
    expect(kw({ type: 'string', minLength: 5, pattern: '\\d+', enum: ['12345'] }, 'ab')).toEqual([
      'minLength',
      'pattern',
      'enum',
    ]);
    const [v] = checkValue({ maximum: 2 }, 5, '$.q');
    expect(v).toEqual({ path: '$.q', keyword: 'maximum', message: expect.stringContaining('$.q') });
  });

  it('checks multipleOf, exclusive*, const; leaves format and array/object keywords to Ajv', () => {
    const s = {
      required: true,
      multipleOf: 5,
      exclusiveMinimum: 10,
      exclusiveMaximum: 0,
      const: 9,
      format: 'email',
    };
    expect(kw(s, 3)).toEqual(['exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'const']);
    expect(kw({ minItems: 3, maxItems: 0 }, [1])).toEqual([]);
    expect(
      kw(
        {
          type: 'object',
          required: ['a'],
          additionalProperties: false,
          properties: { x: { type: 'string' } },
        },
        { x: 1, y: 2 },
      ),
    ).toEqual([]);
  });
});

describe('effective schema (calc-spec §5)', () => {
  it('overlays non-null meta values at exactly that address', () => {
    const meta = new Map<string, unknown>([
      ['$.lines[0].qty#maximum', 9],
      ['$.lines[0].qty#read_only', true],
      ['$.lines[0].qty#relevant', false],
      ['$.lines[0].qty#min_length', null],
      ['$.lines[*].qty#minimum', 100],
    ]);
    expect(effectiveSchema(ROOT, ['lines', 0, 'qty'], '$.lines[0].qty', meta)).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 9,
      readOnly: true,
      'x-valem-relevant': false,
    });
    expect(effectiveSchema(ROOT, ['lines', 1, 'qty'], '$.lines[1].qty', meta)).toEqual({
      type: 'integer',
      minimum: 1,
    });
  });

  it('does not change the static schema', () => {
    const before = structuredClone(ROOT);
    effectiveSchema(
      ROOT,
      ['customer', 'name'],
      '$.customer.name',
      new Map([['$.customer.name#pattern', 'x']]),
    );
    expect(ROOT).toEqual(before);
  });
});

describe('seedSchemaDefaults (calc-spec §3)', () => {
  it('fills absent or null, recursing through properties only', () => {
    const schema: JsonObject = {
      properties: {
        a: { default: 1 },
        b: { default: 2 },
        c: { properties: { d: { default: 'x' } } },
        list: { items: { properties: { e: { default: 1 } } } },
        dt: { default: 5 },
        nullDefault: { default: null },
      },
    };
    const doc: Record<string, unknown> = { a: 'kept', b: null };
    const writes: [string, unknown][] = [];
    const written = seedSchemaDefaults(
      schema,
      doc,
      (p) => p.join('.') === 'dt',
      (p, v) => writes.push([p.join('.'), v]),
    );
    expect(writes).toEqual([
      ['b', 2],
      ['c.d', 'x'],
    ]);
    expect(written).toEqual([['b'], ['c', 'd']]);
  });
});

describe('mutation-time validation (calc-spec §3)', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'number', minimum: 0 },
      s: { type: 'string', pattern: '[a-z]+' },
      o: { type: 'object', properties: { inner: { type: 'number' } } },
      ro: { type: 'string', readOnly: true },
    },
  };

  it('checks every key before any write and reports every violation', async () => {
    const { runtime } = await live({ schema });
    const err = await rejectsWith(
      runtime.mutate({ '$.n': -1, '$.s': 'ABC', '$.free': 1 }),
      'SCHEMA_VIOLATION',
    );
    expect(err.message).toBe('Schema violation: 2 problems');
    expect(
      (err.details.violations as { path: string; keyword: string }[]).map((v) => [v.path, v.keyword]),
    ).toEqual([
      ['$.n', 'minimum'],
      ['$.s', 'pattern'],
    ]);
    expect(await runtime.getState()).toEqual({});
  });

  it('a single violation names it in the message', async () => {
    const { runtime } = await live({ schema });
    const err = await rejectsWith(runtime.mutate({ '$.ro': 'x' }), 'SCHEMA_VIOLATION');
    expect(err.message).toBe('Schema violation: $.ro is read-only');
  });

  it('checks values nested in a whole-object write as a field write would; unknown paths are free', async () => {
    const { runtime } = await live({ schema });
    const err = await rejectsWith(runtime.mutate({ '$.o': { inner: 'not a number' } }), 'SCHEMA_VIOLATION');
    expect(err.details.violations).toMatchObject([{ path: '$.o.inner', keyword: 'type' }]);
    await runtime.mutate({ '$.whatever.deep': [1] });
    expect(await runtime.getValue('$.whatever.deep')).toEqual([1]);
    await rejectsWith(runtime.mutate({ '$.o.inner': 'still not' }), 'SCHEMA_VIOLATION');
  });

  it('getEffectiveSchema answers {} for unknown paths and refuses non-canonical ones', async () => {
    const { runtime } = await live({ schema });
    expect(runtime.getEffectiveSchema('$.nope.deeper')).toEqual({});
    expect(runtime.getEffectiveSchema('$.n')).toEqual({ type: 'number', minimum: 0 });
    expect(() => runtime.getEffectiveSchema('n')).toThrow(/\$\.n/);
  });
});
