import { describe, expect, it } from 'vitest';
import { translatePatch } from '../../src/calc/patch.js';
import { live, rejectsWith } from './helpers/model.js';

const ROWS = {
  derivations: [
    { path: '$.items[*].lineTotal', expr: '$parent.price * ($exists($parent.qty) ? $parent.qty : 1)' },
    { path: '$.total', expr: '$sum(items.lineTotal)' },
  ],
};

async function withTwoRows() {
  const { runtime } = await live(ROWS);
  await runtime.mutate({
    '$.items': [
      { price: 2, qty: 3 },
      { price: 5, qty: 1 },
    ],
  });
  return runtime;
}

describe('[*] derivations over rows (calc-spec §4)', () => {
  it('a write far down an array (a sparse row 130000) runs its cycle instead of overflowing the stack', async () => {
    // 130,001 rows make 130,002 traces and writes: spread into push() they overflowed the call stack
    const { runtime } = await live(ROWS);
    const r = await runtime.mutate({ '$.items[130000].price': 3 });
    expect(r.derivedUpdated).toHaveLength(130_002); // every row, then the total
    expect(await runtime.getValue('$.items[130000].lineTotal')).toBe(3);
    expect(runtime.traces.size).toBeLessThanOrEqual(runtime.traces.capacity);
  }, 60_000);

  it('computes every row with $parent and the aggregate after them', async () => {
    const runtime = await withTwoRows();
    expect(await runtime.getState()).toEqual({
      items: [
        { price: 2, qty: 3, lineTotal: 6 },
        { price: 5, qty: 1, lineTotal: 5 },
      ],
      total: 11,
    });
  });

  it('an element write re-evaluates that row only, then the aggregate, in level order (issue 18)', async () => {
    const runtime = await withTwoRows();
    const r = await runtime.mutate({ '$.items[1].qty': 4 });
    expect(r.derivedUpdated).toEqual(['$.items[1].lineTotal', '$.total']);
    expect(await runtime.getValue('$.items[1].lineTotal')).toBe(20);
    expect(await runtime.getValue('$.total')).toBe(26);
  });

  it('adding a whole row ($.items[2]) computes it and the aggregate follows', async () => {
    const runtime = await withTwoRows();
    const r = await runtime.mutate({ '$.items[2]': { price: 10, qty: 2 } });
    expect(r.derivedUpdated).toEqual(['$.items[2].lineTotal', '$.total']);
    expect(await runtime.getValue('$.items[2].lineTotal')).toBe(20);
    expect(await runtime.getValue('$.total')).toBe(31);
  });

  it('adding a row by one field ($.items[3].price) pads and computes it', async () => {
    const runtime = await withTwoRows();
    await runtime.mutate({ '$.items[2]': { price: 10, qty: 2 } });
    const r = await runtime.mutate({ '$.items[3].price': 7 });
    expect(r.derivedUpdated).toContain('$.items[3].lineTotal');
    expect(await runtime.getValue('$.items[3]')).toEqual({ price: 7, lineTotal: 7 });
    expect(await runtime.getValue('$.total')).toBe(38);
  });

  it('removing rows drops their derived values; the aggregate follows', async () => {
    const runtime = await withTwoRows();
    await runtime.mutate({ '$.items[2]': { price: 10, qty: 2 } });
    await runtime.mutate({ '$.items[3].price': 7 });
    const r = await runtime.mutate({ '$.items': [{ price: 1, qty: 1 }] });
    expect(r.derivedUpdated).toEqual(['$.items[0].lineTotal', '$.total']);
    expect(await runtime.getValue('$.total')).toBe(1);
    expect(await runtime.getValue('$.items[2].lineTotal')).toBeUndefined();
    expect(await runtime.getValue('$.items[1].lineTotal')).toBeUndefined();
    expect(await runtime.getValue('$.items[2]')).toBeUndefined();
    expect(runtime.exportState().derived).toEqual({ '$.items[0].lineTotal': 1, '$.total': 1 });
    expect(await runtime.getState()).toEqual({ items: [{ price: 1, qty: 1, lineTotal: 1 }], total: 1 });
  });

  it('growing again after a shrink computes fresh values, not stale ones', async () => {
    const runtime = await withTwoRows();
    await runtime.mutate({ '$.items': [{ price: 1, qty: 1 }] });
    await runtime.mutate({ '$.items[1].price': 100 });
    expect(await runtime.getValue('$.items[1].lineTotal')).toBe(100);
    expect(await runtime.getValue('$.total')).toBe(101);
  });

  it('an emptied array leaves no rows; $sum of nothing is undefined, stored as null', async () => {
    const runtime = await withTwoRows();
    await runtime.mutate({ '$.items': [] });
    expect(await runtime.getState()).toEqual({ items: [], total: null });
    expect(runtime.exportState().derived).toEqual({ '$.total': null });
  });

  it('null rows are enumerated too ($parent undefined → null result, spliced into the merged row)', async () => {
    const runtime = await withTwoRows();
    await runtime.mutate({ '$.items[3].price': 1 });
    expect(runtime.exportState().derived['$.items[2].lineTotal']).toBeNull();
    expect((runtime.exportState().base.items as unknown[])[2]).toBeNull();
    expect(await runtime.getValue('$.items[2]')).toEqual({ lineTotal: null });
    expect(await runtime.getValue('$.items[3].lineTotal')).toBe(1);
  });

  it('a row sees derived fields of earlier levels through $parent', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.items[*].net', expr: '$parent.gross - 1' },
        { path: '$.items[*].label', expr: '"net " & $string($parent.net)' },
      ],
    });
    await runtime.mutate({ '$.items': [{ gross: 5 }] });
    expect(await runtime.getValue('$.items[0]')).toEqual({ gross: 5, net: 4, label: 'net 4' });
  });
});

describe('row-incremental cycles (issue 18)', () => {
  const TOTALS = {
    derivations: [
      { path: '$.items[*].total', expr: '$parent.price * $parent.qty' },
      { path: '$.grand', expr: '$sum(items.total)' },
    ],
  };
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ price: i + 1, qty: 2 }));

  it('a one-row write recomputes that row and the whole-array reader, once', async () => {
    const { runtime } = await live(TOTALS);
    await runtime.mutate({ '$.items': rows(50) });
    const r = await runtime.mutate({ '$.items[49].price': 100 });
    expect(r.derivedUpdated).toEqual(['$.items[49].total', '$.grand']);
    expect(await runtime.getValue('$.items[49].total')).toBe(200);
    expect(await runtime.getValue('$.items[48].total')).toBe(98);
    expect(await runtime.getValue('$.grand')).toBe(49 * 50 + 200);
  });

  it('writes to several rows recompute just those rows', async () => {
    const { runtime } = await live(TOTALS);
    await runtime.mutate({ '$.items': rows(10) });
    const r = await runtime.mutate({ '$.items[7].qty': 1, '$.items[2].qty': 1 });
    expect(r.derivedUpdated).toEqual(['$.items[2].total', '$.items[7].total', '$.grand']);
    expect(await runtime.getValue('$.grand')).toBe(110 - 3 - 8);
  });

  it('appending a row computes that row and the reader', async () => {
    const { runtime } = await live(TOTALS);
    await runtime.mutate({ '$.items': rows(10) });
    const r = await runtime.mutate({ '$.items[10]': { price: 5, qty: 5 } });
    expect(r.derivedUpdated).toEqual(['$.items[10].total', '$.grand']);
    expect(await runtime.getValue('$.grand')).toBe(110 + 25);
  });

  it('a new row made by a field no rule reads still gets its row values', async () => {
    const { runtime } = await live(TOTALS);
    await runtime.mutate({ '$.items': rows(2) });
    const r = await runtime.mutate({ '$.items[3].note': 'later' });
    // row 2 is padding (null), row 3 holds only the note: both are new rows
    expect(r.derivedUpdated).toEqual(['$.items[2].total', '$.items[3].total', '$.grand']);
    expect(await runtime.getValue('$.items[3]')).toEqual({ note: 'later', total: null });
  });

  it.each<[string, (base: unknown[]) => Record<string, unknown>]>([
    ['the whole array without one row', (b) => ({ '$.items': b.filter((_, i) => i !== 3) })],
    ['a JSON Patch remove', (b) => translatePatch({ items: b }, [{ op: 'remove', path: '/items/3' }])],
  ])('removing a row by %s recomputes no row, only the reader', async (_how, mutation) => {
    const { runtime } = await live(TOTALS);
    await runtime.mutate({ '$.items': rows(10) });
    const r = await runtime.mutate(mutation(runtime.baseDocument().items as unknown[]));
    expect(r.derivedUpdated).toEqual(['$.grand']);
    expect(await runtime.getValue('$.items[3].total')).toBe(10); // the old row 4, moved up
    expect(await runtime.getValue('$.items[9]')).toBeUndefined();
    expect(await runtime.getValue('$.grand')).toBe(110 - 8);
    expect(runtime.exportState().derived['$.items[9].total']).toBeUndefined();
  });

  it.each<[string, (base: unknown[]) => Record<string, unknown>]>([
    [
      'the whole array with one more row',
      (b) => ({ '$.items': [...b.slice(0, 3), { price: 100, qty: 1 }, ...b.slice(3)] }),
    ],
    [
      'a JSON Patch add',
      (b) => translatePatch({ items: b }, [{ op: 'add', path: '/items/3', value: { price: 100, qty: 1 } }]),
    ],
  ])('inserting a row by %s computes that row and the reader', async (_how, mutation) => {
    const { runtime } = await live(TOTALS);
    await runtime.mutate({ '$.items': rows(10) });
    const r = await runtime.mutate(mutation(runtime.baseDocument().items as unknown[]));
    expect(r.derivedUpdated).toEqual(['$.items[3].total', '$.grand']);
    expect(await runtime.getValue('$.items[4].total')).toBe(8); // the old row 3, moved down
    expect(await runtime.getValue('$.items[10].total')).toBe(20);
    expect(await runtime.getValue('$.grand')).toBe(210);
  });

  it('a rule reading the whole-array total recomputes every row when one row changes', async () => {
    const { runtime } = await live({
      derivations: [...TOTALS.derivations, { path: '$.items[*].share', expr: '$parent.total / $$.grand' }],
    });
    await runtime.mutate({
      '$.items': [
        { price: 1, qty: 1 },
        { price: 3, qty: 1 },
      ],
    });
    expect(await runtime.getValue('$.items[0].share')).toBe(0.25);
    const r = await runtime.mutate({ '$.items[1].price': 1 });
    expect(r.derivedUpdated).toEqual(['$.items[1].total', '$.grand', '$.items[0].share', '$.items[1].share']);
    expect(await runtime.getValue('$.items[0].share')).toBe(0.5);
    expect(await runtime.getValue('$.items[1].share')).toBe(0.5);
  });

  it('a rule reading other rows (a rank over the array) recomputes every row when one row changes', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.items[*].rank', expr: '$count(items[price > $parent.price]) + 1' }],
    });
    await runtime.mutate({ '$.items': [{ price: 5 }, { price: 3 }, { price: 1 }] });
    expect(await runtime.getValue('$.items[2].rank')).toBe(3);
    const r = await runtime.mutate({ '$.items[2].price': 9 });
    expect(r.derivedUpdated).toHaveLength(3);
    const ranks = await Promise.all([0, 1, 2].map((i) => runtime.getValue(`$.items[${i}].rank`)));
    expect(ranks).toEqual([2, 3, 1]);
  });

  it('a rule on the same row through $parent follows that row only', async () => {
    const { runtime } = await live({
      derivations: [...TOTALS.derivations, { path: '$.items[*].taxed', expr: '$parent.total * 1.5' }],
    });
    await runtime.mutate({ '$.items': rows(5) });
    const r = await runtime.mutate({ '$.items[1].qty': 4 });
    expect(r.derivedUpdated).toEqual(['$.items[1].total', '$.grand', '$.items[1].taxed']);
    expect(await runtime.getValue('$.items[1].taxed')).toBe(12);
  });

  it('a [*] meta follows the written row only; a rollback restores every row', async () => {
    const { runtime } = await live({
      ...TOTALS,
      metaDerivations: [{ path: '$.items[*].qty', property: 'maximum', expr: 'price * 10' }],
      constraints: [{ id: 'cap', expr: 'grand < 1000', message: 'too much', policy: 'rollback' }],
    });
    await runtime.mutate({ '$.items': rows(3) });
    const r = await runtime.mutate({ '$.items[2].price': 4 });
    expect(r.metaUpdated).toEqual(['$.items[2].qty#maximum']);
    expect(runtime.getMeta('$.items[2].qty#maximum')).toBe(40);
    const before = runtime.exportState();
    await rejectsWith(runtime.mutate({ '$.items[0].price': 900 }), 'CONSTRAINT_VIOLATION');
    expect(runtime.exportState()).toEqual(before);
  });
});
