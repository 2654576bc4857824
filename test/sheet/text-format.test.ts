// TEXT(value, format) against a maintained reference implementation of Excel's number formats,
// numfmt: each column of the hand-written workbook holds TEXT($A2, format) filled down, with the
// value numfmt gives stored for every cell, so the converter's own check (a cell that differs is
// VALUE_MISMATCH) is the assertion. The values cover a blank, the 1900 leap-year bug (serials 59–61),
// serial 0, fractions of a day, negatives, halves (rounding) and large numbers.
import { format as numfmt } from 'numfmt';
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

const VALUES: (number | null)[] = [
  45000,
  0,
  1,
  59,
  60,
  61,
  366,
  45000.75,
  2958465,
  null,
  1234.5,
  -1234.565,
  0.125,
  2.5,
  -0.5,
  -0.001,
  1e9 + 0.5,
  12.345,
];
const DATE_FORMATS = ['mmmm', 'mmm', 'mmmmm', 'mm', 'm', 'dddd', 'ddd', 'dd', 'd', 'yyyy', 'yy'];
const MIXED_DATES = ['d mmm yyyy', 'dd/mm/yyyy', 'mmm-yy', 'dddd, mmmm d, yyyy', 'YYYY-MM-DD', 'd.m.yy'];
const NUMBER_FORMATS = ['0', '0.00', '#,##0', '#,##0.00', '0%', '0.0%', '$#,##0.00', '0.000 "kg"'];

const cols = (i: number): string => String.fromCharCode(66 + i); // B, C, …

function workbook(formats: string[], values: (number | null)[]): Uint8Array {
  const rows = [row(1, text('A1', 'value'), ...formats.map((f, i) => text(`${cols(i)}1`, `f${i}`)))];
  values.forEach((v, k) => {
    const r = k + 2;
    const cells = v === null ? [] : [num(`A${r}`, v)];
    formats.forEach((f, i) => {
      const expected = numfmt(f, v ?? 0);
      cells.push(formula(`${cols(i)}${r}`, `TEXT($A${r},"${f.replace(/"/g, '""')}")`, expected));
    });
    rows.push(row(r, ...cells));
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

async function rejections(formats: string[], values: (number | null)[]): Promise<string[]> {
  const c = await convertWorkbook(workbook(formats, values), { modelId: 'text' });
  expect(c.report.formulaCells).toBe(formats.length * values.length);
  // and the independent evaluator vouches for every compiled column after edits (its TEXT is
  // numfmt's too: formulajs's left date formats unformatted, so those columns were stored-only)
  const unverified = (c.report.checks ?? []).filter((k) => !k.checked.startsWith('what-if'));
  expect(unverified.map((k) => `${k.address}: ${k.checked}`)).toEqual([]);
  return c.rejectedColumns.map((r) => `${r.column}: ${r.reason} ${r.message}`);
}

describe('TEXT against numfmt', () => {
  // past 31 December 9999 (serial 2958465) Excel gives #VALUE!, numfmt the digits: neither is pinned
  const dateValues = VALUES.filter((v) => v === null || (v >= 0 && v < 2958466));

  it('date parts, across the 1900 leap-year bug and fractions of a day', async () => {
    expect(await rejections(DATE_FORMATS, dateValues)).toEqual([]);
  });

  it('date formats with literal separators and quoted text', async () => {
    expect(await rejections(MIXED_DATES, dateValues)).toEqual([]);
  });

  it('number formats: rounding half away from zero, grouping, percent, literal text, signs', async () => {
    expect(await rejections(NUMBER_FORMATS, VALUES)).toEqual([]);
  });

  it('a serial outside 1900–9999 under a date format gives no value (an error in a spreadsheet)', async () => {
    const c = await convertWorkbook(workbook(['mmmm'], [45000, -1, 2958466]), { modelId: 'text' });
    // numfmt has no error for these, so the two stored texts disagree with the compiled nothing
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual(['VALUE_MISMATCH']);
    expect(c.rejectedColumns[0]!.message).toContain('gives null');
  });

  it.each([
    ['h:mm', 'is not read'],
    ['0.00;(0.00)', 'is not read'],
    ['General', 'is not read'],
    ['0.0E+00', 'is not read'],
    ['# ?/?', 'is not read'],
    ['00.0#', 'picture'],
  ])('rejects the format %s by name', async (f, why) => {
    const c = await convertWorkbook(workbook([f], [1.5]), { modelId: 'text' });
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual(['UNSUPPORTED_FUNCTION']);
    expect(c.rejectedColumns[0]!.message).toContain(why);
  });

  it('rejects a format read from a cell', async () => {
    const rows = [
      row(1, text('A1', 'value'), text('B1', 'shown')),
      row(2, num('A2', 3), formula('B2', 'TEXT(A2,$D$1)', '3')),
    ].join('');
    const book = xlsxBook([{ name: 'Sheet1', rows: rows + row(3, text('C3', 'fmt'), text('D3', '0')) }]);
    const c = await convertWorkbook(book, { modelId: 'text' });
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual(['UNSUPPORTED_FUNCTION']);
  });
});
