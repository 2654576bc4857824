// Patterns the converter gets wrong today (issue 39), each run as `it.fails` naming the defect: the
// two that verify on the stored values and are wrong after an edit, and FV/PV rejected on a
// 14th-digit difference (the stored values are compared as exact doubles, not at 15 digits). They flip when the fixes are merged.
import type { Input } from './book.js';
import { range, table, type Pattern } from './layout.js';

// ---- FV and PV: the converter's results differ from LibreOffice's in the 14th digit ---------------
export function futureValue(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Rate',
    B1: 0.06,
    A2: 'Years',
    B2: 3,
    A5: 'Future',
    B5: '=FV(B1/12,12,-100,-1000)',
    A6: 'Present',
    B6: '=PV(B1,B2,-2500)',
  };
  return {
    name: 'future-value',
    covers: 'FV and PV of side inputs',
    book: { sheets: [{ name: 'Loan', cells }] },
    edits: [
      { sheet: 'Loan', cells: ['B1'], kind: 'number', min: 0.01, max: 0.12 },
      { sheet: 'Loan', cells: ['B2'], kind: 'number', min: 1, max: 30, integer: true },
    ],
    knownDefect:
      'FV and PV are rejected as VALUE_MISMATCH: the compiled formula differs from the stored value in the 14th significant digit (FV(0.005,12,-100,-1000): LibreOffice 2295.23404915446, model 2295.23404915449) and the stored-value check compares the doubles themselves (equal within their last bits, relative 2^-48, as Excel and LibreOffice compare with `=`), so a 14th-digit difference is a mismatch',
    rejectionIsTheDefect: true,
  };
}

// ---- the two wrong-after-edit patterns of issue 39 -----------------------------------------------
// Both are laid out so the stored values happen to agree with the wrong translation (as in the
// workbooks of the issue): only an edit shows the difference.
export function offsetIndex(): Pattern {
  const cells: Record<string, Input> = {
    B2: 'Key',
    C2: 'Value',
    B3: 101,
    C3: 20,
    B4: 102,
    C4: 35,
    B5: 103,
    C5: 35,
    B6: 104,
    C6: 50,
    A10: 'Find',
    B10: 103,
    A11: 'Found',
    // INDEX's range starts at the header row, one above MATCH's: key 103 is the 3rd key, and
    // INDEX(C2:C6,3) is C4 (35), which equals C5, the aligned reading
    B11: '=INDEX(C2:C6,MATCH(B10,B3:B6,0))',
  };
  return {
    name: 'offset-index',
    covers: 'INDEX over a range starting one row above its MATCH range',
    book: { sheets: [{ name: 'Data', cells }] },
    edits: [
      { sheet: 'Data', cells: ['B10'], kind: 'category', values: [102, 103, 104] },
      { sheet: 'Data', cells: range('C', 3, 6), kind: 'number', min: 0, max: 100, integer: true },
    ],
    // was a known defect (issue 39: compiled as if both ranges started on the same row); fixed by
    // reading every lookup range from its own first cell (src/sheet/lookups.ts)
  };
}

export function operatorCriterion(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Key', 'Amount'],
    [
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
    ],
    [],
  );
  cells.D1 = 'From';
  cells.E1 = 4;
  cells.D2 = 'Above';
  // no key is above 4, and none equals the text ">4": both readings give 0 on the stored values;
  // with E1 = 1 LibreOffice gives 90 (the example)
  cells.E2 = '=SUMIFS($B$2:$B$5,$A$2:$A$5,">"&E1)';
  return {
    name: 'operator-criterion',
    covers: 'SUMIFS with a criterion built from an operator and a cell (">"&E1)',
    book: { sheets: [{ name: 'Sheet1', cells }] },
    edits: [
      { sheet: 'Sheet1', cells: ['E1'], kind: 'number', min: 0, max: 4, integer: true },
      { sheet: 'Sheet1', cells: range('B', 2, 5), kind: 'number', min: 0, max: 100, integer: true },
    ],
    // was a known defect (issue 39: the criterion compiled as an equality test with the text ">4",
    // verified on the stored values, 0 instead of 90 once E1 is 1); criteria are now read when the
    // model runs (src/sheet/criteria.ts)
  };
}
