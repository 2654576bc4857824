// A whole-column lookup table (`Prices!A:C`) of a model table reads the table's columns, so a row
// added to the table is found, as it is in a spreadsheet whose whole column takes in a new row.
// The oracle is the closed form: the new row's price times the quantity.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, formula, row } = cell;

describe('a whole-column lookup table follows the rows of its table', () => {
  it('a price row added to the table is found by the orders that name it', async () => {
    const prices = [
      row(1, text('A1', 'Code'), text('B1', 'Name'), text('C1', 'Price')),
      row(2, text('A2', 'P1'), text('B2', 'Pen'), num('C2', 1.5)),
      row(3, text('A3', 'P2'), text('B3', 'Pad'), num('C3', 4)),
    ].join('');
    const orders = [
      row(1, text('A1', 'Order'), text('B1', 'Code'), text('C1', 'Qty'), text('D1', 'Amount')),
      row(
        2,
        text('A2', 'o1'),
        text('B2', 'P2'),
        num('C2', 3),
        formula('D2', 'IFERROR(VLOOKUP(B2,Prices!A:C,3,FALSE)*C2,0)', 12),
      ),
      row(
        3,
        text('A3', 'o2'),
        text('B3', 'P7'),
        num('C3', 5),
        formula('D3', 'IFERROR(VLOOKUP(B3,Prices!A:C,3,FALSE)*C3,0)', 0),
      ),
    ].join('');
    const c = await convertWorkbook(
      xlsxBook([
        { name: 'Orders', rows: orders },
        { name: 'Prices', rows: prices },
      ]),
      { modelId: 'whole-lookup' },
    );
    expect(c.report.rejected).toEqual([]);
    expect(c.report.verifiedCells).toBe(2);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    type State = { rows: { amount: number }[]; prices: { code: string; name: string; price: number }[] };
    const before = (await runtime.getState()) as State;
    expect(before.rows.map((o) => o.amount)).toEqual([12, 0]);
    await runtime.mutate({ '$.prices': [...before.prices, { code: 'P7', name: 'Ink', price: 2.25 }] });
    const after = (await runtime.getState()) as State;
    expect(after.rows.map((o) => o.amount)).toEqual([12, 2.25 * 5]);
  });
});
