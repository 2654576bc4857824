// RANK and RANK.EQ (gradebooks and sales reports rank a column of their own values), compiled in
// extra-functions.ts. Against LibreOffice: each generated workbook is
// recalculated headless, as stored and after seeded edits (ties come from a small range of marks);
// the converted model and the cell-grid evaluator must both give LibreOffice's value in every
// formula cell, and nothing may be rejected. Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 4242;

function ranks(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Student', 'Marks', 'Bonus', 'Rank', 'Rank up', 'Rank eq', 'Total rank', 'Place'],
    [
      ['ana', 71, 2],
      ['ben', 88, 0],
      ['cal', 71, 5],
      ['dee', 54.5, 1],
      ['eli', 90, 0],
      ['fay', 88, 3],
    ],
    [
      '=RANK(B#,$B$2:$B$7)',
      '=RANK(B#,$B$2:$B$7,1)',
      '=_xlfn.RANK.EQ(B#,$B$2:$B$7,0)',
      '=RANK(B#,$B$2:$B$7)+C#',
      '=IF(RANK(B#,$B$2:$B$7)<=3,"top","")',
    ],
  );
  Object.assign(cells, {
    J2: 'Marks of ben',
    K2: '=RANK(B3,B2:B7)',
    J3: 'Of the last',
    K3: '=RANK(B7,$B$2:$B$7,1)',
  });
  return {
    name: 'ranks',
    covers: 'RANK and RANK.EQ down a column and in single cells, ascending and descending, with ties',
    book: { sheets: [{ name: 'Marks', cells }] },
    edits: [
      { sheet: 'Marks', cells: range('B', 2, 7), kind: 'number', min: 60, max: 64, integer: true },
      { sheet: 'Marks', cells: range('C', 2, 7), kind: 'number', min: 0, max: 3, integer: true },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'RANK and RANK.EQ',
  patterns: [ranks()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'ranks',
});
