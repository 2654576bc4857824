/**
 * Cell keys and A1 names: a leaf module, so that the sheet modules the reader itself imports (the
 * budgets, the formula parser) can name cells without importing the reader.
 */

export const cellKey = (row: number, col: number): string => `${row}:${col}`;

/** 1 → A, 27 → AA. */
export function columnLetter(col: number): string {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
export const cellName = (row: number, col: number): string => `${columnLetter(col)}${row}`;
