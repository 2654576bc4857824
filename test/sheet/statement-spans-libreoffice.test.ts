// A column formula that sums, row by row, a span of cells outside the tables (issue 39: eight
// real workbooks, a budget's `P7 = SUM(D7:O7)` filled down beside monthly line items, a statement's
// `M23 = MAX(K23:L23)`): each row's span holds formula cells and typed cells of its own line, not a
// table's columns. Against LibreOffice: each generated workbook is recalculated headless, as stored
// and after seeded edits; the converted model and the cell-grid evaluator must both give
// LibreOffice's value in every formula cell, and nothing may be rejected. Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 6203;

function statementSpans(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Line',
    B1: 'Q1',
    C1: 'Q2',
    D1: 'Q3',
    E1: 'Year',
    F1: 'Best quarter',
    G1: 'Quarters counted',
    A2: 'Revenue',
    B2: '=SUM(J2:J3)',
    C2: '=J4*2',
    D2: '=C2+J5',
    A3: 'Costs',
    B3: 1200,
    C3: '=B3*1.1',
    D3: 900,
    A4: 'Profit',
    B4: '=B2-B3',
    C4: '=C2-C3',
    D4: '=D2-D3',
    A5: 'Note',
    B5: 'n/a',
    C5: '-',
    D5: 4,
    I1: 'Figures',
    J2: 4200,
    J3: 3100,
    J4: 900,
    J5: 700,
  };
  for (let r = 2; r <= 5; r++) {
    cells[`E${r}`] = `=SUM(B${r}:D${r})`;
    cells[`F${r}`] = `=MAX(B${r}:D${r})`;
    cells[`G${r}`] = `=COUNT(B${r}:D${r})`;
  }
  return {
    name: 'statement-spans',
    covers: 'a year total, best quarter and count filled down beside line items of formula and typed cells',
    book: { sheets: [{ name: 'Plan', cells }] },
    edits: [
      { sheet: 'Plan', cells: range('J', 2, 5), kind: 'number', min: -500, max: 9000 },
      { sheet: 'Plan', cells: ['B3', 'D3', 'D5'], kind: 'number', min: 0, max: 5000 },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'a column formula summing spans of line items outside the tables',
  patterns: [statementSpans()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'statement-spans',
});
