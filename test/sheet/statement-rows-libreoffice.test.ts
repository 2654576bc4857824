// A column formula that reads, row by row, cells outside the tables (issue 39, the sixth held-out
// set: a P&L laid out as line items, `E2 = B2-D2` filled down beside `B2 = SUMIF(…)`, `B4 = B2-B3`
// and budget figures typed in D): each row reads its own line's cells, which are formula cells and
// typed cells of their own, not a table's columns. Against LibreOffice: each generated workbook is
// recalculated headless, as stored and after seeded edits; the converted model and the cell-grid
// evaluator must both give LibreOffice's value in every formula cell, and nothing may be rejected.
// Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 6101;

function statement(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Line',
    B1: 'Actual',
    D1: 'Budget',
    E1: 'Variance',
    F1: 'Share of budget',
    A2: 'Revenue',
    B2: '=SUM(H2:H4)',
    D2: 8000,
    E2: '=B2-D2',
    F2: '=E2/D2',
    A3: 'Costs',
    B3: '=H5*2+H6',
    D3: 2000,
    E3: '=B3-D3',
    F3: '=E3/D3',
    A4: 'Profit',
    B4: '=B2-B3',
    D4: 6000,
    E4: '=B4-D4',
    F4: '=E4/D4',
    A5: 'Margin',
    B5: '=B4/B2',
    D5: '=D4/D2',
    E5: '=B5-D5',
    F5: '=E5/D5',
    G1: 'Figures',
    H2: 4200,
    H3: 3100,
    H4: 900,
    H5: 700,
    H6: 350,
  };
  return {
    name: 'statement-rows',
    covers:
      'variance and share columns filled down beside line items that are formula cells and typed budget cells',
    book: { sheets: [{ name: 'P&L', cells }] },
    edits: [
      { sheet: 'P&L', cells: range('H', 2, 6), kind: 'number', min: 1, max: 9000 },
      { sheet: 'P&L', cells: range('D', 2, 4), kind: 'number', min: 500, max: 9000 },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'a column formula reading line items outside the tables',
  patterns: [statement()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'statement-rows',
});
