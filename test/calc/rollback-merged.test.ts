/**
 * A refused cycle must revert the merged document itself, not only base and derived: getState()
 * rebuilds its answer from base + derived, so it cannot see a merged document left un-reverted.
 * These checks read the merged document directly: every address through getValue (which reads it
 * for inputs and rows), and stateAt(latest), which starts from a copy of it.
 */
import { describe, expect, it } from 'vitest';
import type { ModelRuntime } from '../../src/calc/runtime.js';
import { live, rejectsWith } from './helpers/model.js';

const SPEC = {
  schema: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { qty: { type: 'number', minimum: 0 }, price: { type: 'number' } },
        },
      },
    },
  },
  defaultValues: [{ path: '$', expr: '{"items": [{"price": 2, "qty": 1}], "cap": 100}' }],
  derivations: [
    { path: '$.items[*].lineTotal', expr: '$parent.price * $parent.qty' },
    { path: '$.total', expr: '$sum(items.lineTotal)' },
  ],
  constraints: [{ id: 'cap', expr: 'total <= cap', message: 'total over cap', policy: 'rollback' }],
};

const ADDRESSES = [
  '$.cap',
  '$.items',
  '$.items[0]',
  '$.items[0].price',
  '$.items[0].qty',
  '$.items[1]',
  '$.items[1].price',
  '$.fresh',
  '$.total',
];

/** The merged document as the runtime holds it (not rebuilt from base + derived). */
async function merged(runtime: ModelRuntime): Promise<unknown> {
  const values = new Map<string, unknown>();
  for (const a of ADDRESSES) values.set(a, await runtime.getValue(a));
  return { values: Object.fromEntries(values), latest: await runtime.stateAt(Number.MAX_SAFE_INTEGER) };
}

describe('a refused cycle reverts the merged document', () => {
  it.each([
    ['a rollback constraint', { '$.items[0].price': 500, '$.cap': 99, '$.fresh': 1 }, 'CONSTRAINT_VIOLATION'],
    ['a new row over the cap', { '$.items[1].price': 500, '$.items[1].qty': 1 }, 'CONSTRAINT_VIOLATION'],
    ['a schema violation after other writes', { '$.cap': 5, '$.items[0].qty': -1 }, 'SCHEMA_VIOLATION'],
    ['a write through a scalar after other keys', { '$.fresh': 1, '$.cap.x': 1 }, 'INVALID_ARGUMENT'],
  ] as const)('%s', async (_label, write, code) => {
    const { runtime } = await live(SPEC);
    const before = await merged(runtime);
    expect(before).toMatchObject({ values: { '$.cap': 100, '$.items[0].price': 2, '$.total': 2 } });
    await rejectsWith(runtime.mutate(write), code);
    expect(await merged(runtime)).toEqual(before);
    // and the next cycle builds on the reverted document
    await runtime.mutate({ '$.items[0].qty': 2 });
    expect(await runtime.getValue('$.total')).toBe(4);
    expect(await runtime.getValue('$.fresh')).toBeUndefined();
  });
});
