// The write checker is keyed by a schema's content up to 2,000 subschemas and by its model past
// that (write-schema.ts): the size test stops early, so it is held here to a plain full count.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { largerThan } from '../../src/calc/write-schema.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES } from '../../src/calc/schema-keywords.js';
import type { JsonObject } from '../../src/calc/json.js';

/** Every subschema, the root included, counted the slow way. */
function countAll(node: unknown): number {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return 0;
  const o = node as JsonObject;
  let n = 1;
  for (const k of SCHEMA_MAPS) {
    const map = o[k];
    if (map !== null && typeof map === 'object' && !Array.isArray(map))
      for (const sub of Object.values(map)) n += countAll(sub);
  }
  for (const k of SCHEMA_LISTS) {
    const list = o[k];
    if (Array.isArray(list)) for (const sub of list) n += countAll(sub);
  }
  for (const k of SCHEMA_SINGLES) n += countAll(o[k]);
  return n;
}

const { schema } = fc.letrec<{ schema: JsonObject }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<JsonObject>({ type: 'number' }, { type: 'string', default: 'x' }, {}),
    fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(fc.string({ maxLength: 3 }), tie('schema'), { maxKeys: 6 }),
    }),
    fc.record({ type: fc.constant('array'), items: tie('schema') }),
    fc.record({ anyOf: fc.array(tie('schema'), { maxLength: 3 }) }),
    // non-schema values where a subschema may stand (a `true` schema, a stray number) count nothing
    fc.record({
      properties: fc.dictionary(fc.string({ maxLength: 3 }), fc.constantFrom<unknown>(true, 1, null)),
    }) as fc.Arbitrary<JsonObject>,
  ),
}));

describe('the write checker’s schema size test', () => {
  it('answers as a full count would, at every limit', () => {
    fc.assert(
      fc.property(schema, fc.integer({ min: 0, max: 40 }), (s, limit) => {
        expect(largerThan(s, limit)).toBe(countAll(s) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('a 6,000-field schema is larger than 2,000 and one of 2,000 fields is not', () => {
    const fields = (n: number): JsonObject => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'number' }])),
    });
    expect(largerThan(fields(6000), 2000)).toBe(true);
    expect(largerThan(fields(1999), 2000)).toBe(false); // 1,999 fields and the root: 2,000
    expect(largerThan(fields(2000), 2000)).toBe(true);
  });
});
