// The building blocks of the oracle's generated workbooks: a pattern (a workbook and the input
// cells to edit), and table cells written the way people lay them out.
import type { BookDef, Input } from './book.js';

/** Input cells to edit: numbers within a range, or categories from the column's own values. */
export type EditDef =
  | { sheet: string; cells: string[]; kind: 'number'; min: number; max: number; integer?: boolean }
  | { sheet: string; cells: string[]; kind: 'category'; values: Input[] };

export interface Pattern {
  name: string;
  /** What the workbook exercises, for the test's title. */
  covers: string;
  book: BookDef;
  edits: EditDef[];
  /** A converter defect known today (issue 39): the case runs as `it.fails` until it is fixed. */
  knownDefect?: string;
  /**
   * The defect is that supported cells are rejected (not that compiled ones are wrong): the case
   * requires no rejection. Otherwise a known defect counts as fixed when its cells are rejected
   * or right.
   */
  rejectionIsTheDefect?: boolean;
}

/** Table cells: a header row at `top`, one row per input row, formulas filled down (`#` = the row). */
export function table(
  cells: Record<string, Input>,
  top: number,
  left: string,
  headers: string[],
  inputs: Input[][],
  formulas: string[],
): void {
  const col0 = left.charCodeAt(0) - 64;
  const colOf = (i: number): string => String.fromCharCode(64 + col0 + i);
  headers.forEach((h, i) => (cells[`${colOf(i)}${top}`] = h));
  inputs.forEach((row, r) => {
    const sheetRow = top + 1 + r;
    row.forEach((v, i) => (cells[`${colOf(i)}${sheetRow}`] = v));
    // `#` is the row, except in a structured reference's `[#This Row]`
    formulas.forEach(
      (f, j) =>
        (cells[`${colOf(row.length + j)}${sheetRow}`] = f.replace(/#(?![A-Za-z])/g, String(sheetRow))),
    );
  });
}

export const range = (col: string, from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${col}${from + i}`);
