// What-if verification (issue 39): a compiled cell is verified only when the compiled model agrees
// with an independent evaluation of the workbook's own formulas after seeded edits of its inputs.
// Two real wrong-after-edit patterns are compiled wrong on purpose here (the compiler's own fix
// for them is another change): the stored-value check passes them, the what-if check must not.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileModel, ModelRuntime } from '../../src/calc/index.js';
import { cellOfPath, pathOfCell } from '../../src/sheet/cellmap.js';
import { parseFormula, printFormula } from '../../src/sheet/formula.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { FormulaCompiler } from '../../src/sheet/translate.js';
import { workbook, xlsx } from './helpers.js';

const str = (ref: string, text: string): string => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const num = (ref: string, v: number): string => `<c r="${ref}"><v>${v}</v></c>`;
const fml = (ref: string, f: string, v: number): string =>
  `<c r="${ref}"><f>${f.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/>/g, '&gt;').replace(/</g, '&lt;')}</f><v>${v}</v></c>`;

/**
 * `=INDEX(C2:C6,MATCH(B10,B3:B6,0))`: the INDEX range starts a row above the MATCH range. With key
 * 101 it reads C2 (10); compiled as if the ranges were aligned it reads C3, also 10. With key 104
 * Excel gives C5 (30), the aligned reading C6 (40).
 */
const OFFSET_INDEX = 'INDEX(C2:C6,MATCH(B10,B3:B6,0))';
const ALIGNED_INDEX = 'INDEX(C2:C6,MATCH(B10,B2:B6,0))';
const offsetBook = (): Uint8Array =>
  xlsx(
    `<row r="1">${str('A1', 'Name')}${str('B1', 'Key')}${str('C1', 'Value')}</row>` +
      [
        ['start', 100, 10],
        ['a', 101, 10],
        ['b', 102, 20],
        ['c', 103, 30],
        ['d', 104, 40],
      ]
        .map(
          ([n, k, v], i) =>
            `<row r="${i + 2}">${str(`A${i + 2}`, String(n))}${num(`B${i + 2}`, Number(k))}${num(`C${i + 2}`, Number(v))}</row>`,
        )
        .join('') +
      `<row r="10">${str('A10', 'Lookup key')}${num('B10', 101)}</row>` +
      `<row r="11">${str('A11', 'Found')}${fml('B11', OFFSET_INDEX, 10)}</row>`,
  );

/**
 * `=SUMIFS($B$2:$B$5,$A$2:$A$5,">"&B8)`: amounts above a threshold. With threshold 3 both the
 * right reading (A > 3: B5) and an equality (A = 3: B4) give 0; after an edit they part.
 */
const ABOVE = 'SUMIFS($B$2:$B$5,$A$2:$A$5,">"&B8)';
const EQUAL = 'SUMIFS($B$2:$B$5,$A$2:$A$5,B8)';
const criteriaBook = (): Uint8Array =>
  xlsx(
    `<row r="1">${str('A1', 'Qty')}${str('B1', 'Amount')}</row>` +
      [
        [1, 10],
        [2, 20],
        [3, 0],
        [4, 0],
      ]
        .map(([q, a], i) => `<row r="${i + 2}">${num(`A${i + 2}`, q!)}${num(`B${i + 2}`, a!)}</row>`)
        .join('') +
      `<row r="8">${str('A8', 'Threshold')}${num('B8', 3)}</row>` +
      `<row r="9">${str('A9', 'Above')}${fml('B9', ABOVE, 0)}</row>`,
  );

/** Makes the compiler translate `written` as `instead` (a compilation broken on purpose). */
function compileAs(written: string, instead: string): void {
  // the method is called back with its own receiver (original.call(this, …))
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const original = FormulaCompiler.prototype.compile;
  const target = printFormula(parseFormula(written));
  const replacement = parseFormula(instead);
  vi.spyOn(FormulaCompiler.prototype, 'compile').mockImplementation(function (this: FormulaCompiler, f) {
    return original.call(this, printFormula(f) === target ? replacement : f);
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

const reasons = (c: SheetConversion): string[] => c.rejectedColumns.map((r) => r.reason);

describe('what-if verification catches what the stored values hide', () => {
  it.each([
    [
      'an INDEX range offset from its MATCH range, compiled aligned',
      offsetBook,
      OFFSET_INDEX,
      ALIGNED_INDEX,
      'B11',
    ],
    ['a SUMIFS criterion ">"&x, compiled as an equality', criteriaBook, ABOVE, EQUAL, 'B9'],
  ])('%s', async (_name, book, written, instead, cell) => {
    compileAs(written, instead);
    // the stored-value check alone passes the wrong compilation
    const storedOnly = await convertWorkbook(book(), { modelId: 'm', whatIf: false });
    expect(storedOnly.rejectedColumns).toEqual([]);
    expect(storedOnly.report.compiledCells).toBe(1);
    expect(storedOnly.report.verifiedCells).toBe(0);
    expect(storedOnly.report.storedOnlyCells).toBe(1);
    // the what-if check rejects it, with an example edit and both values
    const checked = await convertWorkbook(book(), { modelId: 'm' });
    expect(reasons(checked)).toEqual(['WHAT_IF_MISMATCH']);
    const r = checked.rejectedColumns[0]!;
    expect(r.cell).toBe(cell);
    expect(r.edit).toMatch(/^Sheet1![A-Z]+\d+ \S+ → \S+/);
    expect(r.message).toContain(`Sheet1!${cell} after editing`);
    expect(r.actual).not.toEqual(r.expected);
    expect(checked.report.compiledCells).toBe(0);
    expect(checked.report.rejected.map((g) => g.reason)).toEqual(['WHAT_IF_MISMATCH']);
  });

  it.each([
    ['the INDEX over aligned ranges', ALIGNED_INDEX, offsetBook, 'B11', 10],
    ['the SUMIFS with an equality criterion', EQUAL, criteriaBook, 'B9', 0],
  ])(
    '%s, written so in the workbook, is verified with what-if',
    async (_name, formula, book, cell, value) => {
      // the same workbook with the formula the compilation stands for: now it is right
      const fixed = await convertWorkbook(rewrite(book, formula, cell, value), { modelId: 'm' });
      expect(fixed.rejectedColumns).toEqual([]);
      expect(fixed.report.verifiedCells).toBe(1);
      expect(fixed.report.checks).toEqual([
        expect.objectContaining({ address: cell, checked: 'what-if 3 edits', cells: 1 }),
      ]);
    },
  );

  it('the edits are seeded: the same workbook gives the same report', async () => {
    compileAs(ABOVE, EQUAL);
    const a = await convertWorkbook(criteriaBook(), { modelId: 'm' });
    const b = await convertWorkbook(criteriaBook(), { modelId: 'm' });
    expect(a.rejectedColumns).toEqual(b.rejectedColumns);
  });
});

/** The book of `make` with the formula of `cell` replaced (the stored value stays `value`). */
function rewrite(make: () => Uint8Array, formula: string, cell: string, value: number): Uint8Array {
  if (make === offsetBook) {
    return xlsx(
      `<row r="1">${str('A1', 'Name')}${str('B1', 'Key')}${str('C1', 'Value')}</row>` +
        [
          ['start', 100, 10],
          ['a', 101, 10],
          ['b', 102, 20],
          ['c', 103, 30],
          ['d', 104, 40],
        ]
          .map(
            ([n, k, v], i) =>
              `<row r="${i + 2}">${str(`A${i + 2}`, String(n))}${num(`B${i + 2}`, Number(k))}${num(`C${i + 2}`, Number(v))}</row>`,
          )
          .join('') +
        `<row r="10">${str('A10', 'Lookup key')}${num('B10', 101)}</row>` +
        `<row r="11">${str('A11', 'Found')}${fml(cell, formula, value)}</row>`,
    );
  }
  return xlsx(
    `<row r="1">${str('A1', 'Qty')}${str('B1', 'Amount')}</row>` +
      [
        [1, 10],
        [2, 20],
        [3, 0],
        [4, 0],
      ]
        .map(([q, a], i) => `<row r="${i + 2}">${num(`A${i + 2}`, q!)}${num(`B${i + 2}`, a!)}</row>`)
        .join('') +
      `<row r="8">${str('A8', 'Threshold')}${num('B8', 3)}</row>` +
      `<row r="9">${str('A9', 'Above')}${fml(cell, formula, value)}</row>`,
  );
}

describe('a converted model starts where the workbook is', () => {
  it('get_state right after creation shows the workbook values (orders.xlsx)', async () => {
    const c = await convertWorkbook(workbook('orders.xlsx'), { modelId: 'orders' });
    const runtime = new ModelRuntime(await compileModel(c.spec), { historyCapacity: 0 });
    await runtime.initialize({ recomputeAll: true });
    const state = await runtime.getState();
    const given = c.spec.tests[0]!.given;
    const expected = c.spec.tests[0]!.expect;
    // inputs: the workbook's rows; formulas: the values the workbook stored
    const rows = state.rows as Record<string, unknown>[];
    expect(rows.map((r) => ({ product: r.product, qty: r.qty, unit_price: r.unit_price }))).toEqual(
      given['$.rows'],
    );
    for (const [path, value] of Object.entries(expected)) {
      expect(await runtime.getValue(path), path).toEqual(value);
    }
  });

  it('a side input (a rate, a key) holds its cell value', async () => {
    const c = await convertWorkbook(rewrite(criteriaBook, EQUAL, 'B9', 0), { modelId: 'm' });
    expect(c.rejectedColumns).toEqual([]);
    const runtime = new ModelRuntime(await compileModel(c.spec), { historyCapacity: 0 });
    await runtime.initialize({ recomputeAll: true });
    expect(await runtime.getValue('$.threshold')).toBe(3);
    expect(await runtime.getValue('$.above')).toBe(0);
  });
});

describe('the cell map', () => {
  it('maps every field to its cells and back, in the report and in the schema', async () => {
    const c = await convertWorkbook(rewrite(offsetBook, ALIGNED_INDEX, 'B11', 10), { modelId: 'm' });
    expect(c.rejectedColumns).toEqual([]);
    const map = c.report.cellMap;
    expect(map).toEqual(
      expect.arrayContaining([
        { cells: 'Sheet1!B2:B6', path: 'rows[*].key', kind: 'input' },
        { cells: 'Sheet1!C2:C6', path: 'rows[*].value', kind: 'input' },
        { cells: 'Sheet1!B10', path: 'lookup_key', kind: 'input' },
        { cells: 'Sheet1!B11', path: 'found', kind: 'formula' },
      ]),
    );
    // cell → path
    expect(pathOfCell(map, 'Sheet1!C5')).toBe('rows[3].value');
    expect(pathOfCell(map, 'sheet1!B10')).toBe('lookup_key');
    expect(pathOfCell(map, 'Sheet1!B11')).toBe('found');
    expect(pathOfCell(map, 'Sheet1!C7')).toBeUndefined();
    // path → cell
    expect(cellOfPath(map, 'rows[3].value')).toBe('Sheet1!C5');
    expect(cellOfPath(map, 'rows[0].key')).toBe('Sheet1!B2');
    expect(cellOfPath(map, 'found')).toBe('Sheet1!B11');
    expect(cellOfPath(map, 'rows[5].value')).toBeUndefined();
    // every entry both ways
    for (const e of map) expect(pathOfCell(map, e.cells.split(':')[0]!)).toBe(e.path.replace('[*]', '[0]'));
    // the schema carries the same cells in each field's annotation
    const props = c.spec.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.found!['x-cell']).toBe('Sheet1!B11');
    expect(props.lookup_key!['x-cell']).toBe('Sheet1!B10');
    const row = (props.rows!.items as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(row.value!['x-cells']).toBe('Sheet1!C2:C6');
  });
});
