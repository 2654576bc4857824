// Element-wise array formulas rewritten cell by cell (src/sheet/elementwise.ts): which formulas
// are element-wise, each cell's element, and where the rewrite refuses (the caller then keeps
// ARRAY_FORMULA).
import { describe, expect, it } from 'vitest';
import { elementShape, expandArraySums, spillElement } from '../../src/sheet/elementwise.js';
import { parseFormula, printFormula } from '../../src/sheet/formula.js';

const element = (f: string, rows: number, cols: number, dr: number, dc: number): string | undefined => {
  const e = spillElement(parseFormula(f), rows, cols, dr, dc);
  return e && printFormula(e);
};

describe('element-wise array formulas', () => {
  it('gives the shape of ranges under operators and one-value functions, a row or column repeated', () => {
    expect(elementShape(parseFormula('C5:E8*J4:L4'))).toEqual({ rows: 4, cols: 3 });
    expect(elementShape(parseFormula('TRANSPOSE(B1:D2)'))).toEqual({ rows: 3, cols: 2 });
    expect(elementShape(parseFormula('ROUND(B2:B9*$C$1,2)'))).toEqual({ rows: 8, cols: 1 });
    expect(elementShape(parseFormula('B2:B9-SUM(B2:B9)'))).toEqual({ rows: 8, cols: 1 });
  });

  it.each([
    ['two blocks of different shapes', 'B2:C4*D2:F4'],
    ['a whole column', 'B:B*2'],
    ['a function that takes an array whole', 'LARGE(B2:B9,1)+B2:B9'],
    ['a range where SUM takes a value', 'SUM(B2:B9*2)+B2:B9'],
    ['a table column', 'Sales[Qty]*2'],
  ])('refuses %s', (_what, f) => {
    expect(elementShape(parseFormula(f))).toBeUndefined();
  });

  it('gives each cell its element', () => {
    expect(element('C5:E8*J4:L4', 4, 3, 2, 1)).toBe('D7*K4');
    expect(element('TRANSPOSE(B1:D2)', 3, 2, 2, 1)).toBe('D2');
    expect(element('+$B$3:$D$3*$B$6', 1, 3, 0, 2)).toBe('+$D$3*$B$6');
  });

  it('refuses a result range larger than the shape (its cells past it are #N/A) and a one-value formula', () => {
    expect(element('A2:A3*2', 3, 1, 0, 0)).toBeUndefined();
    expect(element('INDEX(C4:C6,$B$1)', 2, 1, 0, 0)).toBeUndefined();
    // a column repeated across a wider result is what Excel shows
    expect(element('A2:A4*2', 3, 2, 1, 1)).toBe('A3*2');
  });

  it('expands a SUM over an element-wise array, in sums of at most 250 past 255 arguments', () => {
    expect(printFormula(expandArraySums(parseFormula('SUM(IF(A2:A4="N",B2:B4,0))+1'))!)).toBe(
      'SUM(IF(A2="N",B2,0),IF(A3="N",B3,0),IF(A4="N",B4,0))+1',
    );
    expect(expandArraySums(parseFormula('SUM(B2:B9)'))).toBeUndefined();
    const long = expandArraySums(parseFormula('SUM(B1:B300*2)'))!;
    expect(long.kind === 'call' && long.args.map((a) => a.kind === 'call' && a.args.length)).toEqual([
      250, 50,
    ]);
    expect(expandArraySums(parseFormula('SUM(B1:B600*2)'))).toBeUndefined();
  });
});
