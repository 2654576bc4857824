import { describe, expect, it } from 'vitest';
import { ModelRuntime } from '../../src/calc/runtime.js';
import { live } from './helpers/model.js';

const SPEC = {
  derivations: [
    { path: '$.eager', expr: 'a + 1' },
    { path: '$.lazy', expr: 'a * 100', evaluation: 'lazy' },
  ],
};

describe('lazy derivations (calc-spec §4 "Reads")', () => {
  it('are not evaluated during a cycle: no derivedUpdated entry, no trace, cache untouched', async () => {
    const { runtime } = await live(SPEC);
    await runtime.mutate({ '$.a': 1 });
    await runtime.getValue('$.lazy'); // settle
    const r = await runtime.mutate({ '$.a': 2 });
    expect(r.derivedUpdated).toEqual(['$.eager']);
    expect(r.traces.map((t) => t.targetPath)).toEqual(['$.eager']);
    expect(runtime.exportState().derived['$.lazy']).toBe(100); // still the old value: not evaluated
  });

  it('are evaluated on read (getValue) against the current state', async () => {
    const { runtime } = await live(SPEC);
    await runtime.mutate({ '$.a': 2 });
    expect(await runtime.getValue('$.lazy')).toBe(200);
    expect(runtime.exportState().derived['$.lazy']).toBe(200);
    await runtime.mutate({ '$.a': 3 });
    expect(await runtime.getValue('$.lazy')).toBe(300);
  });

  it('are evaluated by a full-state read', async () => {
    const { runtime } = await live(SPEC);
    await runtime.mutate({ '$.a': 5 });
    expect(await runtime.getState()).toEqual({ a: 5, eager: 6, lazy: 500 });
  });

  it('go stale after loadState and are recomputed on read', async () => {
    const { runtime, model } = await live(SPEC);
    await runtime.mutate({ '$.a': 5 });
    const copy = new ModelRuntime(model);
    copy.loadState({ base: { a: 7 }, derived: { '$.eager': 8, '$.lazy': 1 }, meta: {} });
    expect(await copy.getValue('$.lazy')).toBe(700);
    expect(await copy.getValue('$.eager')).toBe(8);
  });

  it('are not evaluated by the create-time recompute (eager only), only on first read', async () => {
    const { runtime } = await live({
      ...SPEC,
      constants: { k: 1 },
      defaultValues: [{ path: '$', expr: '{"a": 1}' }],
    });
    expect(runtime.exportState().derived).toEqual({ '$.eager': 2 });
    expect(await runtime.getValue('$.lazy')).toBe(100);
  });

  it('are computed in the cycle when an eager rule reads them (never from a stale cache)', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.l', expr: 'a * 2', evaluation: 'lazy' },
        { path: '$.e', expr: 'l + 1' },
      ],
    });
    await runtime.mutate({ '$.a': 1 });
    expect(await runtime.getState()).toEqual({ a: 1, l: 2, e: 3 });
    await runtime.mutate({ '$.a': 5 });
    expect(await runtime.getState()).toEqual({ a: 5, l: 10, e: 11 });
  });

  it('read by a constraint, through another lazy rule, are fresh when the constraint decides', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.l2', expr: 'l1 + 1', evaluation: 'lazy' },
        { path: '$.l1', expr: 'a * 2', evaluation: 'lazy' },
      ],
      constraints: [{ id: 'small', expr: 'l2 < 20', message: 'too big', policy: 'rollback' }],
    });
    await runtime.mutate({ '$.a': 1 });
    await expect(runtime.mutate({ '$.a': 50 })).rejects.toMatchObject({ code: 'CONSTRAINT_VIOLATION' });
    expect(await runtime.getState()).toEqual({ a: 1, l1: 2, l2: 3 });
  });

  it('refresh on read in evaluation order, so a lazy rule reading a later-declared lazy rule is fresh', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.l2', expr: 'l1 + 1', evaluation: 'lazy' },
        { path: '$.l1', expr: 'a * 2', evaluation: 'lazy' },
      ],
    });
    await runtime.mutate({ '$.a': 1 });
    expect(await runtime.getState()).toEqual({ a: 1, l1: 2, l2: 3 });
    await runtime.mutate({ '$.a': 4 });
    expect(await runtime.getState()).toEqual({ a: 4, l1: 8, l2: 9 });
  });
});
