// A 240-row loan schedule whose balance carries the payment's last bits down the rows (issue 39,
// amortization-farheen): Excel stored PMT(0.05/12, 240, -500000, 0) as 3299.7786960832873, and
// every schedule cell is plain double arithmetic on the cells above it, so the stored values here
// are Excel's (the payment pinned from the workbook, the rest computed the same way). A payment
// two units of the last place apart (...864, the other rounding order) passes its own cell's check
// but moves the balance 3.4e-15 by row 201 and flips the sign of the final, all-rounding balance;
// the what-if check then compares the model with the grid evaluator, whose PMT must round alike
// for a balance that ends at zero to agree.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

/** Excel's stored payment for 500,000 over 240 months at 5% a year. */
const EXCEL_PAYMENT = 3299.7786960832873;

function schedule(): Uint8Array {
  const rate = 0.05 / 12;
  const rows = [
    row(6, text('A6', 'Loan'), num('B6', 500000), text('D6', 'Payments'), formula('E6', 'B7*12', 240)),
    row(7, text('A7', 'Years'), num('B7', 20), text('D7', 'Monthly rate'), formula('E7', 'B8/12', rate)),
    row(
      8,
      text('A8', 'Rate'),
      num('B8', 0.05),
      text('D8', 'Monthly payment'),
      formula('E8', 'PMT(E7,E6,-B6,0)', EXCEL_PAYMENT),
    ),
    row(
      10,
      ...['Payment no', 'Beginning balance', 'Payment', 'Interest', 'Principal', 'Ending balance'].map(
        (h, i) => text(`${'ABCDEF'[i]}10`, h),
      ),
    ),
  ];
  let balance = 500000;
  for (let r = 11; r <= 250; r++) {
    const interest = balance * rate;
    const principal = EXCEL_PAYMENT - interest;
    const ending = balance - principal;
    rows.push(
      row(
        r,
        num(`A${r}`, r - 10),
        formula(`B${r}`, r === 11 ? 'B6' : `F${r - 1}`, balance),
        formula(`C${r}`, '$E$8', EXCEL_PAYMENT),
        formula(`D${r}`, `B${r}*$E$7`, interest),
        formula(`E${r}`, `C${r}-D${r}`, principal),
        formula(`F${r}`, `B${r}-E${r}`, ending),
      ),
    );
    balance = ending;
  }
  return xlsx(rows.join(''));
}

describe('a loan schedule carrying the payment last bits 240 rows (issue 39)', () => {
  it('the stored payment and balances as Excel computed them: every cell verified', async () => {
    const { report, rejectedColumns } = await convertWorkbook(schedule(), {
      modelId: 'schedule',
      filename: 'schedule.xlsx',
    });
    expect(rejectedColumns.map((c) => `${c.address} ${c.reason}: ${c.message}`)).toEqual([]);
    expect(report.verifiedCells).toBe(report.formulaCells);
    expect(report.formulaCells).toBe(3 + 5 * 240);
  });
});
