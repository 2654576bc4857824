// A column formula's lookup table with only its rows locked (`Prices!A$2:C$6`) or a whole-column
// table (`Prices!A:C`): filled down, only the rows of a reference move, so such a table is the
// same block in every row. Issue 39: held-out workbooks had `VLOOKUP(C2,Inventory!A:F,4,FALSE)`
// and `VLOOKUP(B2,ProductMaster!A:B,2,0)` filled down, refused as "not $-locked, so it moves from
// row to row". Against LibreOffice: each generated workbook is recalculated headless, as stored
// and after seeded edits of the keys and the price list; the converted model and the cell-grid
// evaluator must both give LibreOffice's value in every formula cell, and nothing may be rejected.
// Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 5303;

function lookupColumns(): Pattern {
  const prices: Record<string, Input> = {};
  table(
    prices,
    1,
    'A',
    ['Code', 'Name', 'Price'],
    [
      ['P1', 'Pen', 1.5],
      ['P2', 'Pad', 4],
      ['P3', 'Ink', 12.25],
      ['P4', 'Tape', 2.75],
      ['P5', 'Clip', 0.2],
    ],
    [],
  );
  const orders: Record<string, Input> = {};
  table(
    orders,
    1,
    'A',
    ['Order', 'Code', 'Qty', 'Amount', 'Name', 'Price', 'Price again'],
    [
      ['o1', 'P3', 2],
      ['o2', 'P1', 10],
      ['o3', 'P5', 100],
      ['o4', 'P2', 1],
      ['o5', 'P4', 3],
      ['o6', 'P3', 7],
    ],
    [
      '=VLOOKUP(B#,Prices!A$2:C$6,3,FALSE)*C#',
      '=VLOOKUP(B#,Prices!A:C,2,FALSE)',
      '=IFERROR(VLOOKUP(B#,Prices!$A:$C,3,0),0)',
      '=INDEX(Prices!C$2:C$6,MATCH(B#,Prices!A$2:A$6,0))',
    ],
  );
  return {
    name: 'lookup-columns',
    covers: 'VLOOKUP and INDEX/MATCH filled down over tables with only their rows locked, or whole columns',
    book: {
      sheets: [
        { name: 'Orders', cells: orders },
        { name: 'Prices', cells: prices },
      ],
    },
    edits: [
      {
        sheet: 'Orders',
        cells: range('B', 2, 7),
        kind: 'category',
        values: ['P1', 'P2', 'P3', 'P4', 'P5', 'P9'],
      },
      { sheet: 'Orders', cells: range('C', 2, 7), kind: 'number', min: 0, max: 50 },
      { sheet: 'Prices', cells: range('C', 2, 6), kind: 'number', min: 0.1, max: 30 },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'lookup tables with only their rows locked, and whole-column tables',
  patterns: [lookupColumns()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'lookup-columns',
});
