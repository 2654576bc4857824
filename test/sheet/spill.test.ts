// The cells of an array formula's result range (an Excel 365 spill, a multi-cell legacy array)
// hold the anchor's result, though the file stores them as plain values. A formula reading one must
// not be compiled against that value as if it were a constant: no edit of the array's inputs would
// move it, and it would still agree with the stored values (issue 39).
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

/** Scores in A2:A4, their SORT spilled into C2:C4, and E2 = C3*10 (the middle of the spill). */
function book(anchor = '_xlfn._xlws.SORT(A2:A4)', stored = [10, 20, 30]): Uint8Array {
  const spill = (ref: string, v: number): string => `<c r="${ref}"><v>${v}</v></c>`;
  return xlsxBook([
    {
      name: 'Sheet1',
      rows: [
        row(1, text('A1', 'Score'), text('C1', 'Sorted'), text('E1', 'Middle')),
        row(
          2,
          num('A2', 30),
          `<c r="C2"><f t="array" ref="C2:C4">${anchor}</f><v>${stored[0]}</v></c>`,
          formula('E2', 'C3*10', stored[1]! * 10),
        ),
        row(3, num('A3', 10), spill('C3', stored[1]!)),
        row(4, num('A4', 20), spill('C4', stored[2]!)),
      ].join(''),
    },
  ]);
}

describe('array results (spills)', () => {
  it('the cells of a spill are marked as the anchor’s result, not constants', () => {
    const sheet = readWorkbookParts(book()).sheets[0]!;
    const c3 = [...sheet.cells.values()].find((c) => c.row === 3 && c.col === 3)!;
    expect(c3.formula).toEqual({ array: true, spillOf: 'C2' });
  });

  it('a formula reading a cell of a compiled spill reads the array there, checked after edits', async () => {
    const c = await convertWorkbook(book(), { modelId: 'spill' });
    expect(c.rejectedColumns).toEqual([]);
    const middle = c.spec.derivations.find((d) => d.description?.includes('(cell E2)'));
    expect(middle?.expr).toBe('(sorted_2 * 10)');
    expect(c.report.checks.find((k) => k.address === 'E2')?.checked).toMatch(/^what-if/);
  });

  it('a formula reading a cell of an element-wise legacy array result follows its element', async () => {
    const c = await convertWorkbook(book('A2:A4*2', [60, 20, 40]), { modelId: 'spill' });
    expect(c.rejectedColumns).toEqual([]);
    const middle = c.spec.derivations.find((d) => d.description?.includes('(cell E2)'));
    expect(middle?.expr).toMatch(/\* 10/);
    expect(c.report.checks.find((k) => k.address === 'E2')?.checked).toMatch(/^what-if/);
  });

  it('a formula reading a cell of a legacy array result is rejected, never compiled against its stored value', async () => {
    // A2:A3 is shorter than the result C2:C4: its last cell is #N/A, not an element
    const c = await convertWorkbook(book('A2:A3*2', [60, 20, 40]), { modelId: 'spill' });
    const derived = c.spec.derivations?.map((d) => d.path) ?? [];
    expect(derived.join(' ')).not.toMatch(/middle/);
    const middle = c.rejectedColumns.find((r) => r.address.startsWith('E'));
    expect(middle?.reason).toMatch(/DEPENDS_ON_REJECTED|ARRAY_FORMULA/);
  });
});
