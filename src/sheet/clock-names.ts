/** The clock sheet's names (volatile.ts), apart so that the formula printer can name its cells. */

/** The clock sheet's name: brackets are not allowed in a sheet's own name, so it names no real sheet. */
export const CLOCK_SHEET = '[0]Clock';

/** The clock cell of each volatile function read as an input (its row; the column is A). */
export const CLOCK_ROWS: ReadonlyMap<string, number> = new Map([
  ['TODAY', 1],
  ['NOW', 2],
]);

/** The volatile function a clock cell's row stands for. */
export const clockFunction = (row: number): string | undefined =>
  [...CLOCK_ROWS].find(([, r]) => r === row)?.[0];
