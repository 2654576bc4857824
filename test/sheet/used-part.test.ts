// Sums over ranges that run past the used part of the sheet (issue 39, budget-template-pfitzgibbon
// of the third held-out set): `SUM(A3:A1048576)` down a table column, `SUM(C:C)` over a column of
// amounts where some are typed as formulas (`=61.19+40`, so the column is taken apart cell by
// cell), `SUM(B3:B2000)`. The cells past the last used row are blank; LibreOffice's own
// recalculation after seeded edits of the amounts is the oracle. (The workbook's `A6:A1000001`
// compiles the same way, but the grid evaluator does not read a million-cell range, so such a cell
// is checked at its stored value only.)
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { splitRef, writeBook, type BookDef, type Input, type Stored } from './oracle/book.js';
import { compareEdits, type Edits } from './oracle/differential.js';
import { SOFFICE, SOFFICE_SKIP_REASON, type Recalculated } from './oracle/libreoffice.js';
import { range, type EditDef } from './oracle/layout.js';
import { recalculateWithEdits } from './oracle/edited-books.js';

const PAY = [5000, 5100, 4900, 5000, 5250, 5000, 4800, 5000, 5300, 5000];
const SAVED = [250, 0, 300, 120, 80, 0, 410, 95, 60, 200];
const FUN: Input[] = [13.9, 23, 56, 34, '=61.19+40', 13.25, '=213.57+68.73', 0, 21.5, 9];

function budgetBook(): BookDef {
  const cells: Record<string, Input> = {
    A1: 'Money in',
    C1: 'Fun',
    A2: 'Paycheck',
    B2: 'Savings',
    C2: 'Fun random',
    D2: 'Note',
    F3: 'Pay total',
    G3: '=SUM(A3:A1048576)',
    F5: 'Saved total',
    G5: '=SUM(B3:B2000)',
    F7: 'Fun total',
    G7: '=SUM(C:C)',
    F9: 'Largest',
    G9: '=MAX(A3:A500)',
  };
  PAY.forEach((p, i) => {
    const r = i + 3;
    cells[`A${r}`] = p;
    cells[`B${r}`] = SAVED[i]!;
    cells[`C${r}`] = FUN[i]!;
    cells[`D${r}`] = `week ${i + 1}`;
  });
  return { sheets: [{ name: 'Budget', cells }] };
}

const EDITS: EditDef[] = [
  { sheet: 'Budget', cells: range('A', 3, 12), kind: 'number', min: 3000, max: 7000, integer: true },
  { sheet: 'Budget', cells: range('B', 3, 12), kind: 'number', min: 0, max: 500 },
  { sheet: 'Budget', cells: ['C3', 'C4', 'C5', 'C8', 'C10', 'C11', 'C12'], kind: 'number', min: 0, max: 90 },
];
const EDIT_SETS = 6;

const title = SOFFICE
  ? 'sums past the used part of a sheet'
  : `sums past the used part of a sheet (skipped: ${SOFFICE_SKIP_REASON})`;

describe.skipIf(!SOFFICE)(title, () => {
  let base: Recalculated;
  let edits: Edits[];
  let edited: Recalculated[];

  beforeAll(() => {
    ({ base, edits, edited } = recalculateWithEdits(budgetBook, EDITS, 39, EDIT_SETS));
  }, 180_000);

  it('reads A3:A1048576, B3:B2000, A3:A500 and C:C as the used part, as LibreOffice computes them after edits', async () => {
    const bytes = writeBook(budgetBook(), (sheet, ref): Stored | undefined => {
      const { row, col } = splitRef(ref);
      return base.get(sheet)?.get(`${row}:${col}`);
    });
    const { spec, report } = await convertWorkbook(bytes, { modelId: 'used-part' });
    expect(report.rejected).toEqual([]);
    expect(report.verifiedCells).toBe(report.formulaCells);
    const { compared, mismatches } = await compareEdits(spec, budgetBook(), edits, edited);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(4 * EDIT_SETS);
    const checks = new Map(report.checks.map((c) => [c.address, c.checked]));
    for (const cell of ['G3', 'G5', 'G7', 'G9']) {
      expect(checks.get(cell), JSON.stringify(report.checks)).toMatch(/^what-if/);
    }
  });
});
