// Legacy array (Ctrl+Shift+Enter) formulas of one cell whose ranges stand only where a function
// takes a range (issue 39: a driver switch `{=INDEX(H14:H16,$E$9)}` picking a scenario) compute
// what the plain formula does: they compile, are checked against their stored values and verified
// after edits like any formula. One that lifts a range into an element-by-element computation
// (`{=SUM(IF(B4:B6>0,1,0))}`, `{=SUM(B4:B6*C4:C6)}`) compiles as the SUM of its elements; one
// that is not element-wise, or whose result spans more cells than it computes, stays ARRAY_FORMULA. The stored values are worked out here in plain arithmetic.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { pathOfCell } from '../../src/sheet/cellmap.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row } = cell;
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const arrayCell = (ref: string, f: string, v: number, span = ref): string =>
  `<c r="${ref}"><f t="array" ref="${span}">${esc(f)}</f><v>${v}</v></c>`;

const BEST = [0.05, 0.04, 0.04];
const WORST = [0.04, 0.037, 0.036];
const AVERAGE = [0.045, 0.04, 0.035];

/** A scenario switch in B1, three scenario rows, and the array formula `f` in C2 (stored `v`). */
function book(f: string, v: number, span?: string): Uint8Array {
  const rows = [
    row(1, text('A1', 'Switch'), num('B1', 2)),
    row(2, text('A2', 'Growth'), arrayCell('C2', f, v, span)),
    row(4, text('A4', 'Best'), num('B4', BEST[0]!), num('C4', BEST[1]!), num('D4', BEST[2]!)),
    row(5, text('A5', 'Average'), num('B5', AVERAGE[0]!), num('C5', AVERAGE[1]!), num('D5', AVERAGE[2]!)),
    row(6, text('A6', 'Worst'), num('B6', WORST[0]!), num('C6', WORST[1]!), num('D6', WORST[2]!)),
  ];
  return xlsxBook([{ name: 'Drivers', rows: rows.join('') }]);
}

describe('one-cell legacy array formulas with a scalar result', () => {
  it('compiles {=INDEX(C4:C6,$B$1)} as INDEX, verified, and follows the switch', async () => {
    const c = await convertWorkbook(book('INDEX(C4:C6,$B$1)', AVERAGE[1]!), { modelId: 'arr' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(1);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    const at = (cell: string): string => pathOfCell(c.report.cellMap, `Drivers!${cell}`)!;
    await runtime.mutate({ ...c.spec.tests[0]!.given, [`$.${at('B1')}`]: 3 });
    expect((await runtime.getState())[at('C2')]).toBe(WORST[1]);
  });

  it('compiles a one-cell array formula aggregating whole ranges: {=SUM(B4:D4)+MAX(B6:D6)}', async () => {
    const c = await convertWorkbook(book('SUM(B4:D4)+MAX(B6:D6)', 0.13 + 0.04), { modelId: 'arr' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(1);
  });

  // a SUM over an element-by-element array adds its elements (elementwise.ts)
  it.each([
    ['a range inside IF', 'SUM(IF(B4:B6>0,1,0))', 3],
    ['ranges multiplied', 'SUM(B4:B6*C4:C6)', 0.05 * 0.04 + 0.045 * 0.04 + 0.04 * 0.037],
  ])('compiles a SUM over %s, element by element', async (_what, f, v) => {
    const c = await convertWorkbook(book(f, v), { modelId: 'arr' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(1);
  });

  it.each([
    ['a range as INDEX’s row', 'INDEX(B4:B6,B4:B6)', 0],
    ['an element-wise array under MAX', 'MAX(IF(B4:B6>0,B4:B6))', 0.05],
    ['a result over several cells', 'INDEX(C4:C6,$B$1)', 0.04, 'C2:C3'],
  ])('keeps ARRAY_FORMULA for %s', async (_what, f, v, span?: string) => {
    const c = await convertWorkbook(book(f, v, span), { modelId: 'arr' });
    expect(c.rejectedColumns.map((r) => r.reason)).toContain('ARRAY_FORMULA');
    expect(c.report.compiledCells).toBe(0);
  });
});

describe('the rejection names the kind of array formula', () => {
  // lbo-calebjgartner (third held-out set): `=+C3:C5` over C7:C9 carries `cm="1"`, Excel 365's
  // dynamic array metadata: a spill of the three cells, not a Ctrl+Shift+Enter formula
  // (`+B4:B5` over three cells: the third is #N/A, so it is not compiled element by element)
  const spillBook = (metadata: boolean, formula = '+B4:B5'): Uint8Array =>
    xlsxBook([
      {
        name: 'Drivers',
        rows: [
          row(4, num('B4', 1)),
          row(5, num('B5', 2)),
          row(6, num('B6', 3)),
          row(
            8,
            `<c r="C8"${metadata ? ' cm="1"' : ''}><f t="array" ref="C8:C10">${formula}</f><v>1</v></c>`,
          ),
          row(9, num('C9', 2)),
          row(10, num('C10', 3)),
        ].join(''),
      },
    ]);

  it('a cell with dynamic array metadata is a spill', async () => {
    const c = await convertWorkbook(spillBook(true), { modelId: 'arr' });
    const messages = JSON.stringify(c.report.rejected);
    expect(messages).toContain('C8 is a dynamic array formula (Excel 365) whose result spills over C8:C10');
    expect(messages).not.toContain('Ctrl+Shift+Enter');
  });

  it('a spill of a whole range compiles cell by cell (elementwise.ts), dynamic or legacy', async () => {
    for (const metadata of [true, false]) {
      const c = await convertWorkbook(spillBook(metadata, '+B4:B6'), { modelId: 'arr' });
      expect(c.rejectedColumns).toEqual([]);
      expect(c.report.verifiedCells).toBe(3);
    }
  });

  it('one without is a legacy array', async () => {
    const c = await convertWorkbook(spillBook(false), { modelId: 'arr' });
    expect(JSON.stringify(c.report.rejected)).toContain('C8 is a legacy array (Ctrl+Shift+Enter) formula');
  });
});
