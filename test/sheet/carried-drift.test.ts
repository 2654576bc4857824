// A schedule carrying its payment's last bit down 360 rows (issue 39, loan-schedule-govinda): Excel
// stored PMT(0.005,360,500000)*-1 as 2997.7526257637614, the model computes 2997.752625763762 (one
// unit of the last place apart, as PMT rounds in each program), and every row is plain arithmetic
// on the row above, so the balances drift apart to a final balance of rounding only (3.6e-10 where
// the model gives another). Each cell is still the workbook's own formula: on the stored values of
// what it reads it gives the stored value, and the model gives what the independent evaluator's
// recalculation gives. A stored value no formula gives from what it reads stays rejected.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { loanPayment, principalPart } from '../../src/sheet/grid/payments.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

/** Excel's stored payment of 500,000 over 360 months at 0.5% a month. */
const EXCEL_PAYMENT = 2997.7526257637614;
const RATE = 0.06 / 12;

/** The schedule with Excel's values; `tamper` changes one stored interest (and the rows after it follow). */
function schedule(tamper?: { row: number; factor: number }): Uint8Array {
  const rows = [
    row(2, text('A2', 'Years'), num('B2', 30)),
    row(3, text('A3', 'Number of periods'), formula('B3', 'B2*12', 360)),
    row(4, text('A4', 'Interest rate (Annual)'), num('B4', 0.06)),
    row(5, text('A5', 'Interest rate (Monthly)'), formula('B5', 'B4/12', RATE)),
    row(6, text('A6', 'Loan Amount'), num('B6', 500000)),
    row(8, text('A8', 'Monthly Payment'), formula('B8', 'PMT(B5,B3,B6)*-1', EXCEL_PAYMENT)),
    row(
      11,
      ...['Period', 'Payment', 'Interest', 'Principal', 'Residual Debt'].map((h, i) =>
        text(`${'BCDEF'[i]}11`, h),
      ),
    ),
  ];
  let balance = 500000;
  for (let r = 12; r <= 371; r++) {
    let interest = balance * RATE;
    if (tamper?.row === r) interest *= tamper.factor;
    const principal = EXCEL_PAYMENT - interest;
    const ending = balance - principal;
    rows.push(
      row(
        r,
        num(`B${r}`, r - 11),
        formula(`C${r}`, '$B$8', EXCEL_PAYMENT),
        formula(`D${r}`, r === 12 ? 'B6*B5' : `$B$5*F${r - 1}`, interest),
        formula(`E${r}`, `C${r}-D${r}`, principal),
        formula(`F${r}`, r === 12 ? `B6-E${r}` : `F${r - 1}-E${r}`, ending),
      ),
    );
    balance = ending;
  }
  return xlsx(rows.join(''));
}

/**
 * emi-calculator-rajkumar's layout: the principal part `-PPMT(…)` of each of 48 payments and the
 * balance `ABS(D-F)` paid down to a last balance of rounding only (stored as the model's and
 * LibreOffice's PPMT give it). The evaluator's recalculation must give the model's last bits there
 * (grid/payments.ts), else it cannot vouch for the balance column.
 */
function emiSchedule(): Uint8Array {
  const rate = 0.12 / 12;
  const payment = -loanPayment(rate, 48, 5000, 0, 0);
  const rows = [
    row(
      5,
      text('B5', 'Loan Amount'),
      num('D5', 5000),
      text('E5', 'EMI'),
      formula('F5', '-PMT(D6/12,D7*12,D5)', payment),
    ),
    row(
      6,
      text('B6', 'Annual rate'),
      num('D6', 0.12),
      text('E6', 'Number of EMI'),
      formula('F6', 'D7*12', 48),
    ),
    row(7, text('B7', 'Years'), num('D7', 4)),
    row(
      13,
      ...[
        'EMI Number',
        'Due',
        'Opening Balance',
        'EMI Amount',
        'Principal',
        'Interest',
        'Remaining Balance',
      ].map((h, i) => text(`${'BCDEFGH'[i]}13`, h)),
    ),
  ];
  let balance = 5000;
  for (let k = 1; k <= 48; k++) {
    const r = 13 + k;
    const principal = -principalPart(rate, k, 48, 5000, 0, 0);
    const remaining = Math.abs(balance - principal);
    rows.push(
      row(
        r,
        formula(`B${r}`, 'IF($F$6>=ROW()-ROW($B$13),ROW()-ROW($B$13),"")', k),
        num(`C${r}`, 45109 + 30 * k),
        formula(`D${r}`, `IF(B${r}="","",IF(NOT(ISNUMBER(H${r - 1})),$D$5,H${r - 1}))`, balance),
        formula(`E${r}`, `IF(B${r}="","",$F$5)`, payment),
        formula(`F${r}`, `IF(B${r}="","",-PPMT($D$6/12,B${r},$F$6,$D$5))`, principal),
        formula(`G${r}`, `IF(B${r}="","",E${r}-F${r})`, payment - principal),
        formula(`H${r}`, `IF(B${r}="","",ABS(D${r}-F${r}))`, remaining),
      ),
    );
    balance = remaining;
  }
  return xlsx(rows.join(''));
}

describe("a schedule carrying the payment's last bit 360 rows (issue 39)", () => {
  it('verifies every cell: each is its formula on the stored values, and the model is the chain', async () => {
    const { report, rejectedColumns } = await convertWorkbook(schedule(), {
      modelId: 'drift',
      filename: 'drift.xlsx',
    });
    expect(rejectedColumns.map((c) => `${c.address} ${c.reason}: ${c.message}`)).toEqual([]);
    expect(report.formulaCells).toBe(3 + 4 * 360);
    expect(report.verifiedCells).toBe(report.formulaCells);
  });

  it("verifies a PPMT schedule's balance down to its last rounding (the evaluator's PPMT is the model's)", async () => {
    const { report, rejectedColumns } = await convertWorkbook(emiSchedule(), {
      modelId: 'emi',
      filename: 'emi.xlsx',
    });
    expect(rejectedColumns.map((c) => `${c.address} ${c.reason}: ${c.message}`)).toEqual([]);
    expect(report.checks.filter((c) => c.checked.startsWith('stored-only'))).toEqual([]);
    expect(report.verifiedCells).toBe(report.formulaCells);
  });

  it('rejects a stored interest 1e-13 off what its formula gives from the row above', async () => {
    const { rejectedColumns } = await convertWorkbook(schedule({ row: 200, factor: 1 + 1e-13 }), {
      modelId: 'tampered',
      filename: 'tampered.xlsx',
    });
    const interest = rejectedColumns.find((c) => c.address === 'D');
    expect(interest?.reason).toBe('VALUE_MISMATCH');
  });
});
