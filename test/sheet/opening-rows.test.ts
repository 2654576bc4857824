// Issue 39's "cell outside the tables": a loan schedule under a block of inputs whose first row
// opens with the loan amount (`D10 =C4`) above `=H10` filled down. The opening row is one cell's
// formula, so its relative reference to the input is that one cell; the column is a recurrence
// with the fold's first step there (a short column used to be taken apart cell by cell, and the
// other columns' `=D10*E$5` then read "a cell outside the tables"). Likewise a table of one row
// (a label and a formula under a two-word header) reads a side cell unlocked. Headless LibreOffice
// recalculates the workbook and copies with other inputs; the model, given the same inputs, must
// give what LibreOffice computed. The schedule rounds to cents, as loan schedules do: LibreOffice
// saves 15 significant digits, and a value needing 17 would not round-trip to its own double.
// Skipped where soffice is not installed.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { pathOfCell } from '../../src/sheet/cellmap.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { recalculate, SOFFICE, type CellValue, type LoBook } from './libreoffice.js';

const MONTHS = 23;
const INPUTS: [number, number, number, number][] = [
  // principal, years, annual rate, the year in the one-row table's side cell
  [300000, 30, 0.05, 2023],
  [125000, 15, 0.071, 2031],
  [80000, 5, 0.033, 1999],
];

function book([principal, years, rate, year]: [number, number, number, number], name: string): LoBook {
  const rows: CellValue[][] = [
    [null, 'Loan Amortization Schedule'],
    [],
    [],
    [null, 'Principal', principal, 'Number of Payments', '=C5*12'],
    [null, 'Term', years, 'Monthly Rate', '=C6/12'],
    [null, 'Annual Rate', rate, 'Mortgage Payment', '=ROUND(PMT(E5,E4,-C4,0),2)'],
    [],
    [],
    [null, 'Months', 'Beginning Balance', 'Payment', 'Interest', 'Principal', 'Ending Balance'],
  ];
  for (let m = 1; m <= MONTHS; m++) {
    const r = m + 9;
    rows.push([
      null,
      m,
      r === 10 ? '=C4' : `=G${r - 1}`,
      '=$E$6',
      `=ROUND(C${r}*E$5,2)`,
      `=D${r}-E${r}`,
      `=C${r}-F${r}`,
    ]);
  }
  const cells: Record<string, CellValue> = {
    I27: year,
    B40: 'Useful Life',
    C40: '(Years)',
    B41: 'PP&E',
    C41: '=CONCATENATE("(End of ",I27,")")',
  };
  return { name, sheets: [{ name: 'Debt Schedule', rows, cells }] };
}

const valueAt = (bytes: Uint8Array, row: number, col: number): CellValue => {
  const v = readWorkbookParts(bytes).sheets[0]!.cells.get(`${row}:${col}`)?.value ?? null;
  return v !== null && typeof v === 'object' ? null : v;
};

describe.skipIf(!SOFFICE)('opening rows and one-row tables reading cells outside the tables', () => {
  it('compiles the schedule and the one-row table, and agrees with LibreOffice on other inputs', async () => {
    const files = recalculate(INPUTS.map((inputs, i) => book(inputs, `opening${i}`)));
    const c = await convertWorkbook(files[0]!, { modelId: 'opening' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    const formulaCells = 3 + 5 * MONTHS + 1;
    expect(c.report.formulaCells).toBe(formulaCells);
    expect(c.report.verifiedCells).toBe(formulaCells);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    const map = c.report.cellMap;
    const pathAt = (cell: string): string => pathOfCell(map, `'Debt Schedule'!${cell}`)!;
    // a path as the state holds it: `debt_schedule[3].interest` → state.debt_schedule[3].interest
    const read = (state: Record<string, unknown>, path: string): unknown =>
      path
        .split(/[.[\]]+/)
        .filter(Boolean)
        .reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], state);
    for (const [k, [principal, years, rate, year]] of INPUTS.entries()) {
      await runtime.mutate({
        [`$.${pathAt('C4')}`]: principal,
        [`$.${pathAt('C5')}`]: years,
        [`$.${pathAt('C6')}`]: rate,
        [`$.${pathAt('I27')}`]: year,
      });
      const state = (await runtime.getState()) as Record<string, unknown>;
      for (let r = 10; r < 10 + MONTHS; r++) {
        for (const col of ['C', 'E', 'G']) {
          const model = read(state, pathAt(`${col}${r}`));
          const libre = valueAt(files[k]!, r, col.charCodeAt(0) - 64) as number;
          expect(model, `${col}${r} for inputs ${k}`).toBeCloseTo(libre, 6);
        }
      }
      expect(read(state, pathAt('C41'))).toBe(valueAt(files[k]!, 41, 3));
    }
  }, 300_000);
});
