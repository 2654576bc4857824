// SUM and PRODUCT over ranges that hold text, TRUE and blanks among the numbers (issue
// 39: a held-out workbook summed `G6:G8` over a note "1.41% 1"; the cell-grid evaluator, through
// formulajs, added 1.41, and refused right cells of the model as WHAT_IF_MISMATCH). In a range only
// numbers count. Against LibreOffice: each generated workbook is
// recalculated headless, as stored and after seeded edits; the converted model and the cell-grid
// evaluator must both give LibreOffice's value in every formula cell, and nothing may be rejected.
// Skipped without soffice.
import type { Input } from './oracle/book.js';
import { table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 4409;

function textInRanges(): Pattern {
  const cells: Record<string, Input> = {
    F1: 'Total',
    G1: '=SUM(B2:B7)',
    F2: 'Product',
    G2: '=PRODUCT(C2:C7)',
    F4: 'Total and notes',
    G4: '=SUM(B2:B7,I2:I4)',
    H1: 'Notes',
    I2: 12,
    I3: '1.41% 1',
    I4: '7',
  };
  table(
    cells,
    1,
    'A',
    ['Code', 'Amount', 'Rate'],
    [
      ['N1', 120, 1.5],
      ['S2', 'n/a', 2],
      ['E3', 80, '3'],
      ['W4', '5', 0.5],
      ['N5', 40, 'x'],
      ['S6', 10, 1.25],
    ],
    [],
  );
  return {
    name: 'text-in-ranges',
    covers: 'SUM and PRODUCT over ranges holding text, numbers written as text and a note among the numbers',
    book: { sheets: [{ name: 'Ranges', cells }] },
    edits: [
      { sheet: 'Ranges', cells: ['B2', 'B4', 'B6', 'B7'], kind: 'number', min: -50, max: 500 },
      { sheet: 'Ranges', cells: ['C2', 'C3', 'C5', 'C7'], kind: 'number', min: 0.1, max: 4 },
      { sheet: 'Ranges', cells: ['I2'], kind: 'number', min: -100, max: 100 },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'SUM and PRODUCT over ranges holding text',
  patterns: [textInRanges()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'text-in-ranges',
});
