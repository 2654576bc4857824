// The functions of issue 39's second acceptance (depreciation, loan principal, growth, YEARFRAC,
// paired statistics, SUBTOTAL, text of an empty cell) against LibreOffice: each generated workbook
// is recalculated by headless LibreOffice, as stored and after seeded edits. The converted model
// (run in the calc engine with the same edits) AND the cell-grid evaluator (recalculated with the
// same edits) must both give LibreOffice's value in every compiled cell, and nothing may be
// rejected. Skipped where soffice is not installed.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 2039;

function depreciation(): Pattern {
  const cells: Record<string, Input> = { A1: 'Cost', B1: 10000, A2: 'Salvage', B2: 1000, A3: 'Life', B3: 5 };
  table(
    cells,
    5,
    'A',
    ['Period', 'Straight', 'Digits', 'Double', 'Factor 1.5', 'Book value'],
    [[1], [2], [3], [4], [5]],
    [
      '=SLN($B$1,$B$2,$B$3)',
      '=SYD($B$1,$B$2,$B$3,A#)',
      '=DDB($B$1,$B$2,$B$3,A#)',
      '=DDB($B$1,$B$2,$B$3,A#,1.5)',
      '=$B$1-SLN($B$1,$B$2,$B$3)*A#',
    ],
  );
  cells.H1 = 'Yearly';
  cells.I1 = '=SLN(B1,B2,B3)';
  return {
    name: 'depreciation',
    covers: 'SLN, SYD, DDB (with and without a factor) over side inputs and a period column',
    book: { sheets: [{ name: 'Assets', cells }] },
    edits: [
      { sheet: 'Assets', cells: ['B1'], kind: 'number', min: 5000, max: 50000, integer: true },
      { sheet: 'Assets', cells: ['B2'], kind: 'number', min: 0, max: 4000, integer: true },
      { sheet: 'Assets', cells: ['B3'], kind: 'number', min: 5, max: 12, integer: true },
    ],
  };
}

function loan(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Rate',
    B1: 0.16,
    A2: 'Years',
    B2: 5,
    A3: 'Amount',
    B3: 100000,
  };
  table(
    cells,
    5,
    'A',
    ['Period', 'Principal', 'Interest', 'Due', 'Advance'],
    // the last period too: its interest is a small difference of large numbers, so the model must
    // compute it in LibreOffice's order to agree with its 15 stored digits
    [[1], [2], [3], [12], [36], [60]],
    [
      '=-PPMT($B$1/12,A#,$B$2*12,$B$3)',
      '=-IPMT($B$1/12,A#,$B$2*12,$B$3)',
      '=PPMT($B$1/12,A#,$B$2*12,$B$3,5000,1)',
      '=PPMT($B$1/12,A#,$B$2*12,$B$3,0,0)+IPMT($B$1/12,A#,$B$2*12,$B$3,0,0)',
    ],
  );
  cells.H1 = 'Growth';
  cells.I1 = '=_xlfn.RRI(B2,B3,B3*1.5)';
  cells.H2 = 'Payment';
  cells.I2 = '=-PMT(B1/12,B2*12,B3)';
  // empty arguments are 0 (dcf-varngill: `=-PV($C$12,G6,,G4)`, the payment left out)
  cells.H3 = 'Present value';
  cells.I3 = '=-PV(B1,B2,,B3)';
  cells.H4 = 'Future value';
  cells.I4 = '=FV(B1/12,B2*12,,-B3,)';
  cells.H5 = 'Payment, empty';
  cells.I5 = '=PMT(B1/12,B2*12,B3,,)';
  cells.H6 = 'Principal, empty';
  cells.I6 = '=PPMT(B1/12,2,B2*12,B3,,)';
  cells.H7 = 'Interest, empty';
  cells.I7 = '=IPMT(B1/12,2,B2*12,,B3)';
  return {
    name: 'loan',
    covers:
      'PPMT (end and start of period, with a balloon), IPMT, RRI; PV, FV, PMT, PPMT, IPMT with empty arguments',
    book: { sheets: [{ name: 'Loan', cells }] },
    edits: [
      { sheet: 'Loan', cells: ['B1'], kind: 'number', min: 0.01, max: 0.2 },
      { sheet: 'Loan', cells: ['B2'], kind: 'number', min: 5, max: 30, integer: true },
      { sheet: 'Loan', cells: ['B3'], kind: 'number', min: 1000, max: 500000, integer: true },
    ],
  };
}

function yearFraction(): Pattern {
  const cells: Record<string, Input> = {};
  // ends of February, 31sts, leap years, a span of years and dates in reverse, as serials
  table(
    cells,
    1,
    'A',
    ['Start', 'End', 'US', 'Actual', 'By 360', 'By 365', 'European'],
    [
      [43831, 44000],
      [43890, 44255],
      [43524, 43890],
      [43524, 43889],
      [43861, 43890],
      [44000, 43831],
      [40000, 45000],
      [43951, 44347],
      [44255, 44620],
      [43890, 43921],
      [43891, 43922],
      [43983, 44317],
      [43800, 44197],
    ],
    [
      '=YEARFRAC(A#,B#,0)',
      '=YEARFRAC(A#,B#,1)',
      '=YEARFRAC(A#,B#,2)',
      '=YEARFRAC(A#,B#,3)',
      '=YEARFRAC(A#,B#,4)',
    ],
  );
  cells.J1 = 'Default basis';
  cells.K1 = '=YEARFRAC(A2,B2)';
  return {
    name: 'yearfrac',
    covers: 'YEARFRAC in bases 0-4 over ends of February, 31sts, leap years and reversed dates',
    book: { sheets: [{ name: 'Dates', cells }] },
    edits: [
      { sheet: 'Dates', cells: range('A', 2, 6), kind: 'number', min: 43800, max: 44700, integer: true },
      { sheet: 'Dates', cells: range('B', 2, 6), kind: 'number', min: 43800, max: 44700, integer: true },
    ],
  };
}

function paired(): Pattern {
  const cells: Record<string, Input> = {};
  // a pair with text is skipped by every paired function (a blank in a table column is 0 in the
  // model, so a pair with a blank is rejected as VALUE_MISMATCH, as AVERAGE over one is)
  table(
    cells,
    1,
    'A',
    ['Stock', 'Market'],
    [
      [0.012, 0.01],
      [-0.004, 0.002],
      [0.021, 0.015],
      ['n/a', 0.004],
      [0.008, -0.006],
      [0.015, 0.011],
    ],
    [],
  );
  cells.D1 = 'Slope';
  cells.E1 = '=SLOPE(A2:A7,B2:B7)';
  cells.D2 = 'Intercept';
  cells.E2 = '=INTERCEPT(A2:A7,B2:B7)';
  cells.D3 = 'Correlation';
  cells.E3 = '=CORREL(A2:A7,B2:B7)';
  cells.D4 = 'R squared';
  cells.E4 = '=RSQ(A2:A7,B2:B7)';
  cells.D5 = 'Forecast';
  cells.E5 = '=FORECAST(0.02,A2:A7,B2:B7)';
  cells.D6 = 'Covariance';
  cells.E6 = '=_xlfn.COVARIANCE.S(A2:A7,B2:B7)';
  cells.D7 = 'Variance';
  cells.E7 = '=_xlfn.VAR.S(B2:B7)';
  cells.D8 = 'Beta';
  cells.E8 = '=_xlfn.COVARIANCE.S(A2:A7,B2:B7)/_xlfn.VAR.S(B2:B7)';
  return {
    name: 'paired',
    covers: 'SLOPE, INTERCEPT, CORREL, RSQ, FORECAST, COVARIANCE.S, VAR.S over two columns',
    book: { sheets: [{ name: 'Returns', cells }] },
    edits: [
      { sheet: 'Returns', cells: ['A2', 'A3', 'A4', 'A6', 'A7'], kind: 'number', min: -0.05, max: 0.05 },
      { sheet: 'Returns', cells: range('B', 2, 7), kind: 'number', min: -0.05, max: 0.05 },
    ],
  };
}

function blankText(): Pattern {
  // C3 (the company's name) and C4 (a fee) are blank in the workbook: "" in text, 0 elsewhere
  const cells: Record<string, Input> = {
    B3: 'Company',
    B4: 'Fee',
    B5: 'Price',
    C5: 120,
    E1: 'Title',
    F1: '=_xlfn.CONCAT("Valuation of ",C3)',
    E2: 'Shout',
    F2: '=UPPER(C3)&"!"',
    E3: 'Name',
    F3: '=C3',
    E4: 'Name or not',
    F4: '=_xlfn.IFNA(C3,"na")',
    E5: 'Total',
    F5: '=C5+C4',
    E6: 'Fee text',
    F6: '="Fee: "&C5*2',
  };
  return {
    name: 'blank-text',
    covers: 'a blank cell read as text ("") and as a number or a plain reference (0), then typed in',
    book: { sheets: [{ name: 'Cover', cells }] },
    edits: [
      { sheet: 'Cover', cells: ['C3'], kind: 'category', values: ['Acme', 'Globex plc', 'x'] },
      { sheet: 'Cover', cells: ['C4'], kind: 'number', min: 0, max: 50, integer: true },
    ],
  };
}

function subtotals(): Pattern {
  // two sections with their subtotals, then grand totals over everything: each value counted once
  const cells: Record<string, Input> = {
    A1: 'Income',
    B1: 'Amount',
    A2: 'Sales',
    B2: 1200,
    A3: 'Services',
    B3: 340.5,
    A4: 'Other',
    B4: 'n/a',
    A5: 'Income total',
    B5: '=SUBTOTAL(9,B2:B4)',
    A6: 'Rent',
    B6: 400,
    A7: 'Wages',
    B7: 610.25,
    A8: 'Costs total',
    B8: '=SUBTOTAL(109,B6:B7)*1',
    A10: 'Sum',
    B10: '=SUBTOTAL(9,B1:B8)',
    A11: 'Count',
    B11: '=SUBTOTAL(2,B1:B8)',
    A12: 'Non-blank',
    B12: '=SUBTOTAL(103,A2:B8)',
    A13: 'Mean',
    B13: '=SUBTOTAL(101,B2:B8)',
    A14: 'Largest',
    B14: '=SUBTOTAL(4,B2:B8)',
    A15: 'Smallest',
    B15: '=SUBTOTAL(105,B2:B8)',
    A16: 'Product',
    B16: '=SUBTOTAL(6,B6:B8)',
    A17: 'Deviation',
    B17: '=SUBTOTAL(7,B2:B8)',
    A18: 'Population deviation',
    B18: '=SUBTOTAL(8,B2:B8)',
    A19: 'Variance',
    B19: '=SUBTOTAL(10,B2:B8)',
    A20: 'Population variance',
    B20: '=SUBTOTAL(111,B2:B8)',
    A21: 'Two ranges',
    B21: '=SUBTOTAL(9,B2:B5,B6:B8)',
  };
  return {
    name: 'subtotals',
    covers: 'SUBTOTAL 1-11 and 101-111 over ranges holding other subtotals, which it leaves out',
    book: { sheets: [{ name: 'Budget', cells }] },
    edits: [{ sheet: 'Budget', cells: ['B2', 'B3', 'B6', 'B7'], kind: 'number', min: 0, max: 2000 }],
  };
}

function variance(): Pattern {
  // a budget of 0 (not blank) makes the variance #DIV/0!, which IFERROR turns into its fallback
  // (variance-jessicalfw: `=IFERROR((K7-L7)/L7,0)` stored 0 where the model gave no value)
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Actual', 'Budget', 'vs Budget', 'Ratio', 'Flag'],
    [
      [211, 240],
      [64, 0],
      [0, 0],
      [-50, 0],
      [558, 660],
    ],
    ['=IFERROR((A#-B#)/B#,0)', '=IFERROR(A#/B#,"n/a")', '=IF(ISERROR(A#/B#),"none",A#/B#)'],
  );
  return {
    name: 'variance',
    covers: 'IFERROR and ISERROR over a division by a budget of 0 (#DIV/0!)',
    book: { sheets: [{ name: 'Variance', cells }] },
    // the zero budgets stay 0; the others and every actual are edited
    edits: [
      { sheet: 'Variance', cells: range('A', 2, 6), kind: 'number', min: -500, max: 500, integer: true },
      { sheet: 'Variance', cells: ['B2', 'B6'], kind: 'number', min: 1, max: 900, integer: true },
    ],
  };
}

const PATTERNS: Pattern[] = [
  depreciation(),
  loan(),
  yearFraction(),
  paired(),
  blankText(),
  subtotals(),
  variance(),
];

describePatternsAgainstLibreOffice({
  title: 'functions',
  patterns: PATTERNS,
  seed: SEED,
  edits: EDITS,
  idPrefix: 'functions',
});
