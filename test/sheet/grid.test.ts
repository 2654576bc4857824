// The independent cell-grid evaluator (src/sheet/grid/) and the exact IEEE comparison (issue 39).
import { describe, expect, it } from 'vitest';
import { CellGrid } from '../../src/sheet/grid/evaluate.js';
import { approxAdd, approxEqual, compare } from '../../src/sheet/grid/values.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cellKey, readWorkbookParts } from '../../src/sheet/xlsx.js';
import { xlsx, xlsxBook } from './helpers.js';
import { recalculate, SOFFICE } from './libreoffice.js';

const str = (ref: string, text: string): string => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const num = (ref: string, v: number): string => `<c r="${ref}"><v>${v}</v></c>`;
const fml = (ref: string, f: string, v = 0): string =>
  `<c r="${ref}"><f>${f.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</f><v>${v}</v></c>`;

describe('the cell-grid evaluator', () => {
  it('evaluates references across sheets, defined names, operators and formulajs functions', () => {
    const book = readWorkbookParts(
      xlsxBook(
        [
          {
            name: 'Data',
            rows:
              `<row r="1">${num('A1', 2)}${num('B1', 10)}${fml('C1', 'A1*B1+Rate')}</row>` +
              `<row r="2">${num('A2', 3)}${num('B2', 20)}${fml('C2', 'SUMIFS(B1:B2,A1:A2,">"&A1)')}</row>` +
              `<row r="3">${str('A3', 'x')}${fml('B3', 'A3&"-"&A1')}${fml('C3', '1/0')}</row>` +
              `<row r="4">${fml('A4', 'IFERROR(C3,"none")')}${fml('B4', 'Other!A1*2')}${fml('C4', 'IF(A1>1,"big","small")')}</row>`,
          },
          { name: 'Other', rows: `<row r="1">${num('A1', 7)}</row>` },
        ],
        '<definedName name="Rate">Other!$A$1</definedName>',
      ),
    );
    const grid = new CellGrid(book);
    grid.recalculate();
    expect(grid.value(0, 1, 3)).toBe(27); // 2*10 + 7
    expect(grid.value(0, 2, 3)).toBe(20); // the amounts where A > 2
    expect(grid.value(0, 3, 2)).toBe('x-2');
    expect((grid.value(0, 3, 3) as Error).message).toBe('#DIV/0!');
    expect(grid.value(0, 4, 1)).toBe('none');
    expect(grid.value(0, 4, 2)).toBe(14);
    expect(grid.value(0, 4, 3)).toBe('big');
    // an edit recalculates what depends on it, and only that; the grid is restored after
    const after = grid.withEdits([{ sheet: 0, row: 1, col: 1, value: 0.5 }], (recalculated) => ({
      c1: grid.value(0, 1, 3),
      c2: grid.value(0, 2, 3),
      b3: grid.value(0, 3, 2),
      b4: recalculated.has('0:4:2'),
      count: recalculated.size,
    }));
    expect(after).toEqual({ c1: 12, c2: 20, b3: 'x-0.5', b4: false, count: 4 });
    expect(grid.value(0, 1, 3)).toBe(27);
  });

  it('COUNTA counts a formula\'s "" as Excel and LibreOffice do (formulajs skips it)', () => {
    const book = readWorkbookParts(
      xlsx(
        `<row r="1">${num('A1', 2)}${fml('B1', 'IF(A1>1,"","x")')}${str('C1', 'y')}${fml('D1', 'COUNTA(B1:C1)')}</row>`,
      ),
    );
    const grid = new CellGrid(book);
    grid.recalculate();
    expect(grid.value(0, 1, 4)).toBe(2);
  });

  it('reports a cycle instead of looping, and the cells that read it', () => {
    const book = readWorkbookParts(
      xlsx(
        `<row r="1">${fml('A1', 'B1+1')}${fml('B1', 'A1+1')}${fml('C1', 'A1*2')}${num('D1', 4)}${fml('E1', 'D1*2', 8)}</row>`,
      ),
    );
    const grid = new CellGrid(book);
    grid.recalculate();
    expect(grid.problem(0, 1, 1)).toBe('it is on a circular reference');
    expect(grid.problem(0, 1, 2)).toBe('it is on a circular reference');
    expect(grid.problem(0, 1, 3)).toMatch(/reads Sheet1!A1, which cannot be evaluated/);
    expect(grid.problem(0, 1, 5)).toBeUndefined();
    expect(grid.value(0, 1, 5)).toBe(8);
  });

  it('does not evaluate what it cannot vouch for: volatile, dynamic references, unknown functions', () => {
    const book = readWorkbookParts(
      xlsx(
        `<row r="1">${fml('A1', 'TODAY()')}${fml('B1', 'OFFSET(A1,1,0)')}${fml('C1', 'NOSUCHFUNCTION(1)')}</row>`,
      ),
    );
    const grid = new CellGrid(book);
    expect(grid.problem(0, 1, 1)).toMatch(/TODAY is volatile/);
    expect(grid.problem(0, 1, 2)).toMatch(/OFFSET makes its reference as it runs/);
    expect(grid.problem(0, 1, 3)).toMatch(/NOSUCHFUNCTION is not evaluated/);
  });

  it('evaluates LET, LAMBDA (in place and through a defined name) and whole rows, and follows their edits', () => {
    const book = readWorkbookParts(
      xlsxBook(
        [
          {
            name: 'Calc',
            rows:
              `<row r="1">${num('A1', 2)}${num('B1', 3)}</row>` +
              `<row r="2">${fml('A2', '_xlfn.LET(_xlpm.x,A1,_xlfn.LET(_xlpm.x,_xlpm.x+1,_xlpm.x*B1)+_xlpm.x)')}` +
              `${fml('B2', '_xlfn.LET(_xlpm.a,10,_xlfn.LAMBDA(_xlpm.x,_xlpm.x+_xlpm.a)(A1))')}` +
              `${fml('C2', 'AddTax(A1)+AddTax(B1)')}${fml('D2', '_xlfn.LAMBDA(_xlpm.x,_xlpm.y,_xlpm.x+_xlpm.y)(A1)')}</row>` +
              `<row r="3">${fml('A3', 'SUM(Data!2:2)')}${fml('B3', 'MATCH(4,Data!$2:$2,0)')}` +
              `${fml('C3', '_xlfn.LET(_xlpm.k,2,Scale(A1))')}</row>`,
          },
          { name: 'Data', rows: `<row r="2">${num('A2', 1)}${num('B2', 2)}${num('C2', 4)}</row>` },
        ],
        '<definedName name="AddTax">_xlfn.LAMBDA(_xlpm.v,_xlpm.v*1.25)</definedName>' +
          '<definedName name="Scale">_xlfn.LAMBDA(_xlpm.x,_xlpm.x*_xlpm.k)</definedName>',
      ),
    );
    const grid = new CellGrid(book);
    grid.recalculate();
    expect(grid.value(0, 2, 1)).toBe((2 + 1) * 3 + 2);
    expect(grid.value(0, 2, 2)).toBe(12); // an in-place LAMBDA sees the LET names around it
    expect(grid.value(0, 2, 3)).toBe(2 * 1.25 + 3 * 1.25);
    expect((grid.value(0, 2, 4) as Error).message).toBe('#VALUE!'); // one argument short, as in Excel
    expect(grid.value(0, 3, 1)).toBe(7);
    expect(grid.value(0, 3, 2)).toBe(3);
    // a LAMBDA behind a defined name does not see the caller's LET names (#NAME? in Excel)
    expect(grid.problem(0, 3, 3)).toMatch(/'_xlpm.k' is not a defined name/);
    const after = grid.withEdits(
      [
        { sheet: 0, row: 1, col: 1, value: 10 },
        { sheet: 1, row: 2, col: 3, value: 40 },
      ],
      () => [grid.value(0, 2, 1), grid.value(0, 2, 2), grid.value(0, 2, 3), grid.value(0, 3, 1)],
    );
    expect(after).toEqual([(10 + 1) * 3 + 10, 20, 10 * 1.25 + 3 * 1.25, 43]);
  });

  it('stops at its budget and keeps what it finished', () => {
    const rows = Array.from(
      { length: 50 },
      (_, i) => `<row r="${i + 1}">${num(`A${i + 1}`, i)}${fml(`B${i + 1}`, `A${i + 1}*2`)}</row>`,
    );
    const grid = new CellGrid(readWorkbookParts(xlsx(rows.join(''))), {
      maxMillis: 10_000,
      maxEvaluations: 10,
    });
    grid.recalculate();
    expect(grid.budgetExhausted).toMatch(/stopped after 10 cell evaluations of its 10/);
    // the stored values are 0: the first ten cells are evaluated, the others are not vouched for
    for (let r = 1; r <= 10; r++)
      expect([grid.value(0, r, 2), grid.problem(0, r, 2)]).toEqual([(r - 1) * 2, undefined]);
    for (let r = 11; r <= 50; r++)
      expect(grid.problem(0, r, 2)).toMatch(/ran out of its budget before this cell/);
  });
});

describe.skipIf(!SOFFICE)('criteria and lookups as LibreOffice computes them', () => {
  // the grid evaluates the workbook LibreOffice recalculated and must give LibreOffice's values
  const FORMULAS = [
    'COUNTIF(A2:A9,"a*")',
    'COUNTIF(A2:A9,"?iwi")',
    'SUMIF(A2:A9,"*an*",C2:C9)',
    'SUMIF(A2:A9,"a~*c",C2:C9)',
    'COUNTIF(A2:A9,"APPLE")',
    'AVERAGEIF(A2:A9,"<>kiwi",C2:C9)',
    'COUNTIFS(A2:A9,"b*",B2:B9,">=3")',
    '_xlfn.MAXIFS(C2:C9,A2:A9,"?an*")',
    '_xlfn.MINIFS(C2:C9,A2:A9,"zzz")',
    'SUMIFS(C2:C9,A2:A9,"<>*",B2:B9,"<5")',
    // a sum range of one cell is read as the criteria range's size from there: C4:C7
    'SUMIF(B2:B5,">2",C4)',
    'AVERAGEIF(B2:B5,">2",C4)',
  ];
  it('matches wildcards without case and sizes the sum range as Excel does', () => {
    const cats = ['apple', 'Banana', 'kiwi', 'a*c', 'Kiwi', 'banana split', 'abc', 'fig'];
    const rows = [['Cat', 'Num', 'Amt'], ...cats.map((c, i) => [c, (i * 3) % 7, 10 * (i + 1) + 0.5])];
    const cells = Object.fromEntries(FORMULAS.map((f, i) => [`F${i + 1}`, `=${f}`]));
    const [bytes] = recalculate([{ name: 'criteria-grid', sheets: [{ name: 'S', rows, cells }] }]);
    const book = readWorkbookParts(bytes!);
    const grid = new CellGrid(book);
    grid.recalculate();
    const sheet = book.sheets[0]!;
    FORMULAS.forEach((f, i) => {
      const stored = sheet.cells.get(cellKey(i + 1, 6))?.value;
      expect(grid.problem(0, i + 1, 6), f).toBeUndefined();
      const mine = grid.value(0, i + 1, 6);
      // LibreOffice writes 15 significant digits
      if (typeof stored === 'number') expect(mine, f).toBeCloseTo(stored, 9);
      else expect(mine, f).toBe(stored);
    });
  });

  it('an approximate VLOOKUP over unsorted keys is #N/A by the sorted-list rule, as the model gives no value', () => {
    const rows = [
      ['Key', 'Tag'],
      ['pen', 'p'],
      ['box', 'b'],
      ['ink', 'i'],
      ['cap', 'c'],
    ];
    const cells = { E1: 'ink', F1: '=VLOOKUP(E1,A2:B5,2)', F2: '=VLOOKUP(E1,A2:B5,2,FALSE)' };
    const [bytes] = recalculate([{ name: 'unsorted', sheets: [{ name: 'S', rows, cells }] }]);
    const grid = new CellGrid(readWorkbookParts(bytes!));
    grid.recalculate();
    // Excel documents no answer there (each spreadsheet answers by its own binary search): the
    // evaluator, like the compiled model (xl_approx), gives #N/A rather than a formulajs scan's value
    expect(grid.problem(0, 1, 6)).toBeUndefined();
    expect(String(grid.value(0, 1, 6))).toMatch(/#N\/A/);
    expect(grid.problem(0, 2, 6)).toBeUndefined();
    expect(grid.value(0, 2, 6)).toBe('i');
  });
});

describe("Excel's comparisons: exact doubles, equal within the last bits", () => {
  it('compares and cancels as Excel and LibreOffice do', () => {
    expect(0.1 + 0.2 === 0.3).toBe(false);
    expect(approxEqual(0.1 + 0.2, 0.3)).toBe(true); // =0.1+0.2=0.3 is TRUE in a spreadsheet
    expect(approxEqual(1, 1 + 1e-12)).toBe(false);
    expect(compare(0.1 + 0.2, 0.3)).toBe(0);
    expect(approxAdd(0.3, -(0.1 + 0.2))).toBe(0); // =0.3-(0.1+0.2) is 0, not -5.55e-17
    expect(compare('Apple', 'apple')).toBe(0);
    expect(compare(5, 'a')).toBe(-1); // numbers sort before text
    expect(compare(null, '')).toBe(0);
  });

  it('the compiled spec holds the plain double the workbook stored, not 15 digits of it', async () => {
    // 0.1 + 0.2 is stored by the spreadsheet as 0.30000000000000004 (the double); the compiled
    // model computes the same double, so the spec's test holds it exactly
    const c = await convertWorkbook(
      xlsx(
        `<row r="1">${str('A1', 'A')}${str('B1', 'B')}${str('C1', 'Sum')}</row>` +
          `<row r="2">${num('A2', 0.1)}${num('B2', 0.2)}${fml('C2', 'A2+B2', 0.30000000000000004)}</row>` +
          `<row r="3">${num('A3', 1)}${num('B3', 2)}${fml('C3', 'A3+B3', 3)}</row>`,
      ),
      { modelId: 'exact' },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.tests[0]!.expect['$.rows[0].sum']).toBe(0.30000000000000004);
    expect(c.spec.derivations[0]!.expr).toBe('($parent.a + $parent.b)');
  });
});
