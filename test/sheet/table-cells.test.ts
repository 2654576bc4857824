// One cell of a table read on its own (issue 22): a summary formula reading `Lists!B3`, a column
// reading a $-locked cell of another table, a SUM over part of a table's column. Each compiles to
// that row's field, `$$.<table>[i].<field>`, and the stored values still decide.
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { cell, xlsxBook, type BookSheet } from './helpers.js';

const { text, num, formula, row } = cell;
const convert = (sheets: BookSheet[]): Promise<SheetConversion> =>
  convertWorkbook(xlsxBook(sheets), { modelId: 'cells' });
const derivations = (c: SheetConversion): string[][] => c.spec.derivations.map((d) => [d.path, d.expr]);

const rates: BookSheet = {
  name: 'Lists',
  rows: [
    row(1, text('A1', 'Kind'), text('B1', 'Rate')),
    row(2, text('A2', 'low'), num('B2', 0.1)),
    row(3, text('A3', 'high'), num('B3', 0.25)),
  ].join(''),
};

describe('one cell of a table', () => {
  it('a summary cell reads one row of a table', async () => {
    const c = await convert([
      rates,
      { name: 'Sheet', rows: row(1, text('A1', 'Top rate'), formula('B1', 'Lists!B3*100', 25)) },
    ]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([['$.top_rate', '(rows[1].rate * 100)']]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('a column reads a $-locked cell of another table', async () => {
    const c = await convert([
      rates,
      {
        name: 'Orders',
        rows: [
          row(1, text('A1', 'Item'), text('B1', 'Price'), text('C1', 'Tax')),
          row(2, text('A2', 'pen'), num('B2', 4), formula('C2', 'B2*Lists!$B$3', 1)),
          row(3, text('A3', 'ink'), num('B3', 8), formula('C3', 'B3*Lists!$B$3', 2)),
        ].join(''),
      },
    ]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([['$.orders[*].tax', '($parent.price * $$.rows[1].rate)']]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('a SUM over part of a column reads those rows, and a wrong stored value is still caught', async () => {
    const sheet = (stored: number): BookSheet => ({
      name: 'Data',
      rows: [
        row(1, text('A1', 'Item'), text('B1', 'Cost')),
        row(2, text('A2', 'a'), num('B2', 1)),
        row(3, text('A3', 'b'), num('B3', 2)),
        row(4, text('A4', 'c'), num('B4', 4)),
        row(6, text('A6', 'First two'), formula('B6', 'SUM(B2:B3)', stored)),
      ].join(''),
    });
    const good = await convert([sheet(3)]);
    expect(good.rejectedColumns).toEqual([]);
    expect(derivations(good)).toEqual([
      ['$.first_two', '$sum([$filter(rows, function($v, $i) { $i >= 0 and $i <= 1 }).cost])'],
    ]);
    expect((await runTests(good.spec)).failed).toBe(0);
    const bad = await convert([sheet(7)]);
    expect(bad.rejectedColumns.map((r) => r.reason)).toEqual(['VALUE_MISMATCH']);
  });

  it('a column reading another table row by row reads it by position', async () => {
    const c = await convert([
      rates,
      {
        name: 'Copy',
        rows: [
          row(1, text('A1', 'Kind'), text('B1', 'Rate')),
          row(2, text('A2', 'x'), formula('B2', 'Lists!B2', 0.1)),
          row(3, text('A3', 'y'), formula('B3', 'Lists!B3', 0.25)),
        ].join(''),
      },
    ]);
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.derivations.map((d) => d.expr).join(' ')).toContain('$index');
    expect((await runTests(c.spec)).failed).toBe(0);
  });
});
