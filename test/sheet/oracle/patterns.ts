// Generated workbooks, one per family of supported patterns (docs/spreadsheets.md, "Supported
// formulas" and "What it becomes"), each with the input cells the oracle test edits at random.
// Nothing here is copied from a real workbook; values are small and plain so a failure reads easily.
import type { Input } from './book.js';
import { futureValue, offsetIndex, operatorCriterion } from './known-defects.js';
import { range, table, type Pattern } from './layout.js';
import { reconciliation } from './near-equal.js';

export type { EditDef, Pattern } from './layout.js';

// ---- a table, filled-down columns, summary cells and side inputs on another sheet --------------
function orders(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Item', 'Region', 'Qty', 'Price', 'Amount', 'Tax', 'Label', 'Size', 'Gross'],
    [
      ['apple', 'North', 3, 2.5],
      ['banana', 'South', 10, 0.35],
      ['cherry', 'North', 1, 12],
      ['date', 'East', 7, 1.25],
      ['elder', 'South', 4, 2.75],
      ['fig', 'East', 6, 3.1],
    ],
    [
      '=ROUND(C#*D#,2)',
      '=E#*Rates!$B$1',
      '=UPPER(LEFT(A#,3))&"-"&B#',
      '=IF(E#>=10,"big","small")',
      '=E#+F#-Rates!$B$2',
    ],
  );
  cells.K2 = 'Total';
  cells.L2 = '=SUM(E2:E7)';
  cells.K3 = 'Average';
  cells.L3 = '=AVERAGE(E2:E7)';
  cells.K4 = 'Largest';
  cells.L4 = '=MAX(E2:E7)';
  cells.K5 = 'Smallest';
  cells.L5 = '=MIN(C2:C7)';
  cells.K6 = 'Weighted';
  cells.L6 = '=SUMPRODUCT($C$2:$C$7,$D$2:$D$7)';
  cells.K7 = 'Items';
  cells.L7 = '=COUNT(C2:C7)';
  const rates: Record<string, Input> = { A1: 'VAT', B1: 0.2, A2: 'Fee', B2: 1.5 };
  return {
    name: 'orders',
    covers: 'a table, filled-down columns, totals, side inputs on another sheet',
    book: {
      sheets: [
        { name: 'Orders', cells },
        { name: 'Rates', cells: rates },
      ],
    },
    edits: [
      { sheet: 'Orders', cells: range('C', 2, 7), kind: 'number', min: 0, max: 20, integer: true },
      { sheet: 'Orders', cells: range('D', 2, 7), kind: 'number', min: 0.1, max: 15 },
      { sheet: 'Orders', cells: range('B', 2, 7), kind: 'category', values: ['North', 'South', 'East'] },
      { sheet: 'Rates', cells: ['B1'], kind: 'number', min: 0, max: 0.3 },
      { sheet: 'Rates', cells: ['B2'], kind: 'number', min: 0, max: 5 },
    ],
  };
}

// ---- conditional aggregates with plain, literal-operator and wildcard criteria -----------------
function criteria(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Region', 'Product', 'Amount', 'Units', 'Region total', 'Region count'],
    [
      ['North', 'apple', 120, 3],
      ['South', 'apricot', 80, 5],
      ['North', 'banana', 45, 2],
      ['East', 'apple', 200, 8],
      ['South', 'cherry', 95, 1],
      ['East', 'avocado', 60, 4],
      ['North', 'cherry', 150, 6],
    ],
    ['=SUMIF($A$2:$A$8,A#,$C$2:$C$8)', '=COUNTIF($A$2:$A$8,A#)'],
  );
  cells.H1 = 'Region';
  cells.I1 = 'North';
  cells.H2 = 'North sum';
  cells.I2 = '=SUMIF($A$2:$A$8,"North",$C$2:$C$8)';
  cells.H3 = 'Chosen sum';
  cells.I3 = '=SUMIFS($C$2:$C$8,$A$2:$A$8,$I$1)';
  cells.H4 = 'Over hundred';
  cells.I4 = '=COUNTIF($C$2:$C$8,">100")';
  cells.H5 = 'Big north';
  cells.I5 = '=COUNTIFS($A$2:$A$8,"North",$C$2:$C$8,">=100")';
  cells.H6 = 'A products';
  cells.I6 = '=SUMIF($B$2:$B$8,"a*",$D$2:$D$8)';
  cells.H7 = 'South mean';
  cells.I7 = '=AVERAGEIF($A$2:$A$8,"South",$C$2:$C$8)';
  cells.H8 = 'Not east';
  cells.I8 = '=SUMIFS($D$2:$D$8,$A$2:$A$8,"<>East")';
  cells.H9 = 'Mean small';
  cells.I9 = '=AVERAGEIFS($C$2:$C$8,$D$2:$D$8,"<5")';
  return {
    name: 'criteria',
    covers: 'SUMIF(S)/COUNTIF(S)/AVERAGEIF(S) with plain, literal operator and wildcard criteria',
    book: { sheets: [{ name: 'Sales', cells }] },
    edits: [
      { sheet: 'Sales', cells: range('A', 2, 8), kind: 'category', values: ['North', 'South', 'East'] },
      { sheet: 'Sales', cells: range('C', 2, 8), kind: 'number', min: 0, max: 250, integer: true },
      { sheet: 'Sales', cells: range('D', 2, 8), kind: 'number', min: 0, max: 10, integer: true },
      { sheet: 'Sales', cells: ['I1'], kind: 'category', values: ['North', 'South', 'East'] },
    ],
  };
}

// ---- VLOOKUP / INDEX / MATCH into a table on another sheet ---------------------------------------
function lookups(): Pattern {
  const products: Record<string, Input> = {};
  table(
    products,
    1,
    'A',
    ['Code', 'Name', 'Price'],
    [
      ['P1', 'pen', 1.5],
      ['P2', 'pad', 3],
      ['P3', 'ink', 7.25],
      ['P4', 'clip', 0.2],
      ['P5', 'tape', 2.4],
    ],
    [],
  );
  const orders: Record<string, Input> = {};
  table(
    orders,
    1,
    'A',
    ['Code', 'Qty', 'Price', 'Name', 'Position', 'Cost'],
    [
      ['P3', 2],
      ['P1', 10],
      ['P5', 1],
      ['P2', 4],
    ],
    [
      '=VLOOKUP(A#,Products!$A$2:$C$6,3,FALSE)',
      '=INDEX(Products!$B$2:$B$6,MATCH(A#,Products!$A$2:$A$6,0))',
      '=MATCH(A#,Products!$A$2:$A$6,0)',
      '=B#*C#',
    ],
  );
  return {
    name: 'lookups',
    covers: 'exact VLOOKUP, INDEX/MATCH and MATCH into a table of another sheet',
    book: {
      sheets: [
        { name: 'Orders', cells: orders },
        { name: 'Products', cells: products },
      ],
    },
    edits: [
      { sheet: 'Orders', cells: range('A', 2, 5), kind: 'category', values: ['P1', 'P2', 'P3', 'P4', 'P5'] },
      { sheet: 'Orders', cells: range('B', 2, 5), kind: 'number', min: 0, max: 20, integer: true },
      // the lookup range itself is not edited: a VLOOKUP range becomes a constant table of the
      // spec's library (docs/spreadsheets.md), so the model has no input for its cells
    ],
  };
}

// ---- a running balance (recurrence), a running total and a read of the row above ---------------
function ledger(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Month',
    B1: 'In',
    C1: 'Out',
    D1: 'Balance',
    E1: 'To date',
    F1: 'Change',
  };
  const rows: [number, number][] = [
    [500, 120],
    [200, 340],
    [150, 90],
    [400, 410],
    [80, 20],
    [300, 150],
  ];
  rows.forEach(([i, o], k) => {
    const r = k + 2;
    cells[`A${r}`] = k + 1;
    cells[`B${r}`] = i;
    cells[`C${r}`] = o;
    cells[`D${r}`] = r === 2 ? '=B2-C2' : `=D${r - 1}+B${r}-C${r}`;
    cells[`E${r}`] = `=SUM($B$2:B${r})`;
    cells[`F${r}`] = r === 2 ? '=0' : `=B${r}-B${r - 1}`;
  });
  return {
    name: 'ledger',
    covers: 'a running balance (a fold), a running total SUM($B$2:B#), a read of the row above',
    book: { sheets: [{ name: 'Ledger', cells }] },
    edits: [
      { sheet: 'Ledger', cells: range('B', 2, 7), kind: 'number', min: 0, max: 600, integer: true },
      { sheet: 'Ledger', cells: range('C', 2, 7), kind: 'number', min: 0, max: 600 },
    ],
  };
}

// ---- finance: a loan's payment and an amortisation schedule --------------------------------------
function loan(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Rate',
    B1: 0.06,
    A2: 'Years',
    B2: 3,
    A3: 'Principal',
    B3: 12000,
    A4: 'Payment',
    B4: '=PMT(B1/12,B2*12,-B3)',
    A7: 'First interest',
    B7: '=IPMT(B1/12,1,B2*12,-B3)',
  };
  const flows: Record<string, Input> = { A1: 'Year', B1: 'Cash' };
  [1, 2, 3, 4].forEach((y, k) => {
    flows[`A${k + 2}`] = y;
    flows[`B${k + 2}`] = [1000, 1500, 1800, 2100][k]!;
  });
  flows.D1 = 'Rate';
  flows.E1 = 0.08;
  flows.D2 = 'Value';
  flows.E2 = '=NPV($E$1,B2:B5)';
  return {
    name: 'loan',
    covers: 'PMT, IPMT and NPV over side inputs and a column',
    book: {
      sheets: [
        { name: 'Loan', cells },
        { name: 'Flows', cells: flows },
      ],
    },
    edits: [
      { sheet: 'Loan', cells: ['B1'], kind: 'number', min: 0.01, max: 0.12 },
      { sheet: 'Loan', cells: ['B2'], kind: 'number', min: 1, max: 30, integer: true },
      { sheet: 'Loan', cells: ['B3'], kind: 'number', min: 1000, max: 500000, integer: true },
      { sheet: 'Flows', cells: range('B', 2, 5), kind: 'number', min: -500, max: 5000, integer: true },
      { sheet: 'Flows', cells: ['E1'], kind: 'number', min: 0.01, max: 0.2 },
    ],
  };
}

// ---- an Excel Table with structured references and a defined name ------------------------------
function excelTable(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    3,
    'B',
    ['Item', 'Qty', 'Price', 'Amount', 'With VAT'],
    [
      ['pen', 4, 1.5],
      ['pad', 2, 3.2],
      ['ink', 1, 7.25],
      ['tape', 6, 2.4],
    ],
    [
      '=tbSales[[#This Row],[Qty]]*tbSales[[#This Row],[Price]]',
      '=ROUND(tbSales[[#This Row],[Amount]]*(1+VAT),2)',
    ],
  );
  cells.H3 = 'Total';
  cells.I3 = '=SUM(tbSales[Amount])';
  cells.H4 = 'Mean price';
  cells.I4 = '=AVERAGE(tbSales[Price])';
  cells.H5 = 'Gross';
  cells.I5 = '=SUM(tbSales[With VAT])';
  return {
    name: 'excel-table',
    covers: 'an Excel Table with structured references ([#This Row], a column) and a defined name',
    book: {
      sheets: [
        { name: 'Sales', cells, tables: [{ name: 'tbSales', ref: 'B3:F7' }] },
        { name: 'Inputs', cells: { A1: 'VAT', B1: 0.2 } },
      ],
      names: { VAT: 'Inputs!$B$1' },
    },
    edits: [
      { sheet: 'Sales', cells: range('C', 4, 7), kind: 'number', min: 0, max: 12, integer: true },
      { sheet: 'Sales', cells: range('D', 4, 7), kind: 'number', min: 0.1, max: 9 },
      { sheet: 'Inputs', cells: ['B1'], kind: 'number', min: 0, max: 0.25 },
    ],
  };
}

// ---- text, dates and number functions ------------------------------------------------------------
function textDates(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    [
      'Name',
      'Day',
      'Value',
      'Month',
      'Year',
      'Month end',
      'Next',
      'Month name',
      'Shown',
      'Initial',
      'Tidy',
      'Parts',
      'Rounded',
    ],
    [
      ['ada lovelace', 45000, 12.345],
      ['alan  turing', 45123.5, 7.5],
      ['grace hopper', 44927, -3.25],
      ['linus', 45291, 1000.005],
    ],
    [
      '=MONTH(B#)',
      '=YEAR(B#)',
      '=EOMONTH(B#,0)',
      '=EDATE(B#,1)',
      '=TEXT(B#,"mmmm")',
      '=TEXT(C#,"0.00")',
      '=UPPER(MID(A#,1,1))&LOWER(RIGHT(A#,LEN(A#)-1))',
      '=TRIM(SUBSTITUTE(A#,"a","A"))',
      '=IFERROR(FIND(" ",A#),0)',
      '=ROUNDUP(C#,1)+ROUNDDOWN(C#,1)+MOD(INT(ABS(C#)),7)',
    ],
  );
  cells.P1 = 'Median';
  cells.Q1 = '=MEDIAN(C2:C5)';
  cells.P2 = 'Spread';
  cells.Q2 = '=STDEV(C2:C5)';
  cells.P3 = 'Root';
  cells.Q3 = '=SQRT(ABS(C2))+POWER(C3,2)';
  cells.P4 = 'Pick';
  cells.Q4 = '=CHOOSE(2,C2,C3,C4)';
  cells.P5 = 'Work days';
  cells.Q5 = '=NETWORKDAYS(B2,B3)';
  cells.P6 = 'Made date';
  cells.Q6 = '=DATE(YEAR(B4),MONTH(B4)+2,DAY(B4))';
  return {
    name: 'text-dates',
    covers: 'TEXT, dates (MONTH, YEAR, EOMONTH, EDATE, DATE, NETWORKDAYS), text and number functions',
    book: { sheets: [{ name: 'People', cells }] },
    edits: [
      { sheet: 'People', cells: range('B', 2, 5), kind: 'number', min: 40000, max: 47000, integer: true },
      { sheet: 'People', cells: range('C', 2, 5), kind: 'number', min: -100, max: 2000 },
      {
        sheet: 'People',
        cells: range('A', 2, 5),
        kind: 'category',
        values: ['ada lovelace', 'alan  turing', 'grace hopper', 'linus'],
      },
    ],
  };
}

// ---- logic, errors, approximate MATCH on a sorted band table, positions and SUBTOTAL ------------
function logic(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    [
      'Name',
      'Score',
      'Day',
      'Code',
      'Pass',
      'Grade',
      'Band',
      'Known',
      'Weekday',
      'Has an',
      'Tag',
      'Same',
      'Whole',
      'Line',
    ],
    [
      ['Ada', 91, 45000, 'x1'],
      ['bob', 48, 45001, 'y2'],
      ['Cy', 73, 45002, 'x1'],
      ['dana', 65, 45005, 'z9'],
      ['Eve', 12, 45010, 'y2'],
    ],
    [
      '=AND(B#>=50,NOT(OR(D#="z9",B#>95)))',
      '=_xlfn.IFS(B#>=90,"A",B#>=70,"B",B#>=50,"C",TRUE,"F")',
      '=INDEX($R$2:$R$5,MATCH(B#,$Q$2:$Q$5,1))',
      '=_xlfn.IFNA(VLOOKUP(D#,$T$2:$U$3,2,FALSE),"none")',
      '=WEEKDAY(C#,2)',
      '=IF(ISNUMBER(SEARCH("a",A#)),"yes","no")',
      '=_xlfn.CONCAT(D#,"-",B#)',
      '=EXACT(A#,UPPER(A#))',
      '=TRUNC(B#/7)',
      '=ROW()-1',
    ],
  );
  // functions newer than Excel 2007 are stored with Excel's `_xlfn.` prefix, as Excel writes them
  // (LibreOffice reads IFS without it as #NAME?)
  // a band table sorted ascending, read by MATCH type 1 (the largest value not above the key)
  Object.assign(cells, {
    Q1: 'From',
    R1: 'Band',
    Q2: 0,
    R2: 'low',
    Q3: 40,
    R3: 'mid',
    Q4: 70,
    R4: 'high',
    Q5: 90,
    R5: 'top',
    T1: 'Key',
    U1: 'Meaning',
    T2: 'x1',
    U2: 'first',
    T3: 'y2',
    U3: 'second',
  });
  cells.W1 = 'Subtotal';
  cells.X1 = '=SUBTOTAL(9,B2:B6)';
  cells.W2 = 'Text cells';
  cells.X2 = '=IF(ISTEXT(A2),1,0)+IF(ISTEXT(B2),1,0)';
  return {
    name: 'logic',
    covers:
      'AND/OR/NOT, IFS, approximate MATCH into a band table, IFNA(VLOOKUP), WEEKDAY, SEARCH, CONCAT, EXACT, TRUNC, ROW(), SUBTOTAL',
    book: { sheets: [{ name: 'Scores', cells }] },
    edits: [
      { sheet: 'Scores', cells: range('B', 2, 6), kind: 'number', min: 0, max: 100, integer: true },
      { sheet: 'Scores', cells: range('C', 2, 6), kind: 'number', min: 44000, max: 46000, integer: true },
      { sheet: 'Scores', cells: range('D', 2, 6), kind: 'category', values: ['x1', 'y2', 'z9'] },
    ],
  };
}

export const PATTERNS: Pattern[] = [
  orders(),
  criteria(),
  lookups(),
  ledger(),
  loan(),
  futureValue(),
  excelTable(),
  textDates(),
  logic(),
  offsetIndex(),
  operatorCriterion(),
  reconciliation(),
];
