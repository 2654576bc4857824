import { describe, expect, it } from 'vitest';
import { ModelRuntime } from '../../src/calc/runtime.js';
import { manualClock } from '../helpers/time.js';
import { compile, live, rejectsWith } from './helpers/model.js';

const SPEC = {
  derivations: [
    { path: '$.items[*].double', expr: '$parent.v * 2' },
    { path: '$.total', expr: '$sum(items.double)' },
    { path: '$.label', expr: '"x=" & $string(x)' },
  ],
  constraints: [{ id: 'cap', expr: 'x < 100', message: 'x too big', policy: 'rollback' }],
};

describe('history (calc-spec §11)', () => {
  it('grows by one entry per committed cycle, never for a rejected one', async () => {
    const { runtime } = await live(SPEC);
    expect(runtime.historyTimestamps()).toEqual([]);
    await runtime.mutate({ '$.x': 1 });
    expect(runtime.historyTimestamps()).toHaveLength(1);
    await rejectsWith(runtime.mutate({ '$.x': 500 }), 'CONSTRAINT_VIOLATION');
    await rejectsWith(runtime.mutate({ '$.label': 'no' }), 'DERIVED_TARGET_WRITE');
    expect(runtime.historyTimestamps()).toHaveLength(1);
    await runtime.mutate({ '$.x': 2 });
    const ts = runtime.historyTimestamps();
    expect(ts).toHaveLength(2);
    expect(ts[1]!).toBeGreaterThanOrEqual(ts[0]!);
  });

  it('stateAt(t) returns the merged state as of each cycle (grow, shrink, overwrite)', async () => {
    const clock = manualClock();
    const { runtime } = await live(SPEC, { now: clock.now });
    const states: unknown[] = [];
    const steps: Record<string, unknown>[] = [
      { '$.x': 1, '$.items': [{ v: 1 }] },
      { '$.items[1]': { v: 5 }, '$.x': 2 },
      { '$.items': [], '$.nested.deep': 'a' },
      { '$.x': 3, '$.nested': { other: true } },
      { '$.items[2].v': 7 },
    ];
    for (const step of steps) {
      clock.advance(10);
      await runtime.mutate(step);
      states.push(await runtime.getState());
    }
    const ts = runtime.historyTimestamps();
    expect(ts).toHaveLength(steps.length);
    expect(new Set(ts).size).toBe(steps.length);
    // sanity: the recorded states differ, so each check below can fail
    expect(states[0]).toEqual({ x: 1, items: [{ v: 1, double: 2 }], total: 2, label: 'x=1' });
    expect(states[2]).toEqual({ x: 2, items: [], total: null, label: 'x=2', nested: { deep: 'a' } });
    for (let i = 0; i < ts.length; i++) {
      expect(await runtime.stateAt(ts[i]!)).toEqual(states[i]);
      // a time between two cycles answers the earlier one
      if (i + 1 < ts.length) expect(await runtime.stateAt(ts[i]! + 1)).toEqual(states[i]);
    }
    expect(await runtime.stateAt(clock.now() + 60_000)).toEqual(states.at(-1));
    // reading history does not change the live state
    expect(await runtime.getState()).toEqual(states.at(-1));
  });

  it('stateAt before the first cycle is HISTORY_NOT_FOUND', async () => {
    const { runtime } = await live(SPEC);
    await runtime.mutate({ '$.x': 1 });
    const err = await rejectsWith(runtime.stateAt(runtime.historyTimestamps()[0]! - 1), 'HISTORY_NOT_FOUND');
    expect(err.status).toBe(404);
  });

  it('keeps at most historyCapacity entries (oldest dropped)', async () => {
    const model = await compile(SPEC);
    const clock = manualClock();
    const runtime = new ModelRuntime(model, { historyCapacity: 2, now: clock.now });
    await runtime.initialize({ recomputeAll: true });
    for (let x = 1; x <= 3; x++) {
      clock.advance(10);
      await runtime.mutate({ '$.x': x });
    }
    const ts = runtime.historyTimestamps();
    expect(ts).toHaveLength(2);
    expect((await runtime.stateAt(ts[0]!)).x).toBe(2);
    await rejectsWith(runtime.stateAt(ts[0]! - 1), 'HISTORY_NOT_FOUND');
  });
});

describe('exportState / loadState (calc-spec §12)', () => {
  it('round-trips into a fresh runtime verbatim; history travels with the state, traces do not', async () => {
    const clock = manualClock();
    const { runtime, model } = await live(SPEC, { now: clock.now });
    await runtime.mutate({ '$.x': 4, '$.items': [{ v: 1 }, { v: 2 }] });
    const first = runtime.historyTimestamps().slice(-1)[0]!;
    clock.advance(10);
    await runtime.mutate({ '$.x': 5 });
    const exported = runtime.exportState();
    expect({ ...exported, history: undefined }).toEqual({
      base: { x: 5, items: [{ v: 1 }, { v: 2 }] },
      derived: { '$.items[0].double': 2, '$.items[1].double': 4, '$.total': 6, '$.label': 'x=5' },
      meta: {},
      history: undefined,
    });
    const copy = new ModelRuntime(model);
    copy.loadState(JSON.parse(JSON.stringify(exported)) as typeof exported); // as a store keeps it
    expect(await copy.getState()).toEqual(await runtime.getState());
    expect(copy.historyTimestamps()).toEqual(runtime.historyTimestamps());
    expect(await copy.stateAt(first)).toEqual(await runtime.stateAt(first));
    expect(await copy.stateAt(first)).toMatchObject({ x: 4, label: 'x=4' });
    expect(copy.explain('$')).toEqual([]);
    const withoutHistory = new ModelRuntime(model);
    withoutHistory.loadState({ ...exported, history: undefined });
    expect(withoutHistory.historyTimestamps()).toEqual([]);
    await copy.mutate({ '$.x': 4 });
    // the restored runtime keeps working, and shrinking drops restored rows
    await copy.mutate({ '$.items': [{ v: 10 }] });
    expect(copy.exportState().derived).toEqual({ '$.items[0].double': 20, '$.total': 20, '$.label': 'x=4' });
  });

  it("after loadState a [*] meta re-evaluation keeps other metas' keys", async () => {
    const { runtime, model } = await live({
      metaDerivations: [
        { path: '$.limit', property: 'maximum', expr: 'cap' },
        { path: '$.items[*].qty', property: 'maximum', expr: 'stock' },
      ],
    });
    await runtime.mutate({ '$.cap': 10, '$.items': [{ qty: 1, stock: 5 }] });
    const copy = new ModelRuntime(model);
    copy.loadState(runtime.exportState());
    expect(copy.exportState().meta).toEqual({ '$.limit#maximum': 10, '$.items[0].qty#maximum': 5 });
    await copy.mutate({ '$.items[0].stock': 6 });
    expect(copy.exportState().meta).toEqual({ '$.limit#maximum': 10, '$.items[0].qty#maximum': 6 });
    expect(copy.getEffectiveSchema('$.limit')).toEqual({ maximum: 10 });
  });

  it('loadState takes caches verbatim (no recompute)', async () => {
    const { runtime } = await live(SPEC);
    runtime.loadState({ base: { x: 1 }, derived: { '$.label': 'stale' }, meta: {} });
    expect(await runtime.getValue('$.label')).toBe('stale');
    await runtime.mutate({ '$.x': 2 });
    expect(await runtime.getValue('$.label')).toBe('x=2');
  });
});
