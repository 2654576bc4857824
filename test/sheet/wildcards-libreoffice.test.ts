// Wildcard lookups and `[#This Row]` read from outside its table, against LibreOffice: each
// generated workbook is recalculated by headless LibreOffice, as stored and after seeded edits; the
// converted model (run in the calc engine with the same edits) and the cell-grid evaluator must
// both give LibreOffice's value in every formula cell, and nothing may be rejected. Skipped where
// soffice is not installed. Numbers stay out of the lists a pattern searches: Excel's wildcards
// match text only, where LibreOffice also matches a number's digits.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 3911;

/** A bank statement's details: cheque numbers inside longer text, a `?` and a `~` among them. */
const DETAILS = [
  'Electricity bill Cheque # 0007864',
  'Receipt Cheque # 0007981',
  'Payment Cheque # 0007866',
  'Outward payment Ch. No 007867',
  'Receipt Ch. No. 0007982',
  'Ref? 7983 transfer',
  'Fee a~b 7984',
  'Rental paid Ch. No. 7870',
];
/** What the workbook looks for: each fragment matches one of DETAILS (a `?`, `~?`, `~~`, `~b` too). */
const FRAGMENTS = ['7864', '7981', '7866', '07867', '?7982', 'ref~? 7983', 'a~~b', 'F~ee', 'rental*7870'];

/** A bank-reconciliation worksheet: the cashbook finds each cheque in the statement by wildcards. */
function reconciliation(): Pattern {
  const bank: Record<string, Input> = {};
  table(
    bank,
    1,
    'A',
    ['Details', 'Debit', 'Credit'],
    DETAILS.map((d, i) => [d, 100 * (i + 1), 2000 + 37 * i]),
    [],
  );
  const book: Record<string, Input> = {};
  table(
    book,
    1,
    'A',
    ['Name', 'Cheque', 'Amount'],
    FRAGMENTS.map((f, i) => [`Payee ${i + 1}`, f, 2000 + 37 * i]),
    [
      '=VLOOKUP("*"&B#&"*",Bank!$A$2:$C$9,3,0)',
      '=C#-VLOOKUP("*"&B#&"*",Bank!$A$2:$C$9,3,FALSE)',
      '=MATCH("*"&B#&"*",Bank!$A$2:$A$9,0)',
      '=INDEX(Bank!$B$2:$B$9,MATCH("*"&B#&"*",Bank!$A$2:$A$9,0))',
    ],
  );
  book.D1 = 'In statement';
  book.E1 = 'Difference';
  book.F1 = 'Position';
  book.G1 = 'Debit';
  book.I1 = 'Receipts';
  book.J1 = '=COUNTIF(Bank!$A$2:$A$9,"receipt*")';
  book.I2 = 'Escaped';
  book.J2 = '=COUNTIF(Bank!$A$2:$A$9,"*a~b*")+COUNTIF(Bank!$A$2:$A$9,"*~?*")';
  book.I3 = 'First rental';
  book.J3 = '=VLOOKUP(B10&"",Bank!$A$2:$C$9,2,0)';
  return {
    name: 'wildcard-reconciliation',
    covers:
      'VLOOKUP FALSE, MATCH 0 and INDEX/MATCH with "*"&key&"*" over a table of inputs; ?, ~?, ~~, ~b; COUNTIF with ~',
    book: {
      sheets: [
        { name: 'Bank', cells: bank },
        { name: 'Book', cells: book },
      ],
    },
    edits: [
      { sheet: 'Book', cells: range('B', 2, 10), kind: 'category', values: FRAGMENTS },
      { sheet: 'Bank', cells: range('C', 2, 9), kind: 'number', min: 0, max: 9000, integer: true },
      { sheet: 'Bank', cells: range('B', 2, 9), kind: 'number', min: 0, max: 900, integer: true },
    ],
  };
}

/** A constant price list (embedded in the spec's library) searched by a code's first letters. */
function priceList(): Pattern {
  const cells: Record<string, Input> = {};
  const codes = ['AX-100 chair', 'BX-200 desk', 'CX-300 lamp', 'BX-210 shelf', 'DX-400 rug'];
  codes.forEach((c, i) => {
    cells[`H${i + 2}`] = c;
    cells[`I${i + 2}`] = 15 + 10 * i;
  });
  // no header above the block: a block of constants no formula reads but the lookups, which the
  // spec's library holds (a header would make it a table of the model, read where it lies)
  table(
    cells,
    1,
    'A',
    ['Prefix', 'Qty'],
    [
      ['ax', 2],
      ['bx-2?0', 3],
      ['*lamp', 1],
      ['dx', 5],
    ],
    ['=D#*0+B#*VLOOKUP(A#&"*",$H$2:$I$6,2,0)', '=VLOOKUP(A#&"*",$H$2:$I$6,2,FALSE)'],
  );
  // the header of the formula columns
  cells.C1 = 'Line total';
  cells.D1 = 'Unit price';
  // across: the codes in a row
  codes.forEach((c, i) => {
    cells[`${String.fromCharCode(75 + i)}10`] = c;
    cells[`${String.fromCharCode(75 + i)}11`] = 3 * i + 1;
  });
  cells.J12 = 'Across';
  cells.K12 = '=HLOOKUP("?X-3*",K10:O11,2,0)+HLOOKUP(A3&"*",K10:O11,2,0)';
  return {
    name: 'wildcard-price-list',
    covers: 'VLOOKUP FALSE with key&"*" over a constant block (a library table), HLOOKUP with ? and *',
    book: { sheets: [{ name: 'Orders', cells }] },
    edits: [
      {
        sheet: 'Orders',
        cells: range('A', 2, 5),
        kind: 'category',
        values: ['ax', 'bx-2?0', '*lamp', 'dx', 'b', '?x-4'],
      },
      { sheet: 'Orders', cells: range('B', 2, 5), kind: 'number', min: 0, max: 20, integer: true },
    ],
  };
}

/**
 * `Tbl[[#This Row],[Col]]` from cells outside the table, beside it and on another sheet (a file
 * always stores this form; `Tbl[@Col]` is how Excel shows it, and LibreOffice reads only the first).
 */
function thisRowOutside(): Pattern {
  const ledger: Record<string, Input> = {};
  table(
    ledger,
    1,
    'A',
    ['Item', 'Qty', 'Price'],
    [
      ['pen', 3, 1.5],
      ['ink', 1, 12],
      ['pad', 4, 3.25],
      ['clip', 10, 0.2],
    ],
    [],
  );
  ledger.F1 = 'Check';
  for (let r = 2; r <= 5; r++) ledger[`F${r}`] = `=Tbl[[#This Row],[Qty]]*Tbl[[#This Row],[Price]]`;
  const report: Record<string, Input> = {
    A1: 'Line',
    B1: 'Item',
    C1: 'Amount',
    A3: 'second',
    B3: '=Tbl[[#This Row],[Item]]',
    C3: '=Tbl[[#This Row],[Qty]]*Tbl[[#This Row],[Price]]',
    A4: 'third',
    B4: '=UPPER(Tbl[[#This Row],[Item]])',
    C4: '=Tbl[[#This Row],[Price]]+1',
  };
  return {
    name: 'this-row-outside',
    covers: '[#This Row] from outside its table: the table cell in the formula row',
    book: {
      sheets: [
        { name: 'Ledger', cells: ledger, tables: [{ name: 'Tbl', ref: 'A1:C5' }] },
        { name: 'Report', cells: report },
      ],
    },
    edits: [
      { sheet: 'Ledger', cells: range('B', 2, 5), kind: 'number', min: 0, max: 50, integer: true },
      { sheet: 'Ledger', cells: range('C', 2, 5), kind: 'number', min: 0, max: 40 },
      { sheet: 'Ledger', cells: range('A', 2, 5), kind: 'category', values: ['pen', 'ink', 'Pad', 'tape'] },
    ],
  };
}

const PATTERNS: Pattern[] = [reconciliation(), priceList(), thisRowOutside()];

describePatternsAgainstLibreOffice({
  title: 'wildcard lookups and rows of another table',
  patterns: PATTERNS,
  seed: SEED,
  edits: EDITS,
  idPrefix: 'wildcards',
});
