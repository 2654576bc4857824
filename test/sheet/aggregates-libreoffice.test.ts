// The plain aggregates COUNTA, PRODUCT, STDEV.S, STDEV.P and STDEVP (issue 39, the fourth held-out
// set: `=B6+PRODUCT(B6,10%)` filled across a budget, `COUNTA(tbl[Code])`, `STDEV.P(E3:E253)`)
// against LibreOffice: each generated workbook is recalculated by headless LibreOffice, as stored
// and after seeded edits; the converted model and the cell-grid evaluator must both give
// LibreOffice's value in every formula cell, and nothing may be rejected. Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 3907;

function aggregates(): Pattern {
  const cells: Record<string, Input> = {
    E1: 'Product',
    F1: '=PRODUCT(B2:B7)',
    E2: 'Grown',
    F2: '=H2+PRODUCT(H2,10%)',
    G2: 'Base',
    H2: 1200,
    E3: 'Codes',
    F3: '=COUNTA(A2:A7)',
    E4: 'Filled',
    F4: '=COUNTA(A2:A7,B2:B7,H2)',
    E5: 'Sample deviation',
    F5: '=_xlfn.STDEV.S(B2:B7)',
    E6: 'Population deviation',
    F6: '=_xlfn.STDEV.P(B2:B7)',
    E7: 'Old name',
    F7: '=STDEVP(B2:B7,H2)',
  };
  table(
    cells,
    1,
    'A',
    ['Code', 'Return'],
    [
      ['N1', 1.02],
      ['S2', 0.97],
      ['E3', 1.11],
      ['W4', 1.05],
      ['N5', 0.9],
      ['S6', 1.3],
    ],
    [],
  );
  return {
    name: 'aggregates',
    covers:
      'COUNTA over text and numbers, PRODUCT of a column and of a cell and a percent, STDEV.S, STDEV.P, STDEVP',
    book: { sheets: [{ name: 'Returns', cells }] },
    edits: [
      { sheet: 'Returns', cells: range('B', 2, 7), kind: 'number', min: 0.5, max: 1.5 },
      { sheet: 'Returns', cells: ['H2'], kind: 'number', min: -5000, max: 5000 },
      { sheet: 'Returns', cells: range('A', 2, 7), kind: 'category', values: ['N1', 'S2', 'x', '0'] },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'COUNTA, PRODUCT, STDEV.S, STDEV.P, STDEVP',
  patterns: [aggregates()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'aggregates',
});
