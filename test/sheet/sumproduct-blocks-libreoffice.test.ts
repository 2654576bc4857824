// SUMPRODUCT over blocks of cells that are not whole table columns (issue 39: nine real workbooks
// weight a row's span by a locked row, `SUMPRODUCT(E4:G4,$E$2:$G$2)`, or two short columns,
// `SUMPRODUCT(D37:D41,$C$37:$C$41)`, refused until now). Against LibreOffice: each generated
// workbook is recalculated headless, as stored and after seeded edits; the converted model and
// the cell-grid evaluator must both give LibreOffice's value in every formula cell, and nothing may
// be rejected. Text and blanks in a block count as 0. Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 7717;

function sumproductBlocks(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Item', 'Weight', 'Q1', 'Q2', 'Q3', 'Score'],
    [
      ['a', 0.5, 10, 20, 30],
      ['b', 1.5, 7, 'n/a', 3],
      ['c', 2, 0.1, 0.2, 0.7],
      ['d', 0.25, 100, 50, 25],
    ],
    ['=SUMPRODUCT(C#:E#,$C$8:$E$8)'],
  );
  Object.assign(cells, {
    B8: 'Factors',
    C8: 1.1,
    D8: 0.9,
    E8: 1.25,
    A11: 3,
    B11: 4.5,
    A12: 'x',
    B12: 2,
    A13: 2.5,
    A14: 8,
    B14: -1.75,
    D11: '=SUMPRODUCT(A11:A14,B11:B14)',
    D12: '=SUMPRODUCT($A$11:$A$14,B11:B14,A11:A14)',
    D13: '=SUMPRODUCT(C8:E8,C2:E2)/SUM(C8:E8)',
  });
  return {
    name: 'sumproduct-blocks',
    covers: "SUMPRODUCT of a row's span and a locked row, and of short side columns with text and blanks",
    book: { sheets: [{ name: 'Scores', cells }] },
    edits: [
      {
        sheet: 'Scores',
        cells: [...range('C', 2, 5), ...range('E', 2, 5)],
        kind: 'number',
        min: -20,
        max: 200,
      },
      { sheet: 'Scores', cells: ['C8', 'D8', 'E8'], kind: 'number', min: 0.1, max: 3 },
      { sheet: 'Scores', cells: ['A11', 'B11', 'B12', 'A13', 'B14'], kind: 'number', min: -10, max: 10 },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'SUMPRODUCT over blocks of cells',
  patterns: [sumproductBlocks()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'sumproduct-blocks',
});
