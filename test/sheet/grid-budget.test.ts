// The what-if evaluator's budgets (issue 39): they follow the conversion's own time limit, and a
// budget that runs out part way still vouches for the cells it finished; nothing it did not finish
// is counted as verified.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CellGrid } from '../../src/sheet/grid/evaluate.js';
import { gridLimitsFor } from '../../src/sheet/grid/limits.js';
import { convertWorkbook, DEFAULT_LIMITS } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { xlsxBook } from './helpers.js';

const str = (ref: string, text: string): string => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const num = (ref: string, v: number): string => `<c r="${ref}"><v>${v}</v></c>`;
const fml = (ref: string, f: string, v: number): string => `<c r="${ref}"><f>${f}</f><v>${v}</v></c>`;

const ROWS = 5;

/** A sheet with one table: Qty, then a computed column `Qty*k`. */
const sheet = (name: string, k: number): { name: string; rows: string } => ({
  name,
  rows:
    `<row r="1">${str('A1', 'Qty')}${str('B1', 'Scaled')}</row>` +
    Array.from({ length: ROWS }, (_, i) => {
      const r = i + 2;
      return `<row r="${r}">${num(`A${r}`, r * 3)}${fml(`B${r}`, `A${r}*${k}`, r * 3 * k)}</row>`;
    }).join(''),
});

/** Two sheets of 5 formula cells each; the evaluator works through them in sheet order. */
const twoSheets = (): Uint8Array => xlsxBook([sheet('First', 2), sheet('Second', 3)]);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the what-if evaluator within its budget', () => {
  it('a budget that runs out part way verifies the finished sheet and leaves the other stored-only', async () => {
    // 24 evaluations, a quarter per pass (the stored values, then 3 rounds of edits): 6 per pass
    // reach the first sheet's 5 cells and one of the second's, and no further
    const c = await convertWorkbook(twoSheets(), {
      modelId: 'm',
      whatIf: { limits: { maxMillis: 60_000, maxEvaluations: 24 } },
    });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.compiledCells).toBe(2 * ROWS);
    expect(c.report.verifiedCells).toBe(ROWS);
    expect(c.report.storedOnlyCells).toBe(ROWS);
    const bySheet = new Map(c.report.checks.map((k) => [k.sheet, k]));
    expect(bySheet.get('First')).toMatchObject({ checked: 'what-if 3 edits', cells: ROWS });
    expect(bySheet.get('Second')!.checked).toMatch(
      /^stored-only: Second!B\d: the independent evaluation ran out of its budget before this cell: it stopped after 6 cell evaluations of its 24/,
    );
    // nothing stored-only is counted as verified
    const verified = c.report.checks.filter((k) => k.checked.startsWith('what-if'));
    expect(verified.reduce((n, k) => n + k.cells, 0)).toBe(c.report.verifiedCells);
  });

  it('with the budget enough for everything, both sheets are verified', async () => {
    const c = await convertWorkbook(twoSheets(), {
      modelId: 'm',
      whatIf: { limits: { maxMillis: 60_000, maxEvaluations: 40 } },
    });
    expect([c.report.verifiedCells, c.report.storedOnlyCells]).toEqual([2 * ROWS, 0]);
  });

  it("follows the conversion's time limit: half of it its own, nothing started past 80% of it", async () => {
    expect(gridLimitsFor(60, 1_000)).toEqual({
      maxMillis: 30_000,
      maxEvaluations: 2_000_000,
      deadline: 1_000 + 48_000,
      source: "the conversion's 60-second limit",
    });
    // a conversion whose clock jumps past its 1-second limit right after it starts: the evaluator
    // starts nothing, and says which budget stopped it
    const book = twoSheets();
    const now = Date.now.bind(Date);
    let calls = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => now() + (calls++ === 0 ? 0 : 10_000));
    const c = await convertWorkbook(book, {
      modelId: 'm',
      limits: { ...DEFAULT_LIMITS, timeLimitSeconds: 1 },
    });
    expect([c.report.verifiedCells, c.report.storedOnlyCells]).toEqual([0, 2 * ROWS]);
    for (const k of c.report.checks) {
      expect(k.checked).toMatch(
        /ran out of its budget before this cell: it stopped at the conversion's deadline \(the conversion's 1-second limit\)/,
      );
    }
  });
});

describe("ranges to the sheet's last row or column", () => {
  it('`$1:$1048576` reads the used part: 300 INDEX/MATCH cells well within a 10 s budget', () => {
    // three-statement-avaneesh's pattern: INDEX('BS 2014'!$1:$1048576,MATCH(…),MATCH(…)) read a
    // million rows per cell (42 s and 946 MB there, and the budget ran out)
    const data =
      `<row r="1">${str('A1', 'Key')}${str('B1', 'Value')}</row>` +
      Array.from(
        { length: 20 },
        (_, i) => `<row r="${i + 2}">${str(`A${i + 2}`, `k${i}`)}${num(`B${i + 2}`, i * 10)}</row>`,
      ).join('');
    const uses = Array.from({ length: 300 }, (_, i) => {
      const r = i + 1;
      const key = `k${i % 20}`;
      return `<row r="${r}">${str(`A${r}`, key)}${fml(`B${r}`, `INDEX(Data!$1:$1048576,MATCH(A${r},Data!$A:$A,0),MATCH("Value",Data!$1:$1,0))`, (i % 20) * 10)}${fml(`C${r}`, `SUM(Data!B$1:B$1048576)`, 1900)}</row>`;
    }).join('');
    const book = readWorkbookParts(
      xlsxBook([
        { name: 'Data', rows: data },
        { name: 'Use', rows: uses },
      ]),
    );
    const grid = new CellGrid(book, { maxMillis: 10_000, maxEvaluations: 2_000_000 });
    grid.recalculate();
    expect(grid.budgetExhausted).toBeUndefined();
    for (let r = 1; r <= 300; r++) {
      expect([grid.value(1, r, 2), grid.problem(1, r, 2)]).toEqual([((r - 1) % 20) * 10, undefined]);
      expect(grid.value(1, r, 3)).toBe(1900);
    }
  });
});
