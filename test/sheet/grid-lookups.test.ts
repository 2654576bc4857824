// The cell-grid evaluator's own lookups (src/sheet/grid/lookups.ts): approximate match by Excel's
// sorted-list rule (formulajs scans the whole list), XLOOKUP's match and search modes and XMATCH
// (formulajs has neither), each against Excel's documented answer; and SUM, PRODUCT and
// SUMPRODUCT over a range holding text (formulajs reads "1.41% 1" there as 1.41).
import { describe, expect, it } from 'vitest';
import { callFunction } from '../../src/sheet/grid/functions.js';

const col = (...v: (number | string | null)[]): (number | string | null)[][] => v.map((x) => [x]);
const call = (name: string, ...args: Parameters<typeof callFunction>[1]): unknown => {
  const v = callFunction(name, args);
  return v instanceof Error ? v.message : v;
};

describe('grid lookups', () => {
  it('approximate MATCH / VLOOKUP / HLOOKUP on sorted lists, #N/A below the first and on keys out of order', () => {
    expect(call('MATCH', 3000, col(0, 1000, 5000, 20000), 1)).toBe(2);
    expect(call('MATCH', 3000, col(0, 1000, 5000, 20000))).toBe(2);
    expect(call('MATCH', -5, col(0, 1000, 5000, 20000), 1)).toBe('#N/A');
    expect(call('MATCH', 3000, col(20000, 5000, 1000, 0), -1)).toBe(2);
    expect(call('MATCH', 'BZ', col('apple', 'banana', 'cherry'), 1)).toBe(2);
    // out of order: formulajs gives 4 (the largest value not above 3000); Excel documents no answer
    expect(call('MATCH', 3000, col(0, 5000, 1000, 2000), 1)).toBe('#N/A');
    const table = [
      [0, 0.1],
      [1000, 0.2],
      [5000, 0.3],
    ];
    expect(call('VLOOKUP', 1794, table, 2)).toBe(0.2); // no 4th argument: approximate
    expect(call('VLOOKUP', 1794, table, 2, true)).toBe(0.2);
    expect(call('VLOOKUP', 1000, table, 2, false)).toBe(0.2);
    expect(
      call(
        'VLOOKUP',
        1794,
        [
          [0, 0.1],
          [5000, 0.2],
          [1000, 0.3],
        ],
        2,
      ),
    ).toBe('#N/A');
    expect(
      call(
        'HLOOKUP',
        1794,
        [
          [0, 1000, 5000],
          ['low', 'mid', 'high'],
        ],
        2,
      ),
    ).toBe('mid');
  });

  it('XMATCH and XLOOKUP: exact, next smaller, next larger, first or last, over a list in any order', () => {
    expect(call('XMATCH', 3000, col(20000, 5000, 1000, 0), -1)).toBe(3);
    expect(call('XMATCH', 3000, col(20000, 5000, 1000, 0), 1)).toBe(2);
    expect(call('XMATCH', 7, col(1, 7, 3, 7), 0, -1)).toBe(4);
    expect(call('XMATCH', 'X', col('a', 'x'))).toBe(2);
    expect(call('XMATCH', -1, col(0, 1), -1)).toBe('#N/A');
    expect(call('XLOOKUP', 3000, col(0, 1000, 5000), col(0.1, 0.2, 0.3), 'none', 1)).toEqual([[0.3]]);
    expect(call('XLOOKUP', -1, col(0, 1000, 5000), col(0.1, 0.2, 0.3), 'none', -1)).toBe('none');
    expect(() => callFunction('XMATCH', [3, col(1, 2, 3), 2])).toThrow(/not evaluated/);
  });
});

describe('grid aggregates over ranges holding text', () => {
  it('SUM, PRODUCT and SUMPRODUCT count only the numbers of a range (SUMPRODUCT: the rest as 0)', () => {
    const range = [[1], ['5'], ['1.41% 1'], [true], [null], [2]];
    expect(call('SUM', range)).toBe(3);
    expect(call('PRODUCT', range)).toBe(2);
    expect(call('SUMPRODUCT', [[1], ['x'], [true], [4]], [[2], [3], [5], [0.5]])).toBe(4);
    // a value given directly stays formulajs's to read
    expect(call('SUM', 1, 2)).toBe(3);
  });
});
