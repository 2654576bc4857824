import { describe, expect, it } from 'vitest';
import type { ModelRuntime } from '../../src/calc/runtime.js';
import { manualClock } from '../helpers/time.js';
import { live, rejectsWith } from './helpers/model.js';

/** A spec that touches every cache a cycle can change: rows, aggregates, meta, lazy, defaults. */
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
      note: { type: 'string', maxLength: 5 },
    },
  },
  defaultValues: [
    { path: '$', expr: '{"items": [{"price": 2, "qty": 1}], "cap": 100}' },
    { path: '$.items[*]', expr: '{"qty": 1, "added": true}' },
    { path: '$.meta', expr: '{"created": true}' },
  ],
  derivations: [
    { path: '$.items[*].lineTotal', expr: '$parent.price * $parent.qty' },
    { path: '$.total', expr: '$sum(items.lineTotal)' },
    { path: '$.summary', expr: '"n=" & $string($count(items))', evaluation: 'lazy' },
  ],
  metaDerivations: [
    { path: '$.items[*].qty', property: 'maximum', expr: 'price * 10' },
    { path: '$.note', property: 'readOnly', expr: 'total > 50' },
  ],
  constraints: [{ id: 'cap', expr: 'total <= cap', message: 'total over cap', policy: 'rollback' }],
};

interface Snapshot {
  state: unknown;
  exported: unknown;
  history: number[];
}

async function snapshot(runtime: ModelRuntime): Promise<Snapshot> {
  // exportState first: getState evaluates stale lazy values, which would change the caches
  const exported = runtime.exportState();
  return { exported, state: await runtime.getState(), history: runtime.historyTimestamps() };
}

async function prepared(): Promise<ModelRuntime> {
  const clock = manualClock();
  const { runtime } = await live(SPEC, { now: clock.now });
  await runtime.mutate({ '$.items[1].price': 3 });
  await runtime.getState(); // settle the lazy value so before/after compare like for like
  clock.advance(10); // a refused cycle that slipped into history would carry a new timestamp
  return runtime;
}

async function expectUnchanged(runtime: ModelRuntime, before: Snapshot): Promise<void> {
  expect(runtime.exportState()).toEqual(before.exported);
  expect(await runtime.getState()).toEqual(before.state);
  expect(runtime.historyTimestamps()).toEqual(before.history);
}

describe('a rejected mutation leaves no trace (calc-spec §6, §10)', () => {
  it('the prepared model is what the test thinks it is', async () => {
    const runtime = await prepared();
    expect(await runtime.getState()).toEqual({
      cap: 100,
      items: [
        { price: 2, qty: 1, lineTotal: 2 },
        { price: 3, qty: 1, added: true, lineTotal: 3 },
      ],
      total: 5,
      summary: 'n=2',
    });
    expect(runtime.exportState().meta).toEqual({
      '$.items[0].qty#maximum': 20,
      '$.items[1].qty#maximum': 30,
      '$.note#read_only': false,
    });
    expect(runtime.historyTimestamps()).toHaveLength(2);
  });

  it('a rollback constraint reverts base, derived rows, meta, defaults and history; its traces stay in explain', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    const tracesBefore = runtime.explain('$').length;
    const err = await rejectsWith(
      runtime.mutate({ '$.items[2].price': 50, '$.items[2].qty': 3, '$.meta.x': 1, '$.cap': 99 }),
      'CONSTRAINT_VIOLATION',
    );
    expect(err.details.violations).toEqual([
      { constraintId: 'cap', message: 'total over cap', policy: 'rollback' },
    ]);
    await expectUnchanged(runtime, before);

    // the rejected cycle's traces are kept (calc-spec §6)
    const row = runtime.explain('$.items[2].lineTotal');
    expect(row.map((t) => t.result)).toEqual([150]);
    expect(runtime.explain('$.total').at(-1)?.result).toBe(155);
    const cap = runtime.explain('$constraint:cap');
    expect(cap.slice(-2).map((t) => [t.constraintPassed, t.expression])).toEqual([
      [false, 'total <= cap'],
      [false, ''],
    ]);
    expect(runtime.explain('$').length).toBeGreaterThan(tracesBefore);
  });

  it('after a rollback the next cycle works from the old state (no ghost rows or stale caches)', async () => {
    const runtime = await prepared();
    await rejectsWith(
      runtime.mutate({ '$.items[2].price': 50, '$.items[2].qty': 3 }),
      'CONSTRAINT_VIOLATION',
    );
    const r = await runtime.mutate({ '$.items[0].qty': 2 });
    expect(r.derivedUpdated).toEqual(['$.items[0].lineTotal', '$.total']);
    expect(await runtime.getValue('$.total')).toBe(7);
    expect(await runtime.getValue('$.items[2]')).toBeUndefined();
    expect(Object.keys(runtime.exportState().derived).sort()).toEqual([
      '$.items[0].lineTotal',
      '$.items[1].lineTotal',
      '$.summary',
      '$.total',
    ]);
    expect(Object.keys(runtime.exportState().meta).sort()).toEqual([
      '$.items[0].qty#maximum',
      '$.items[1].qty#maximum',
      '$.note#read_only',
    ]);
  });

  it('a rollback that shrinks the array restores the vanished rows and their derived values', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    // shrinking to one expensive row: total 200 > cap 100 → rollback
    await rejectsWith(runtime.mutate({ '$.items': [{ price: 200, qty: 1 }] }), 'CONSTRAINT_VIOLATION');
    await expectUnchanged(runtime, before);
    expect(await runtime.getValue('$.items[1].lineTotal')).toBe(3);
  });

  it('a schema violation changes nothing and leaves no trace', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    const tracesBefore = runtime.explain('$').length;
    const err = await rejectsWith(
      runtime.mutate({ '$.items[0].price': 9, '$.items[1].qty': -1 }),
      'SCHEMA_VIOLATION',
    );
    expect(err.details.violations).toEqual([
      expect.objectContaining({ path: '$.items[1].qty', keyword: 'minimum' }),
    ]);
    await expectUnchanged(runtime, before);
    expect(runtime.explain('$').length).toBe(tracesBefore);
  });

  it('a meta-overlay violation (maximum from a [*] meta) changes nothing', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    await rejectsWith(runtime.mutate({ '$.items[0].qty': 21 }), 'SCHEMA_VIOLATION');
    await expectUnchanged(runtime, before);
  });

  it('a derived-target write changes nothing', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    const err = await rejectsWith(runtime.mutate({ '$.cap': 7, '$.total': 1 }), 'DERIVED_TARGET_WRITE');
    expect(err.status).toBe(400);
    expect(err.message).toContain('$.total');
    await expectUnchanged(runtime, before);
  });

  it('an index-limit error changes nothing', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    const err = await rejectsWith(runtime.mutate({ '$.cap': 7, '$.items[1000001].price': 1 }), 'INDEX_LIMIT');
    expect(err.status).toBe(422);
    await expectUnchanged(runtime, before);
  });

  it('a write through a scalar, after other keys were written, is rolled back', async () => {
    const runtime = await prepared();
    const before = await snapshot(runtime);
    await rejectsWith(runtime.mutate({ '$.fresh.deep': 1, '$.cap.x': 1 }), 'INVALID_ARGUMENT');
    await expectUnchanged(runtime, before);
  });
});
