/**
 * validate_spec's compile check compiles a condensed schema (one field per distinct shape in each
 * `properties` map; schema-compile-check.ts). It must refuse exactly what compiling the whole
 * prepared schema refused: generated schemas of many fields drawn from a pool that holds shapes
 * Ajv cannot compile (RE2-only patterns in `patternProperties` and `propertyNames`, unresolved
 * references, repeated anchors), same verdict both ways; and through `validateSpec`, a broken field
 * among thousands of good ones is still refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { condensedForCompile } from '../../src/calc/schema-compile-check.js';
import { newDraft2020Ajv } from '../../src/calc/schema-cache.js';
import { validateSpec } from '../../src/calc/validator.js';
import { WriteSchemaPreparation } from '../../src/calc/write-schema.js';
import type { JsonObject } from '../../src/calc/json.js';

/** Field shapes, good and broken; `$defs` below defines `Row` only. */
const FIELDS: JsonObject[] = [
  { type: 'number' },
  { type: 'number', minimum: 0 },
  { type: 'string', maxLength: 3, pattern: '[a-z]+' },
  { type: 'integer', multipleOf: 2 },
  { enum: [1, 'a', null] },
  { $ref: '#/$defs/Row' },
  { $ref: '#/$defs/Missing' },
  { type: 'object', patternProperties: { '^x': { type: 'number' } } },
  { type: 'object', patternProperties: { '(?=a)': { type: 'number' } } },
  { type: 'object', propertyNames: { pattern: '(?!x)' } },
  { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, c: { $anchor: 'inner' } } },
  { $anchor: 'one', type: 'number' },
  { $anchor: 'two', type: 'string' },
  { type: 'array', items: { type: 'object', properties: { p: { type: 'number' }, q: { type: 'number' } } } },
  { type: 'object', properties: { deep: { type: 'object', properties: { z: { $ref: '#/$defs/Nope' } } } } },
  { allOf: [{ type: 'number' }, { minimum: 1 }] },
];
const annotations = fc.record(
  {
    title: fc.string({ maxLength: 4 }),
    description: fc.constantFrom('a', 'b'),
    default: fc.oneof(fc.integer(), fc.constant({ $anchor: 'data' }), fc.string({ maxLength: 3 })),
    examples: fc.array(fc.integer(), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const field = fc
  .tuple(fc.nat(FIELDS.length - 1), annotations)
  .map(([i, notes]): JsonObject => ({ ...FIELDS[i]!, ...notes }));
const schema = fc
  .tuple(fc.array(field, { minLength: 1, maxLength: 14 }), fc.boolean(), fc.boolean())
  .map(([fields, closed, nested]) => {
    const properties: JsonObject = {};
    fields.forEach((f, i) => (properties[`f${i}`] = f));
    const root: JsonObject = {
      type: 'object',
      properties: nested ? { inner: { type: 'object', properties } } : properties,
      $defs: { Row: { type: 'object', properties: { r: { type: 'number' } }, required: ['r'] } },
    };
    if (closed) root.additionalProperties = false;
    return root;
  });

function compiles(schema: JsonObject): boolean {
  try {
    newDraft2020Ajv().compile(schema as object);
    return true;
  } catch {
    return false;
  }
}

describe("validate_spec's condensed compile check", () => {
  it('refuses exactly what the whole prepared schema refused (generated schemas)', () => {
    let refused = 0;
    fc.assert(
      fc.property(schema, (s) => {
        const prepared = new WriteSchemaPreparation(s, () => []).prepare(s, true);
        const whole = compiles(prepared);
        if (!whole) refused++;
        expect(compiles(condensedForCompile(prepared))).toBe(whole);
      }),
      { numRuns: 300 },
    );
    // the pool is broken often enough that both verdicts were exercised
    expect(refused).toBeGreaterThan(25);
  });

  it('keeps one field per distinct shape, annotations aside, and every field naming an identifier', () => {
    const properties: JsonObject = {};
    for (let k = 0; k < 1000; k++) properties[`n${k}`] = { type: 'number', default: k, title: `n ${k}` };
    properties.a1 = { $anchor: 'x', type: 'number' };
    properties.a2 = { $anchor: 'x', type: 'number' };
    properties.s = { type: 'string' };
    const condensed = condensedForCompile({ type: 'object', properties });
    expect(Object.keys(condensed.properties as JsonObject)).toEqual(['n0', 'a1', 'a2', 's']);
    expect(compiles(condensed)).toBe(false); // the repeated anchor is still there to refuse
  });

  it('a broken field among thousands of good ones is still refused by validateSpec', async () => {
    const brokenFields: JsonObject[] = [
      // only Ajv's compile finds these two (the schema walk reads `pattern` keywords only)
      { type: 'object', patternProperties: { '(?=a)': { type: 'number' } } },
      { type: 'object', properties: { a: { $anchor: 'x' }, b: { $anchor: 'x' } } },
    ];
    for (const broken of brokenFields) {
      const properties: JsonObject = {};
      for (let k = 0; k < 5000; k++) properties[`in${k}`] = { type: 'number', default: k % 7 };
      properties.last = broken;
      const report = await validateSpec({
        id: 'big',
        version: '1.0.0',
        schema: { type: 'object', properties },
        derivations: [{ path: '$.total', expr: 'in1 + in2' }],
      });
      expect(report.valid).toBe(false);
      expect(report.errors.some((e) => e.location.startsWith('schema'))).toBe(true);
    }
  });
});
