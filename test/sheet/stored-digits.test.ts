// A writer that rounds its stored results (Google Sheets' export keeps 10 significant digits) is
// recognised by the longest stored result of a formula, and each result is compared at those
// digits. Google Sheets writes a result of 10^10 or more as a whole number (11708363777, not
// 1.170836378E10): such a whole number has more digits than the writer kept for fractions, and
// once made the digits 11, so every 10-digit result was refused as VALUE_MISMATCH (275 cells of one
// held-out workbook). A whole number says nothing about how fractions were rounded.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { sameAtDigits, significantDigits, storedDigits } from '../../src/sheet/stored-digits.js';
import type { Worksheet } from '../../src/sheet/xlsx.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

/** A sheet of formula results only, as storedDigits reads it. */
const results = (...values: number[]): Worksheet =>
  ({
    cells: new Map(values.map((v, i) => [`${i + 1}:1`, { formula: 'A1', value: v }])),
  }) as unknown as Worksheet;

/** Inputs, a fraction written at 10 digits, and a whole number of 11 digits, as Google Sheets writes them. */
const INPUTS = [1234.56789123, 2345.67891234, 3456.78912345];
const tenDigits = (x: number): number => Number(x.toPrecision(10));

describe('digits of a writer that rounds its stored results', () => {
  it('whole numbers do not count; fractions decide', () => {
    expect(significantDigits(11_708_363_777)).toBe(11);
    expect(storedDigits([results(5.796370372, 1358.02468, 11_708_363_777)])).toBe(10);
    expect(storedDigits([results(2431.805712, 34_567_891_235)])).toBe(10);
    // full doubles still say nothing was rounded; short values alone say nothing either
    expect(storedDigits([results(0.1 + 0.2, 11_708_363_777)])).toBeUndefined();
    expect(storedDigits([results(1.5, 12_345_678_912_345)])).toBeUndefined();
    expect(sameAtDigits(1358.02468, 1234.56789123 * 1.1, 10)).toBe(true);
    expect(sameAtDigits(1358.02468, 1234.56789123 * 1.1, 11)).toBe(false);
  });

  it('a Google Sheets-like workbook verifies its 10-digit fractions next to 11-digit whole numbers', async () => {
    const bytes = xlsx(
      [
        row(1, text('A1', 'Amount'), text('B1', 'Grown'), text('C1', 'Scaled')),
        ...INPUTS.map((a, i) =>
          row(
            i + 2,
            num(`A${i + 2}`, a),
            formula(`B${i + 2}`, `A${i + 2}*1.1`, tenDigits(a * 1.1)),
            formula(`C${i + 2}`, `A${i + 2}*10000000+0.3`, Math.round(a * 10_000_000 + 0.3)),
          ),
        ),
      ].join(''),
    );
    const c = await convertWorkbook(bytes, { modelId: 'rounded' });
    expect(c.report.rejected).toEqual([]);
    expect(c.report.verifiedCells).toBe(2 * INPUTS.length);
    // a stored value off by more than the writer's rounding is still refused
    const off = xlsx(
      [
        row(1, text('A1', 'Amount'), text('B1', 'Grown')),
        row(2, num('A2', INPUTS[0]!), formula('B2', 'A2*1.1', tenDigits(INPUTS[0]! * 1.1) + 0.001)),
        row(3, num('A3', INPUTS[1]!), formula('B3', 'A3*1.1', tenDigits(INPUTS[1]! * 1.1))),
      ].join(''),
    );
    const refused = await convertWorkbook(off, { modelId: 'off' });
    expect(refused.report.rejected.map((g) => g.reason)).toEqual(['VALUE_MISMATCH']);
  });
});
