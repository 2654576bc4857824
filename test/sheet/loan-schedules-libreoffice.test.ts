// Loan schedules as real workbooks lay them out (issue 39, the fourth held-out set: loan-schedule-
// govinda, emi-calculator-rajkumar) against LibreOffice: each generated workbook is recalculated by
// headless LibreOffice, as stored and after seeded edits of the loan's terms; the converted model and
// the cell-grid evaluator must both give LibreOffice's value in every formula cell, and nothing may
// be rejected. Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 3907;

/** The loan's terms above the schedule: years B2, annual rate B4, amount B6, payment B8. */
function terms(cells: Record<string, Input>): void {
  Object.assign(cells, {
    A2: 'Years',
    B2: 30,
    A3: 'Number of periods',
    B3: '=B2*12',
    A4: 'Interest rate (Annual)',
    B4: 0.06,
    A5: 'Interest rate (Monthly)',
    B5: '=B4/12',
    A6: 'Loan Amount',
    B6: 50000,
    A8: 'Monthly Payment',
    B8: '=PMT(B5,B3,B6)*-1',
  });
}

const TERM_EDITS = (sheet: string): Pattern['edits'] => [
  { sheet, cells: ['B4'], kind: 'number', min: 0.01, max: 0.15 },
  { sheet, cells: ['B6'], kind: 'number', min: 1000, max: 900000, integer: true },
];

/**
 * loan-schedule-govinda's layout: the payment `=$B$8` in every row, interest on the balance above,
 * and a totals row right under the schedule summing the payment, interest and principal columns
 * (`=SUM(C12:C251)`): a total, not a row of the schedule reading its own column.
 */
function scheduleWithTotals(): Pattern {
  const cells: Record<string, Input> = {};
  terms(cells);
  ['Period', 'Payment', 'Interest', 'Principal', 'Residual Debt'].forEach(
    (h, i) => (cells[`${'BCDEF'[i]}11`] = h),
  );
  const first = 12;
  // the first 20 of 30 years (past 200 rows a column is one column with blocks of rows apart, not
  // one cell per row); paid down to nothing, the last balance would be rounding only, which
  // LibreOffice's 15 stored digits of the balances above it do not determine
  const last = first + 239;
  for (let r = first; r <= last; r++) {
    cells[`B${r}`] = r - first + 1;
    cells[`C${r}`] = '=$B$8';
    cells[`D${r}`] = r === first ? '=B6*B5' : `=$B$5*F${r - 1}`;
    cells[`E${r}`] = `=C${r}-D${r}`;
    cells[`F${r}`] = r === first ? `=B6-E${r}` : `=F${r - 1}-E${r}`;
  }
  for (const c of 'CDE') cells[`${c}${last + 1}`] = `=SUM(${c}${first}:${c}${last})`;
  return {
    name: 'schedule-totals',
    covers: 'an amortisation schedule (a fold) with a totals row under it summing its own columns',
    book: { sheets: [{ name: 'Sheet1', cells }] },
    edits: TERM_EDITS('Sheet1'),
  };
}

/**
 * A totals row whose formulas read their own column down to the row right above, under a column of
 * running totals (`=SUM(C$12:C12)` filled down): the last row is still a total.
 */
function runningTotalsWithTotal(): Pattern {
  const cells: Record<string, Input> = { A1: 'Month', B1: 'Amount', C1: 'To date', D1: 'Share' };
  const last = 221;
  for (let r = 2; r <= last; r++) {
    cells[`A${r}`] = r - 1;
    cells[`B${r}`] = ((r * 37) % 300) + 0.5;
    cells[`C${r}`] = `=SUM(B$2:B${r})`;
    cells[`D${r}`] = `=B${r}/$B$${last + 1}`;
  }
  cells[`A${last + 1}`] = 'Total';
  cells[`B${last + 1}`] = `=SUM(B2:B${last})`;
  cells[`C${last + 1}`] = `=MAX(C2:C${last})`;
  cells[`D${last + 1}`] = `=SUM(D2:D${last})`;
  return {
    name: 'running-totals-total',
    covers: 'a totals row (SUM, MAX of the column above) under typed amounts and running totals',
    book: { sheets: [{ name: 'Months', cells }] },
    edits: [{ sheet: 'Months', cells: range('B', 2, 30), kind: 'number', min: 0, max: 500 }],
  };
}

const PATTERNS: Pattern[] = [scheduleWithTotals(), runningTotalsWithTotal()];

describePatternsAgainstLibreOffice({
  title: 'loan schedules',
  patterns: PATTERNS,
  seed: SEED,
  edits: EDITS,
  idPrefix: 'loans',
});
