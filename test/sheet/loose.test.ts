// Columns that are not table columns (issue 22): under a header, rows holding different formulas
// (a dashboard) or constants above formulas (a projection) are separate cells, each compiled on
// its own and checked against its stored value; the table keeps its other columns.
import { describe, expect, it } from 'vitest';
import {
  compileModel,
  ModelRuntime,
  normalizeSpec,
  runTests,
  type JsonObject,
} from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { cell, xlsxBook, type BookSheet } from './helpers.js';

const { text, num, formula, row } = cell;
const convert = (sheets: BookSheet[]): Promise<SheetConversion> =>
  convertWorkbook(xlsxBook(sheets), { modelId: 'loose' });
const derivations = (c: SheetConversion): string[][] => c.spec.derivations.map((d) => [d.path, d.expr]);

const income: BookSheet = {
  name: 'Income',
  rows: [
    row(1, text('A1', 'Item'), text('B1', 'Amount')),
    row(2, text('A2', 'tickets'), num('B2', 300)),
    row(3, text('A3', 'food'), num('B3', 120)),
  ].join(''),
};

describe('loose columns', () => {
  it('a dashboard column of different formulas becomes one cell per row, named after its row', async () => {
    const board = (net: number): BookSheet => ({
      name: 'Board',
      rows: [
        row(1, text('A1', 'Line'), text('B1', 'Value')),
        row(2, text('A2', 'Income'), formula('B2', 'SUM(Income!B2:B3)', 420)),
        row(3, text('A3', 'Costs'), num('B3', 100)),
        row(4, text('A4', 'Net'), formula('B4', 'B2-B3', net)),
      ].join(''),
    });
    const c = await convert([income, board(320)]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([
      ['$.income_value', '$sum([rows.amount])'],
      ['$.net_value', '$xl_add(income_value, -(costs))'],
    ]);
    expect(c.spec.tests[0]!.given['$.costs']).toBe(100);
    expect((await runTests(c.spec)).failed).toBe(0);
    expect(c.report).toMatchObject({ formulaCells: 2, compiledCells: 2, verifiedCells: 2 });
    // the cells are still checked one by one
    const wrong = await convert([income, board(999)]);
    expect(wrong.rejectedColumns).toEqual([
      expect.objectContaining({ reason: 'VALUE_MISMATCH', column: 'Net Value', address: 'B4' }),
    ]);
  });

  it('the table keeps its filled-down columns; a constant row above formulas is an input', async () => {
    const c = await convert([
      {
        name: 'Plan',
        rows: [
          row(1, text('A1', 'Year'), text('B1', 'Cost'), text('C1', 'Double')),
          row(2, num('A2', 1), num('B2', 10), formula('C2', 'A2*2', 2)),
          row(3, num('A3', 2), formula('B3', 'B2*1.5', 15), formula('C3', 'A3*2', 4)),
          row(4, num('A4', 3), formula('B4', 'B3*1.5', 22.5), formula('C4', 'A4*2', 6)),
        ].join(''),
      },
    ]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([
      ['$.rows[*].double', '($parent.year * 2)'],
      ['$.cost_b3', '(cost * 1.5)'],
      ['$.cost_b4', '(cost_b3 * 1.5)'],
    ]);
    const rows = c.spec.tests[0]!.given['$.rows'] as JsonObject[];
    expect(rows.map((r) => Object.keys(r))).toEqual([['year'], ['year'], ['year']]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it("a filled-down column reading a loose column by row reads each row's own cell, live", async () => {
    // C2 = B2/2 and C3 = B3/2 where B2 is typed and B3 = B2*2: row k of Half reads the cell of its
    // own row (outside-rows.ts), the typed input and the formula cell, never a stored copy
    const c = await convert([
      {
        name: 'Plan',
        rows: [
          row(1, text('A1', 'Year'), text('B1', 'Cost'), text('C1', 'Half')),
          row(2, num('A2', 1), num('B2', 10), formula('C2', 'B2/2', 5)),
          row(3, num('A3', 2), formula('B3', 'B2*2', 20), formula('C3', 'B3/2', 10)),
        ].join(''),
      },
    ]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([
      ['$.rows[*].half', '(($index = 0 ? $$.cost : ($$.cost_b3)) / 2)'],
      ['$.cost_b3', '(cost * 2)'],
    ]);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    await runtime.mutate({ '$.cost': 7 });
    const state = (await runtime.getState()) as { rows: { half: number }[] };
    expect(state.rows.map((r) => r.half)).toEqual([3.5, 7]);
  });
});
