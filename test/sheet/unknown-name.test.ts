// A name the workbook does not define is #NAME? where it is evaluated, not a reason to reject the
// formula (issue 39: coffee-sales-petrixe's orders!N2 reads `IF(I2=Exc, …)`, the quotes left out
// in the first row of a 1,000-row column; Excel never evaluates that branch when I2 is "Rob", so the
// stored value is fine, yet the whole column and 47 cells reading it were rejected as
// UNSUPPORTED_REFERENCE). The stored values here are the formulas' meaning written out by hand.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, row, formula } = cell;

const CODES = ['Rob', 'Ara', 'Lib', 'Exc'];
const NAMES: Record<string, string> = { Rob: 'Robusta', Ara: 'Arabica', Lib: 'Liberica', Exc: 'Excelsa' };
const ROWS = 240;

/** `=IF(I="Rob","Robusta",IF(I=<exc>,"Excelsa",…))` as orders!N holds it. */
const nested = (r: number, exc: string): string =>
  `IF(A${r}="Rob","Robusta",IF(A${r}=${exc},"Excelsa",IF(A${r}="Ara","Arabica",IF(A${r}="Lib","Liberica",""))))`;

function book(): Uint8Array {
  const rows = [row(1, text('A1', 'Type'), text('B1', 'Type Name'))];
  for (let r = 2; r <= ROWS + 1; r++) {
    // the first row is "Rob", so its unquoted Exc is never evaluated (as in the real workbook)
    const code = r === 2 ? 'Rob' : CODES[r % CODES.length]!;
    const f = nested(r, r === 2 ? 'Exc' : '"Exc"');
    // the first row is a one-cell array formula, as Excel saved it
    const b =
      r === 2
        ? `<c r="B2" t="str"><f t="array" ref="B2">${f.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</f><v>${NAMES[code]}</v></c>`
        : formula(`B${r}`, f, NAMES[code]!);
    rows.push(row(r, text(`A${r}`, code), b));
  }
  let robusta = 0;
  for (let r = 2; r <= ROWS + 1; r++) if (r === 2 || CODES[r % CODES.length] === 'Rob') robusta++;
  const total = ROWS + 3;
  rows.push(
    row(
      total,
      text(`A${total}`, 'Robusta rows'),
      formula(`B${total}`, `COUNTIF(B2:B${ROWS + 1},"Robusta")`, robusta),
    ),
  );
  return xlsxBook([{ name: 'orders', rows: rows.join('') }]);
}

describe('a name the workbook does not define', () => {
  it('is #NAME? where it is evaluated: the column compiles and verifies with what-if edits', async () => {
    const c = await convertWorkbook(book(), { modelId: 'names' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`);
    expect(why).toEqual([]);
    expect(c.report.verifiedCells).toBe(ROWS + 1);
  });

  it("the file's own prefixes are not such names: an unbound _xlpm. or _xleta. name is rejected", async () => {
    const wb = xlsxBook([
      {
        name: 'Sheet1',
        rows:
          row(2, text('A2', 'Param'), formula('B2', '_xlpm.x+1', 1)) +
          row(5, text('C5', 'Eta'), formula('D5', '_xleta.SUM', 0)),
      },
    ]);
    const c = await convertWorkbook(wb, { modelId: 'names' });
    expect(c.rejectedColumns.map((r) => [r.address, r.reason])).toEqual([
      ['B2', 'UNSUPPORTED_SYNTAX'],
      ['D5', 'UNSUPPORTED_SYNTAX'],
    ]);
    expect(c.rejectedColumns[1]!.message).toMatch(/SUM passed as a function/);
  });
});
