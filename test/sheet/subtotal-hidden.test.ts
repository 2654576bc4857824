// SUBTOTAL skips rows a filter hid (every function number) or a person hid (101–111); the file
// does not say which, so a SUBTOTAL over a hidden row is rejected with that reason, and the grid
// evaluator does not vouch for it. SUBTOTALs elsewhere on the sheet still compile.
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { CellGrid } from '../../src/sheet/grid/evaluate.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { writeBook } from './oracle/book.js';

/** The book's sheet 1 with `<row r="n">` marked hidden. */
function hideRow(bytes: Uint8Array, row: number): Uint8Array {
  const files = unzipSync(bytes);
  const path = 'xl/worksheets/sheet1.xml';
  files[path] = strToU8(strFromU8(files[path]!).replace(`<row r="${row}">`, `<row r="${row}" hidden="1">`));
  return zipSync(files);
}

const book = writeBook(
  {
    sheets: [
      {
        name: 'Budget',
        cells: {
          A1: 'Amount',
          A2: 10,
          A3: 20,
          A4: 30,
          B1: 'Total',
          B2: '=SUBTOTAL(9,A2:A4)',
          B3: '=SUBTOTAL(9,A2:A2)',
        },
      },
    ],
  },
  (_sheet, ref) => (ref === 'B2' ? 60 : ref === 'B3' ? 10 : undefined),
);

describe('SUBTOTAL over a hidden row', () => {
  it('is rejected with the reason; one that spans no hidden row compiles', async () => {
    const { report, rejectedColumns } = await convertWorkbook(hideRow(book, 3), { modelId: 'hidden' });
    const b2 = rejectedColumns.find((r) => r.address === 'B2');
    expect(b2?.reason).toBe('UNSUPPORTED_FUNCTION');
    expect(b2?.message).toMatch(/row 3 is hidden/);
    expect(rejectedColumns.find((r) => r.address === 'B3')).toBeUndefined();
    expect(report.compiledCells).toBe(1);
  });

  it('is not evaluated by the grid', () => {
    const wb = readWorkbookParts(hideRow(book, 3));
    expect(wb.sheets[0]!.hiddenRows).toEqual(new Set([3]));
    const grid = new CellGrid(wb);
    grid.recalculate();
    expect(grid.problem(0, 2, 2)).toMatch(/hidden/);
    expect(grid.problem(0, 3, 2)).toBeUndefined();
    expect(grid.value(0, 3, 2)).toBe(10);
  });

  it('compiles when no row is hidden', async () => {
    const { report } = await convertWorkbook(book, { modelId: 'shown' });
    expect(report.compiledCells).toBe(2);
    expect(report.verifiedCells).toBe(2);
  });
});
