// DATE as Excel reads its arguments, in the compiled model and in the cell-grid evaluator that
// what-if checks compare it with. A real budget had `=DATE(E$5,1,1)` under a year input; the
// what-if edit put 1049 there, the model said 2949 (Excel's reading: a year below 1900 is 1900
// later) and the grid, through formulajs, the year 1049, so 396 right cells were refused as
// WHAT_IF_MISMATCH. Both sides also counted the days of a month on from the wrong serial in
// January and February 1900 (DATE(1900,2,29) is Excel's serial 60).
//
// The oracle is EXPECTED below: serials worked out with Python's datetime (days from 30 December
// 1899, from 31 December before 1 March 1900, the month's first serial plus the day less one).
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { callFunction } from '../../src/sheet/grid/functions.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

/** [year, month, day, Excel's serial or '#NUM!']. */
const EXPECTED: [number, number, number, number | '#NUM!'][] = [
  [2022, 1, 1, 44_562],
  [1049, 1, 1, 383_142],
  [0, 1, 1, 1],
  [99, 12, 31, 36_525],
  [1899, 12, 31, 693_962],
  [1900, 1, 1, 1],
  [1900, 2, 28, 59],
  [1900, 2, 29, 60],
  [1900, 3, 0, 60],
  [1900, 1, 60, 60],
  [1900, 3, 1, 61],
  [1900, 1, 0, 0],
  [1901, 1, 1, 367],
  [2024, 2, 29, 45_351],
  [2024, 14, 1, 45_689],
  [2024, -1, 15, 45_245],
  [9999, 12, 31, 2_958_465],
  [1900, 1, -1, '#NUM!'],
  [-1, 1, 1, '#NUM!'],
  [10_000, 1, 1, '#NUM!'],
  [9999, 13, 1, '#NUM!'],
];

const isNumber = (c: (typeof EXPECTED)[number]): c is [number, number, number, number] =>
  typeof c[3] === 'number';

describe('DATE reads its year and counts its days as Excel does', () => {
  it('the grid evaluator gives Excel serials and #NUM! where Excel does', () => {
    for (const [y, m, d, want] of EXPECTED) {
      const got = callFunction('DATE', [y, m, d]);
      expect(
        typeof got === 'object' && got !== null ? (got as Error).message : got,
        `DATE(${y},${m},${d})`,
      ).toBe(want);
    }
    // arguments as a spreadsheet passes them: text numbers, TRUE, a blank
    expect(callFunction('DATE', ['2024', 1, 1])).toBe(45_292);
    expect(callFunction('DATE', [true, 1, 1])).toBe(367);
    expect(callFunction('DATE', [null, 1, 1])).toBe(1);
  });

  it('the compiled model gives the same serials at the stored values and after a year edit', async () => {
    const cases = EXPECTED.filter(isNumber);
    const bytes = xlsx(
      [
        row(1, text('A1', 'Year'), text('B1', 'Month'), text('C1', 'Day'), text('D1', 'Date')),
        ...cases.map(([y, m, d, serial], i) =>
          row(
            i + 2,
            num(`A${i + 2}`, y),
            num(`B${i + 2}`, m),
            num(`C${i + 2}`, d),
            formula(`D${i + 2}`, `DATE(A${i + 2},B${i + 2},C${i + 2})`, serial),
          ),
        ),
      ].join(''),
    );
    const c = await convertWorkbook(bytes, { modelId: 'dates' });
    // every stored value reproduced (a differing one would be VALUE_MISMATCH), and the what-if
    // edits of the year, month and day inputs agree with the grid evaluator (else WHAT_IF_MISMATCH)
    expect(c.report.rejected).toEqual([]);
    expect(c.report.verifiedCells).toBe(cases.length);
    expect(c.report.checks.find((k) => k.address === 'D')?.checked).toMatch(/^what-if \d+ edits$/);

    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    const rows = async () => ((await runtime.getState()) as { rows: Record<string, unknown>[] }).rows;
    const [first] = await rows();
    const [yearKey, dateKey] = [Object.keys(first!)[0]!, Object.keys(first!)[3]!];
    // every case written into the first row, the model's answer against the oracle's
    for (const [y, m, d, want] of EXPECTED) {
      const keys = Object.keys(first!);
      await runtime.mutate({
        [`$.rows[0].${keys[0]}`]: y,
        [`$.rows[0].${keys[1]}`]: m,
        [`$.rows[0].${keys[2]}`]: d,
      });
      const got = (await rows())[0]![dateKey];
      expect(got ?? '#NUM!', `DATE(${y},${m},${d}) in the model`).toBe(want);
    }
    expect(yearKey).toMatch(/year/i);
  });
});
