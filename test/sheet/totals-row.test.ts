// A totals row under a schedule of formulas (issue 39, loan-schedule-govinda: `=SUM(C12:C371)`
// under the payment column `=$B$8`): left in the table it was a row of the payment column reading
// its own column, a recurrence that is not compiled, and the whole schedule depended on it.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { formulaResolver } from '../../src/sheet/structure.js';
import { isTotalsRow } from '../../src/sheet/totals-row.js';
import { readWorkbook } from '../../src/sheet/xlsx.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

/**
 * Amounts in B, a running total `=SUM(B$2:B<r>)` in C over rows 2 to `end` (205 formulas: a long
 * column, kept whole), and a last row of `last`'s formulas.
 */
function book(last: { B: string; C: string }, end = 206): Uint8Array {
  const rows = [row(1, text('A1', 'Month'), text('B1', 'Amount'), text('C1', 'To date'))];
  let total = 0;
  for (let r = 2; r <= end; r++) {
    total += r * 10;
    rows.push(row(r, num(`A${r}`, r - 1), num(`B${r}`, r * 10), formula(`C${r}`, `SUM(B$2:B${r})`, total)));
  }
  const t = end + 1;
  rows.push(row(t, text(`A${t}`, 'Total'), formula(`B${t}`, last.B, total), formula(`C${t}`, last.C, total)));
  return xlsx(rows.join(''));
}

describe('a totals row under a column of formulas', () => {
  it('is a totals row when each formula reads its own column down to the row above', () => {
    const sheet = readWorkbook(book({ B: 'SUM(B2:B206)', C: 'MAX(C2:C206)' }));
    expect(isTotalsRow(sheet, 2, 207, 1, 3, () => formulaResolver(sheet))).toBe(true);
  });

  it('is a row of the table under a short column, whose cells are compiled one by one', () => {
    const sheet = readWorkbook(book({ B: 'SUM(B2:B6)', C: 'MAX(C2:C6)' }, 6));
    expect(isTotalsRow(sheet, 2, 7, 1, 3, () => formulaResolver(sheet))).toBe(false);
  });

  it('is a row of the table when a formula there is the column formula filled down', () => {
    const sheet = readWorkbook(book({ B: 'SUM(B2:B206)', C: 'SUM(B$2:B207)' }));
    expect(isTotalsRow(sheet, 2, 207, 1, 3, () => formulaResolver(sheet))).toBe(false);
  });

  it('is a row of the table when its range stops short of the row above', () => {
    const sheet = readWorkbook(book({ B: 'SUM(B2:B206)', C: 'MAX(C2:C205)' }));
    expect(isTotalsRow(sheet, 2, 207, 1, 3, () => formulaResolver(sheet))).toBe(false);
  });

  it('converts with the running total a column and the totals summary cells, all verified', async () => {
    const { report, rejectedColumns, spec } = await convertWorkbook(
      book({ B: 'SUM(B2:B206)', C: 'MAX(C2:C206)' }),
      { modelId: 'totals', filename: 'totals.xlsx' },
    );
    expect(rejectedColumns.map((c) => `${c.address} ${c.reason}: ${c.message}`)).toEqual([]);
    expect(report.verifiedCells).toBe(report.formulaCells);
    expect(report.cellMap.find((m) => m.cells.endsWith('!C2:C206'))?.kind).toBe('formula');
    expect(spec.derivations.some((d) => d.path === '$.to_date_total')).toBe(true);
  });
});
