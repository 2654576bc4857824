/**
 * A worksheet's budgets, checked as it is read: its rows and cells counted before it is parsed,
 * its columns and its used range (the grid from A1 to the last used row and column) once it is.
 * A sheet past one is left out alone (SHEET_TOO_LARGE in the report); the others still convert.
 */
import { SheetError, type SheetLimits } from './errors.js';
import { cellName } from './cell-names.js';

/** The refusals that leave one sheet out rather than the workbook. */
export const BUDGET_CODES = new Set<string>([
  'TOO_MANY_ROWS',
  'TOO_MANY_COLUMNS',
  'TOO_MANY_CELLS',
  'USED_RANGE_TOO_LARGE',
]);

export interface ElementCounts {
  rows: number;
  cells: number;
  formulas: number;
}

const COUNTED = /<(?:[A-Za-z_][\w.-]*:)?(row|c|f)[\s>/]/g;
/** Text kept from one chunk to the next, so that a tag cut in two is counted once. */
const COUNT_CARRY = 64;

/** The `<row>`, `<c>` and `<f>` elements of a sheet's text, counted as it streams by. */
export function countElements(feed: (onText: (text: string) => void) => void): ElementCounts {
  const counts: ElementCounts = { rows: 0, cells: 0, formulas: 0 };
  const tally = (text: string, upTo: number): void => {
    COUNTED.lastIndex = 0;
    for (let m = COUNTED.exec(text); m && m.index < upTo; m = COUNTED.exec(text)) {
      if (m[1] === 'row') counts.rows++;
      else if (m[1] === 'c') counts.cells++;
      else counts.formulas++;
    }
  };
  let carry = '';
  feed((chunk) => {
    const text = carry + chunk;
    // a match starting in the last COUNT_CARRY characters is counted with the next chunk
    const upTo = Math.max(0, text.length - COUNT_CARRY);
    tally(text, upTo);
    carry = text.slice(upTo);
  });
  tally(carry, carry.length);
  return counts;
}

/** Rows beyond the table's limit that a worksheet may carry (blank rows, totals) before it is refused unparsed. */
const SUMMARY_ROW_SLACK = 1000;

/** Refuses a sheet past the row or cell budget (from its counted elements); returns its cells. */
export function checkBudgets(
  counts: ElementCounts,
  sheet: string,
  limits: SheetLimits,
  cellsLeft: number,
): number {
  const { rows, cells } = counts;
  if (rows > limits.maxRows + 1 + SUMMARY_ROW_SLACK) {
    throw new SheetError(
      'TOO_MANY_ROWS',
      `sheet '${sheet}' has ${rows} rows; the limit is ${limits.maxRows} data rows`,
    );
  }
  if (cells > cellsLeft) {
    throw new SheetError(
      'TOO_MANY_CELLS',
      `the workbook holds more than ${limits.maxCells} cells (sheet '${sheet}' alone ${cells}, in ${rows} rows); the limit is ${limits.maxCells} cells`,
    );
  }
  return cells;
}

/** Refuses a cell past the last column a sheet may have. */
export function checkColumn(row: number, col: number, limits: SheetLimits): void {
  if (col > limits.maxColumns)
    throw new SheetError(
      'TOO_MANY_COLUMNS',
      `cell ${cellName(row, col)} lies past the limit of ${limits.maxColumns} columns`,
    );
}

/**
 * Refuses a sheet whose used range (A1 to its last used row and column, cells holding a value or
 * a formula) spans more of the grid than the budget: finding its tables and reading whole rows and
 * columns walk that grid, so its area, not its width alone, is what costs. A few far cells
 * (XFD1048576) are refused here, right after the sheet's cells are read.
 */
export function checkUsedRange(sheet: string, maxRow: number, maxCol: number, limits: SheetLimits): void {
  const area = maxRow * maxCol;
  if (area > limits.maxUsedRange) {
    throw new SheetError(
      'USED_RANGE_TOO_LARGE',
      `sheet '${sheet}' uses A1:${cellName(maxRow, maxCol)}, a range of ${area} cells (${maxRow} rows by ${maxCol} columns); the limit is ${limits.maxUsedRange} cells`,
    );
  }
}
