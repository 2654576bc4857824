// An approximate VLOOKUP over a block whose keys mix numbers and text (a real export had both in
// its first column) is refused with APPROXIMATE_VLOOKUP; the sortedness check once called a string
// method on a number and the whole workbook failed as INTERNAL_ERROR.
import { describe, expect, it } from 'vitest';
import { requireSorted } from '../../src/sheet/lookup-tables.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { Rejection } from '../../src/sheet/errors.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

describe('approximate lookups over mixed keys', () => {
  it('requireSorted refuses mixed keys with the rejection, whatever order they are in', () => {
    for (const keys of [
      [1, 'b'],
      ['a', 2],
      [3, 'a', 1],
      [true, 1],
    ]) {
      const rows = keys.map((c1) => ({ c1, c2: 0 }));
      expect(() => requireSorted('VLOOKUP', rows)).toThrow(Rejection);
      expect(() => requireSorted('VLOOKUP', rows)).toThrow(/not all numbers or all text/);
    }
    expect(() => requireSorted('VLOOKUP', [{ c1: 1 }, { c1: 2 }])).not.toThrow();
    expect(() => requireSorted('VLOOKUP', [{ c1: 'a' }, { c1: 'B' }])).not.toThrow();
  });

  it('a workbook with such a lookup converts, that cell rejected and its neighbours verified', async () => {
    const bytes = xlsx(
      [
        row(
          1,
          text('A1', 'Key'),
          text('B1', 'Value'),
          text('D1', 'Find'),
          text('E1', 'Found'),
          text('F1', 'Twice'),
        ),
        row(
          2,
          num('A2', 1),
          num('B2', 10),
          num('D2', 2),
          formula('E2', 'VLOOKUP(D2,$A$2:$B$4,2)', 20),
          formula('F2', 'D2*2', 4),
        ),
        row(3, text('A3', 'x'), num('B3', 20)),
        row(4, num('A4', 3), num('B4', 30)),
      ].join(''),
    );
    const { report } = await convertWorkbook(bytes, { modelId: 'mixed' });
    expect(report.rejected.map((g) => [g.reason, g.examples[0]?.address])).toEqual([
      ['APPROXIMATE_VLOOKUP', 'E'],
    ]);
    expect(report.checks.find((c) => c.address === 'F')?.checked).toMatch(/^what-if \d+ edits$/);
  });
});
