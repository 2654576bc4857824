import { describe, expect, it } from 'vitest';
import { live } from './helpers/model.js';

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

  it('an element write re-evaluates every row and the aggregate, in level order', async () => {
    const runtime = await withTwoRows();
    const r = await runtime.mutate({ '$.items[1].qty': 4 });
    expect(r.derivedUpdated).toEqual(['$.items[0].lineTotal', '$.items[1].lineTotal', '$.total']);
    expect(await runtime.getValue('$.items[1].lineTotal')).toBe(20);
    expect(await runtime.getValue('$.total')).toBe(26);
  });

  it('adding a whole row ($.items[2]) computes it and the aggregate follows', async () => {
    const runtime = await withTwoRows();
    const r = await runtime.mutate({ '$.items[2]': { price: 10, qty: 2 } });
    expect(r.derivedUpdated).toEqual([
      '$.items[0].lineTotal',
      '$.items[1].lineTotal',
      '$.items[2].lineTotal',
      '$.total',
    ]);
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
