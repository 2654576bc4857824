/**
 * `$index` in `[*]` derivations: a row's 0-based position, so a rule can read a fixed offset of
 * rows (`$$.items[$index - 1].x`) or index a series a whole-table fold built (a running balance).
 * Such a rule depends on where its row stands: every change it reads recomputes every row.
 */
import { describe, expect, it } from 'vitest';
import { explainValue } from '../../src/calc/card-state.js';
import { modelGraph } from '../../src/calc/graph-export.js';
import { live } from './helpers/model.js';

const OFFSET = {
  derivations: [
    { path: '$.items[*].n', expr: '$index + 1' },
    { path: '$.items[*].prev', expr: '$index >= 1 ? $$.items[$index - 1].amount : 0' },
  ],
};

/** A running balance: one fold over the rows builds the series, each row reads its own entry. */
const BALANCE = {
  derivations: [
    {
      path: '$.balances',
      expr: '$reduce(items, function($acc, $row) { $append($acc, ($count($acc) = 0 ? opening : $acc[-1]) + $row.amount) }, [])',
    },
    { path: '$.items[*].balance', expr: '$$.balances[$index]' },
    { path: '$.items[*].doubled', expr: '$parent.balance * 2' },
  ],
};

const rows = (...amounts: number[]) => amounts.map((amount) => ({ amount }));

describe('$index in [*] derivations', () => {
  it('binds each row its position, and a fixed offset reads the row before (0 before the first)', async () => {
    const { runtime } = await live(OFFSET);
    await runtime.mutate({ '$.items': rows(5, 7, 9) });
    const state = await runtime.getState();
    expect(state.items).toEqual([
      { amount: 5, n: 1, prev: 0 },
      { amount: 7, n: 2, prev: 5 },
      { amount: 9, n: 3, prev: 7 },
    ]);
  });

  it('a write in one row recomputes the rows that read it at an offset', async () => {
    const { runtime } = await live(OFFSET);
    await runtime.mutate({ '$.items': rows(5, 7, 9) });
    const r = await runtime.mutate({ '$.items[1].amount': 70 });
    expect(r.derivedUpdated).toContain('$.items[2].prev');
    expect(await runtime.getValue('$.items[2].prev')).toBe(70);
    expect(await runtime.getValue('$.items[1].prev')).toBe(5);
  });

  it('a row inserted at the front renumbers the rows after it (no value kept from a moved row)', async () => {
    const { runtime } = await live(OFFSET);
    await runtime.mutate({ '$.items': rows(5, 7) });
    await runtime.mutate({ '$.items': rows(1, 5, 7) });
    const state = await runtime.getState();
    expect((state.items as { n: number; prev: number }[]).map((r) => [r.n, r.prev])).toEqual([
      [1, 0],
      [2, 1],
      [3, 5],
    ]);
  });

  it('a running balance folds over the rows; a middle row write recomputes every row after it', async () => {
    const { runtime } = await live(BALANCE);
    await runtime.mutate({ '$.opening': 100, '$.items': rows(10, -20, 5, 1) });
    const balances = async () =>
      ((await runtime.getState()).items as { balance: number }[]).map((r) => r.balance);
    expect(await balances()).toEqual([110, 90, 95, 96]);
    const r = await runtime.mutate({ '$.items[1].amount': 0 });
    expect(await balances()).toEqual([110, 110, 115, 116]);
    expect(await runtime.getValue('$.items[3].doubled')).toBe(232);
    expect(r.derivedUpdated).toEqual(
      expect.arrayContaining([
        '$.balances',
        '$.items[2].balance',
        '$.items[3].balance',
        '$.items[3].doubled',
      ]),
    );
    await runtime.mutate({ '$.opening': 0 });
    expect(await balances()).toEqual([10, 10, 15, 16]);
  });

  it('explains a recurrence row through its rule and the series it reads', async () => {
    const { runtime, model } = await live(BALANCE);
    await runtime.mutate({ '$.opening': 100, '$.items': rows(10, -20, 5) });
    const why = await explainValue(runtime, modelGraph(model), '$.items[2].balance');
    expect(why).toMatchObject({ kind: 'computed', value: 95, expression: '$$.balances[$index]' });
    expect(why.inputs.map((i) => [i.path, i.value, i.kind])).toEqual([
      ['$.balances', [110, 90, 95], 'computed'],
    ]);
    expect(why.baseInputs!.map((i) => i.path).sort()).toEqual(['$.items', '$.opening']);
  });
});
