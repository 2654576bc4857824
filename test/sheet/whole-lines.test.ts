// Whole rows and whole columns (issue 39): `$1:$1`, `2:2`, `A:A`, `$B:$D` read the used part of
// their sheet wherever a range is read. The stored values were recalculated by LibreOffice 7.4
// (`soffice --headless --convert-to xlsx` of this same workbook written without values: see the
// report of issue 39's branch), not by our converter; a formula inside its own row is circular there too.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook, parseFormula, printFormula } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

/** Data: a table Name | Q1 | Q2 | Q3; Calc: formulas over whole rows and columns, side cells in E and row 8. */
function book(): Uint8Array {
  const data = [
    row(1, text('A1', 'Name'), text('B1', 'Q1'), text('C1', 'Q2'), text('D1', 'Q3')),
    row(2, text('A2', 'north'), num('B2', 10), num('C2', 20), num('D2', 30)),
    row(3, text('A3', 'south'), num('B3', 1), num('C3', 2), num('D3', 4)),
    row(4, text('A4', 'east'), num('B4', 100), num('C4', 200), num('D4', 400)),
  ].join('');
  const calc = [
    row(1, text('A1', 'Q2 at'), formula('B1', 'MATCH("Q2",$8:$8,0)', 5), num('E1', 5)),
    row(2, text('A2', 'South total'), formula('B2', 'SUM(Data!3:3)', 7)),
    row(3, text('A3', 'Q2 total'), formula('B3', 'SUM(Data!C:C)', 222), num('E3', 8)),
    row(4, text('A4', 'Side total'), formula('B4', 'SUM($E:$E)', 13)),
    row(5, text('A5', 'Largest'), formula('B5', 'MAX(Data!$2:$4)', 400)),
    row(6, text('A6', 'Counted'), formula('B6', 'COUNT(Data!B:D)', 9)),
    // a row of labels with nothing under it: side cells, not a table; MATCH counts from column A
    row(8, text('D8', 'Q1'), text('E8', 'Q2'), text('F8', 'Q3')),
  ].join('');
  return xlsxBook([
    { name: 'Data', rows: data },
    { name: 'Calc', rows: calc },
  ]);
}

async function runtimeOf(spec: Awaited<ReturnType<typeof convertWorkbook>>['spec']): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(spec.tests[0]!.given);
  return runtime;
}

describe('whole rows and whole columns', () => {
  it('parse and print as written', () => {
    for (const src of ['SUM($1:$1)', 'SUM(2:5)', "SUM('My data'!$3:$3)", 'SUM(A:A)', 'SUM($B:$D)'])
      expect(printFormula(parseFormula(src))).toBe(src);
    expect(parseFormula('2:2')).toMatchObject({
      kind: 'range',
      from: { row: 2, col: 0 },
      to: { row: 2, col: 0 },
    });
  });

  it('read the used part of their sheet in MATCH, SUM, MAX and COUNT, and follow edits', async () => {
    const c = await convertWorkbook(book(), { modelId: 'whole' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(6);
    const runtime = await runtimeOf(c.spec);
    await runtime.mutate({ '$.rows[1].q3': 40, '$.calc_e3': 1, '$.rows[2].q1': 1000, '$.calc_f8': 'Q2' });
    const state = await runtime.getState();
    expect(state.q2_at).toBe(5);
    expect([state.south_total, state.q2_total, state.side_total, state.largest, state.counted]).toEqual([
      1 + 2 + 40,
      222,
      5 + 1,
      1000,
      9,
    ]);
  });

  it('a formula inside its own whole row is a circular reference', async () => {
    const calc = [
      row(1, text('A1', 'Self'), num('B1', 5), formula('C1', 'SUM(1:1)', 0)),
      row(2, text('A2', 'Own column'), formula('B2', 'SUM(B:B)', 0)),
    ].join('');
    const c = await convertWorkbook(xlsxBook([{ name: 'Calc', rows: calc }]), { modelId: 'whole' });
    expect(c.rejectedColumns.map((r) => [r.address, r.reason])).toEqual([
      ['C1', 'CIRCULAR_REFERENCE'],
      ['B2', 'CIRCULAR_REFERENCE'],
    ]);
  });
});
