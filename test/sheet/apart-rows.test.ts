// A long column whose first row (or a few rows) holds a formula of its own beside the one filled
// down (issue 39: a loan schedule's `=IF(B13="","",IFERROR(E13-F13,0))` above
// `=IF(B14="","",E14-F14)`): the column compiles, each such row with its own formula. Headless
// LibreOffice recalculates the workbook and edited copies of it; the model, given the same edits,
// must give what LibreOffice computed in every row. A column of many different formulas stays
// rejected. Skipped where soffice is not installed.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { recalculate, SOFFICE, type CellValue, type LoBook } from './libreoffice.js';

// longer than loose.ts takes apart cell by cell: the column is one column
const ROWS = 230;
const LAST = ROWS + 1;
const amountsOf = (seed: number): number[] =>
  Array.from({ length: ROWS }, (_, i) => ((i * 37 + seed * 11) % 101) - 20 + (i % 4) / 4);
const FEES = Array.from({ length: ROWS }, (_, i) => (i % 5 === 3 ? null : (i % 7) + 0.5));

/**
 * No | Amount | Fee | Net | Balance: Net's first row adds IFERROR, rows 3 to 14 take ABS (a block
 * apart, as loan-calculator-abhijit's H14:H24), row 121 and the last row hold formulas of their
 * own; Balance is a running balance whose first row is the opening.
 */
function book(amounts: number[], name: string): LoBook {
  const rows: CellValue[][] = [['No', 'Amount', 'Fee', 'Net', 'Balance']];
  amounts.forEach((a, i) => {
    const r = i + 2;
    const net =
      r === 2
        ? `=IF(A2="","",IFERROR(B2-C2,0))`
        : r <= 14
          ? `=IF(A${r}="","",ABS(B${r}-C${r}))`
          : r === 121
            ? `=B121-C121*2`
            : r === LAST
              ? `=IF(A${r}="","",ROUND(B${r}-C${r},1))`
              : `=IF(A${r}="","",B${r}-C${r})`;
    const balance = r === 2 ? '=D2' : `=E${r - 1}+D${r}`;
    rows.push([i + 1, a, FEES[i]!, net, balance]);
  });
  return { name, sheets: [{ name: 'Sheet1', rows }] };
}

function columnOf(bytes: Uint8Array, col: number): CellValue[] {
  const sheet = readWorkbookParts(bytes).sheets[0]!;
  return Array.from({ length: ROWS }, (_, i) => {
    const v = sheet.cells.get(`${i + 2}:${col}`)?.value ?? null;
    return v !== null && typeof v === 'object' ? null : v;
  });
}

async function runtimeOf(c: SheetConversion): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(c.spec.tests[0]!.given);
  return runtime;
}

/** Within the last bits (LibreOffice sums with compensation; a 230-row balance may differ there). */
const near = (a: CellValue[], b: CellValue[]): boolean =>
  a.length === b.length &&
  a.every((x, i) => {
    const y = b[i];
    if (typeof x === 'number' && typeof y === 'number')
      return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
    return x === y;
  });

describe.skipIf(!SOFFICE)('a column with rows apart from its filled-down formula', () => {
  it('compiles with each row apart at its row, and agrees with LibreOffice after edits', async () => {
    const seeds = [0, 3, 7];
    const files = recalculate(seeds.map((s) => book(amountsOf(s), `apart${s}`)));
    const c = await convertWorkbook(files[0]!, { modelId: 'apart' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    expect(c.report.formulaCells).toBe(2 * ROWS);
    expect(c.report.verifiedCells).toBe(2 * ROWS);
    const runtime = await runtimeOf(c);
    for (const [k, seed] of seeds.entries()) {
      const amounts = amountsOf(seed);
      await runtime.mutate(Object.fromEntries(amounts.map((a, i) => [`$.rows[${i}].amount`, a])));
      const state = (await runtime.getState()) as { rows: { net: CellValue; balance: CellValue }[] };
      const model = { net: state.rows.map((r) => r.net), balance: state.rows.map((r) => r.balance) };
      const libre = { net: columnOf(files[k]!, 4), balance: columnOf(files[k]!, 5) };
      expect(near(model.net, libre.net), `net after seed ${seed}`).toBe(true);
      expect(near(model.balance, libre.balance), `balance after seed ${seed}`).toBe(true);
      // the rows apart are what they are in the workbook, not the filled-down formula
      expect(model.net[119]).toBe(libre.net[119]);
      expect(model.net.slice(1, 13)).toEqual(libre.net.slice(1, 13));
      expect(model.net[119]).not.toBe(amounts[119]! - FEES[119]!);
    }
  }, 300_000);

  it('a column of more different formulas than a few rows apart stays NON_UNIFORM_FORMULA', async () => {
    const rows: CellValue[][] = [['Amount', 'Twice']];
    for (let i = 0; i < ROWS; i++) rows.push([i + 1, i % 20 === 0 ? `=A${i + 2}*3` : `=A${i + 2}*2`]);
    const [file] = recalculate([{ name: 'irregular', sheets: [{ name: 'Sheet1', rows }] }]);
    const c = await convertWorkbook(file!, { modelId: 'irregular' });
    expect(c.rejectedColumns.map((r) => [r.column, r.reason])).toEqual([['Twice', 'NON_UNIFORM_FORMULA']]);
  }, 300_000);
});
