// A range over several columns of the formula's own row (issue 39: a weekly cash flow's
// `=SUM(Table1[[#This Row],[w1]:[w53]])`, and a plain `=SUM(H8:K8)`), in a table of several rows
// and in a table of one row, where the same range also covers every row of those columns and was
// taken for moving whole columns (CROSS_ROW_REFERENCE). SUM, MIN, MAX, AVERAGE and COUNT of the
// row's fields. Headless LibreOffice recalculates the workbook and copies with other weekly
// figures; the model, given the same figures, must give what LibreOffice computed. The Excel Table
// form (which LibreOffice does not write) is checked with stored values worked out here.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { pathOfCell } from '../../src/sheet/cellmap.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { cell, xlsxBook } from './helpers.js';
import { recalculate, SOFFICE, type CellValue, type LoBook } from './libreoffice.js';

const { text, num, formula, row } = cell;
const AGGREGATES = ['SUM', 'MIN', 'MAX', 'AVERAGE', 'COUNT'];
const weeks = (seed: number, r: number): number[] =>
  [0, 1, 2, 3].map((w) => ((seed * 13 + r * 7 + w * 29) % 41) - 12 + (w === 2 ? 0.25 : 0));

/** Two tables: rows 2..5 (several rows) and row 9 alone under its header; H..K weekly figures. */
function book(seed: number): LoBook {
  const header: CellValue[] = [
    'Type',
    'Title',
    'Total',
    'Low',
    'High',
    'Mean',
    'Count',
    'w1',
    'w2',
    'w3',
    'w4',
  ];
  const line = (r: number): CellValue[] => [
    'in',
    `line ${r}`,
    ...AGGREGATES.map((fn) => `=${fn}(H${r}:K${r})`),
    ...weeks(seed, r),
  ];
  const rows: CellValue[][] = [header, line(2), line(3), line(4), line(5), [], [], header, line(9)];
  return { name: `spans${seed}`, sheets: [{ name: 'Data', rows }] };
}

const valueAt = (bytes: Uint8Array, r: number, c: number): CellValue => {
  const v = readWorkbookParts(bytes).sheets[0]!.cells.get(`${r}:${c}`)?.value ?? null;
  return v !== null && typeof v === 'object' ? null : v;
};

describe.skipIf(!SOFFICE)('a range over several columns of the own row', () => {
  it('compiles SUM/MIN/MAX/AVERAGE/COUNT of the row in both tables and agrees with LibreOffice', async () => {
    const seeds = [0, 5, 9];
    const files = recalculate(seeds.map(book));
    const c = await convertWorkbook(files[0]!, { modelId: 'spans' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    expect(c.report.verifiedCells).toBe(5 * 5);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    const at = (r: number, col: number): string =>
      pathOfCell(c.report.cellMap, `Data!${String.fromCharCode(64 + col)}${r}`)!;
    const read = (state: unknown, path: string): unknown =>
      path
        .split(/[.[\]]+/)
        .filter(Boolean)
        .reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], state);
    for (const [k, seed] of seeds.entries()) {
      const edits: Record<string, number> = {};
      for (const r of [2, 3, 4, 5, 9]) weeks(seed, r).forEach((v, w) => (edits[`$.${at(r, 8 + w)}`] = v));
      await runtime.mutate(edits);
      const state = await runtime.getState();
      for (const r of [2, 3, 4, 5, 9]) {
        for (let col = 3; col <= 7; col++) {
          expect(read(state, at(r, col)), `row ${r} column ${col}, seed ${seed}`).toBeCloseTo(
            valueAt(files[k]!, r, col) as number,
            9,
          );
        }
      }
    }
  }, 300_000);
});

describe('a this-row span of an Excel Table of one row', () => {
  it('compiles =SUM(Table1[[#This Row],[w1]:[w3]]) to the row’s fields', async () => {
    const table =
      '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Table1" displayName="Table1" ref="A1:E2"><tableColumns count="5"><tableColumn id="1" name="Title"/><tableColumn id="2" name="Total"/><tableColumn id="3" name="w1"/><tableColumn id="4" name="w2"/><tableColumn id="5" name="w3"/></tableColumns></table>';
    const rows = [
      row(1, text('A1', 'Title'), text('B1', 'Total'), text('C1', 'w1'), text('D1', 'w2'), text('E1', 'w3')),
      row(
        2,
        text('A2', 'rent'),
        formula('B2', 'SUM(Table1[[#This Row],[w1]:[w3]])', 4 + 2.5 - 1),
        num('C2', 4),
        num('D2', 2.5),
        num('E2', -1),
      ),
    ].join('');
    const c = await convertWorkbook(xlsxBook([{ name: 'Data', rows, tables: [table] }]), { modelId: 'tb' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(1);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate({ ...c.spec.tests[0]!.given, '$.table1[0].w2': 10 });
    expect(((await runtime.getState()).table1 as { total: number }[])[0]!.total).toBe(13);
  });
});
