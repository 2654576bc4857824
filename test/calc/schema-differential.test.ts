/**
 * The per-field checker (`checkValue`, still used for live meta limits) must agree with Ajv, which
 * checks the schema on writes: generated schema fragments of the keywords it handles and generated
 * values, same verdict (valid or not) from both.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkValue } from '../../src/calc/schema.js';
import { WriteSchemaChecker } from '../../src/calc/write-schema.js';

const scalar = fc.oneof(
  fc.integer({ min: -50, max: 50 }),
  fc.double({ min: -50, max: 50, noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom(0.3, 0.1, 1e21, -0, 2.5, 7),
  fc.constantFrom('abc', 'ABC', 'a1', '😀😀', ''),
  fc.boolean(),
  fc.constant(null),
);
const fragment = fc.record(
  {
    type: fc.constantFrom('number', 'integer', 'string', 'boolean', 'null'),
    minimum: fc.integer({ min: -20, max: 20 }),
    maximum: fc.integer({ min: -20, max: 20 }),
    exclusiveMinimum: fc.integer({ min: -20, max: 20 }),
    exclusiveMaximum: fc.integer({ min: -20, max: 20 }),
    multipleOf: fc.constantFrom(0.1, 0.5, 2, 3, 0.01, 1e-7),
    const: scalar,
    minLength: fc.nat(4),
    maxLength: fc.nat(6),
    pattern: fc.constantFrom('[a-z]+', 'a.*', '[A-Z]{3}', '\\d'),
    enum: fc.array(scalar, { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: [] },
);

function ajvVerdict(schema: Record<string, unknown>, value: unknown): boolean {
  const root = { type: 'object', properties: { x: schema } } as never;
  const out: never[] = [];
  new WriteSchemaChecker(root).check(['x'], (p) => (p.length === 0 ? { x: value } : value), out);
  return out.length === 0;
}

describe('checkValue agrees with Ajv on the keywords it checks', () => {
  it('same verdict for generated fragments and values', () => {
    fc.assert(
      fc.property(fragment, scalar, (schema, value) => {
        const fast = checkValue(schema, value, '$.x').length === 0;
        expect(fast).toBe(ajvVerdict(schema, value));
      }),
      { numRuns: 3000 },
    );
  });
});
