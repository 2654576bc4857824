// A sheet past the row, cell or column budget is left out alone (issue 39): the workbook's other
// sheets convert, the big sheet's formula cells are counted under SHEET_TOO_LARGE in the report,
// and a formula elsewhere that reads the big sheet is rejected with the same reason.
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/calc/index.js';
import { convertWorkbook, DEFAULT_LIMITS, SheetError, type SheetLimits } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

/** Small: a table Qty | Price | Amount (=A*B) and a total; Big: `rows` rows of a value and its double. */
function book(bigRows: number, readBig = false): Uint8Array {
  const small = [
    row(1, text('A1', 'Qty'), text('B1', 'Price'), text('C1', 'Amount')),
    row(2, num('A2', 2), num('B2', 3), formula('C2', 'A2*B2', 6)),
    row(3, num('A3', 4), num('B3', 5), formula('C3', 'A3*B3', 20)),
    row(5, text('A5', 'Total'), formula('B5', 'SUM(C2:C3)', 26)),
    ...(readBig ? [row(6, text('A6', 'Big first'), formula('B6', 'Big!$B$2', 2))] : []),
  ].join('');
  const big = [row(1, text('A1', 'Value'), text('B1', 'Double'))];
  for (let r = 2; r <= bigRows + 1; r++)
    big.push(row(r, num(`A${r}`, r - 1), formula(`B${r}`, `A${r}*2`, 2 * (r - 1))));
  return xlsxBook([
    { name: 'Small', rows: small },
    { name: 'Big', rows: big.join('') },
  ]);
}

const limits = (l: Partial<SheetLimits>): SheetLimits => ({ ...DEFAULT_LIMITS, ...l });

describe('a sheet past the budgets', () => {
  it('a table past the row budget leaves its sheet out; the other sheet converts', async () => {
    const c = await convertWorkbook(book(60), { modelId: 'big', limits: limits({ maxRows: 50 }) });
    expect(c.rejectedColumns).toMatchObject([{ sheet: 'Big', reason: 'SHEET_TOO_LARGE', cells: 60 }]);
    expect(c.rejectedColumns[0]!.message).toMatch(/more than 50 data rows.*left out.*60 formula cells/);
    expect(c.report.formulaCells).toBe(63);
    expect(c.report.verifiedCells).toBe(3);
    expect(c.report.sheets.map((s) => [s.name, s.formulaCells, s.compiledCells])).toEqual([
      ['Small', 3, 3],
      ['Big', 60, 0],
    ]);
    expect(c.report.rejected).toMatchObject([{ reason: 'SHEET_TOO_LARGE', count: 60 }]);
    expect(c.spec.derivations.map((d) => d.path)).toEqual(['$.rows[*].amount', '$.total']);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('a sheet of far more rows is left out before it is parsed, and a formula reading it is rejected', async () => {
    const c = await convertWorkbook(book(1100, true), { modelId: 'big', limits: limits({ maxRows: 5 }) });
    expect(c.rejectedColumns.map((r) => [r.sheet, r.address, r.reason, r.cells])).toEqual([
      ['Big', 'Big', 'SHEET_TOO_LARGE', 1100],
      ['Small', 'B6', 'SHEET_TOO_LARGE', undefined],
    ]);
    expect(c.report.compiledCells).toBe(3);
  });

  it('the cell budget leaves the sheet out that does not fit', async () => {
    const c = await convertWorkbook(book(60), { modelId: 'big', limits: limits({ maxCells: 100 }) });
    expect(c.rejectedColumns).toMatchObject([{ sheet: 'Big', reason: 'SHEET_TOO_LARGE', cells: 60 }]);
    expect(c.rejectedColumns[0]!.message).toMatch(/more than 100 cells/);
    expect(c.report.verifiedCells).toBe(3);
  });

  it('a workbook whose every sheet is past a budget is still refused as a whole', async () => {
    const one = xlsxBook([
      {
        name: 'Big',
        rows:
          row(1, text('A1', 'a'), text('B1', 'b')) +
          row(2, num('A2', 1), formula('B2', 'A2*2', 2)) +
          row(3, num('A3', 1), formula('B3', 'A3*2', 2)),
      },
    ]);
    const err = await convertWorkbook(one, { modelId: 'big', limits: limits({ maxRows: 1 }) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SheetError);
    expect((err as SheetError).code).toBe('TOO_MANY_ROWS');
  });
});

describe('a sheet whose used range is past its budget', () => {
  it('is left out alone as SHEET_TOO_LARGE, and a formula reading it is rejected; the other sheet converts', async () => {
    // Big spans A1:B1101 (2,202 cells of grid): past a used-range budget of 2,000
    const c = await convertWorkbook(book(1100, true), {
      modelId: 'big',
      limits: limits({ maxUsedRange: 2000 }),
    });
    expect(c.rejectedColumns.map((r) => [r.sheet, r.address, r.reason, r.cells])).toEqual([
      ['Big', 'Big', 'SHEET_TOO_LARGE', 1100],
      ['Small', 'B6', 'SHEET_TOO_LARGE', undefined],
    ]);
    expect(c.rejectedColumns[0]!.message).toMatch(
      /sheet 'Big' uses A1:B1101, a range of 2202 cells \(1101 rows by 2 columns\); the limit is 2000 cells/,
    );
    expect(c.report.verifiedCells).toBe(3);
  });
});
