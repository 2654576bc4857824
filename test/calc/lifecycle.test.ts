import { describe, expect, it } from 'vitest';
import {
  CalcError,
  dryRun,
  evalExpression,
  modelInfo,
  prepareModel,
  restoreSnapshot,
  startRuntime,
  takeSnapshot,
} from '../../src/calc/index.js';

const spec = {
  id: 'cart',
  version: '1',
  schema: {
    type: 'object',
    properties: {
      qty: { type: 'integer', minimum: 0 },
      price: { type: 'number' },
      locked: { type: 'boolean', readOnly: true },
    },
  },
  derivations: [{ path: '$.total', expr: 'price * qty' }],
  metaDerivations: [{ path: '$.qty', property: 'maximum', expr: '10' }],
};

describe('model lifecycle', () => {
  it('the seed worked example: demo model, price 10 × qty 3 = 30', async () => {
    const { model } = await prepareModel({
      id: 'demo',
      version: '1',
      schema: {},
      derivations: [{ path: '$.total', expr: 'price * qty' }],
      constraints: [],
      metaDerivations: [],
      tests: [],
    });
    expect(modelInfo(model.spec)).toEqual({
      id: 'demo',
      version: '1',
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 0,
      effectCount: 0,
    });
    const rt = await startRuntime(model);
    const result = await rt.mutate({ '$.price': 10, '$.qty': 3 });
    expect(result.derivedUpdated).toEqual(['$.total']);
    expect(await rt.getState()).toEqual({ price: 10, qty: 3, total: 30 });
  });

  it('prepareModel refuses an invalid spec with every error listed', async () => {
    const err = await prepareModel({
      id: 'x',
      schema: {},
      derivations: [{ path: 'total', expr: '1 +' }],
    }).catch((e: unknown) => e);
    expect((err as CalcError).code).toBe('SPEC_INVALID');
    const locations = ((err as CalcError).details.errors as { location: string }[]).map((e) => e.location);
    expect(locations).toEqual(expect.arrayContaining(['derivations[0].path', 'derivations[0].expr']));
  });

  it('snapshot and restore round-trip; restore replaces caches verbatim and clears history', async () => {
    const rt = await startRuntime((await prepareModel(spec)).model);
    await rt.mutate({ '$.qty': 2, '$.price': 5 });
    const snap = takeSnapshot(rt);
    expect(snap).toEqual({
      modelId: 'cart',
      modelVersion: '1',
      baseDoc: { qty: 2, price: 5 },
      derivedCache: { '$.total': 10 },
      metaCache: { '$.qty#maximum': 10 },
    });
    await rt.mutate({ '$.qty': 7 });
    restoreSnapshot(rt, snap);
    expect(await rt.getState()).toEqual({ qty: 2, price: 5, total: 10 });
    expect(rt.historyTimestamps()).toEqual([]);
    expect(rt.explain('$')).toEqual([]);
  });

  it('restore checks leaves against the snapshot meta, allows read-only fields, and changes nothing on failure', async () => {
    const rt = await startRuntime((await prepareModel(spec)).model);
    await rt.mutate({ '$.qty': 2, '$.price': 5 });
    const good = { ...takeSnapshot(rt), baseDoc: { qty: 3, price: 5, locked: true } };
    restoreSnapshot(rt, good);
    expect(await rt.getValue('$.locked')).toBe(true);
    const before = rt.exportState();
    const bad = { ...takeSnapshot(rt), baseDoc: { qty: 50, price: 5 } };
    expect(() => restoreSnapshot(rt, bad)).toThrow(/Schema violation/);
    expect(rt.exportState()).toEqual(before);
    expect(() => restoreSnapshot(rt, { nope: 1 })).toThrow(CalcError);
  });

  it('dryRun computes without registering, and reports mutation errors', async () => {
    const { state } = await dryRun(spec, { '$.qty': 4, '$.price': 2.5 });
    expect(state).toEqual({ qty: 4, price: 2.5, total: 10 });
    await expect(dryRun(spec, { '$.qty': 11 })).rejects.toMatchObject({ code: 'SCHEMA_VIOLATION' });
  });

  it('evalExpression: value, undefined, compile/evaluation/library errors, library exports', async () => {
    expect(await evalExpression('a + 1', { a: 1 })).toEqual({ ok: true, undefined: false, result: 2 });
    expect(await evalExpression('missing', {})).toEqual({ ok: true, undefined: true, result: null });
    expect(await evalExpression('1 +')).toMatchObject({ ok: false, error: 'compile' });
    expect(await evalExpression('$error("boom")')).toMatchObject({
      ok: false,
      error: 'evaluation',
      message: expect.stringContaining('boom'),
    });
    expect(
      await evalExpression('$f(2)', {}, '( $f := function($x) { $x * $const.k }; ["f"] )', { k: 3 }),
    ).toMatchObject({
      ok: true,
      result: 6,
      libraryExports: [{ name: 'f', kind: 'function', arity: 1, origin: 'local' }],
    });
    expect(await evalExpression('1', {}, '( $x := price; ["x"] )')).toMatchObject({
      ok: false,
      error: 'library',
    });
  });
});
