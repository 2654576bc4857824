/**
 * Values of the cell-grid evaluator and Excel's coercions between them. An error is an `Error`
 * whose message is the Excel error (`#N/A`), as @formulajs/formulajs makes and recognises them,
 * so errors flow through its functions as values.
 */
import type { CellValue } from '../xlsx.js';

export type Scalar = number | string | boolean | null | Error;
/** A range or an array result: rows of cells. */
export type Matrix = Scalar[][];
export type GridValue = Scalar | Matrix;

export const isMatrix = (v: GridValue | undefined): v is Matrix => Array.isArray(v);
export const xlError = (code: string): Error => new Error(code);
export const isXlError = (v: unknown): v is Error => v instanceof Error;

/**
 * Two doubles are equal for Excel and LibreOffice when they differ only in the last bits: relative
 * difference below 2^-48 (LibreOffice's rtl::math::approxEqual, which its `=` and its subtraction
 * use; Excel's documented behaviour agrees: =1*(0.5-0.4-0.1) shows 0 only at the final step).
 */
export function approxEqual(a: number, b: number): boolean {
  if (a === b) return true;
  if (a === 0 || b === 0 || !Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) < Math.abs(a) * 2 ** -48 && Math.abs(a - b) < Math.abs(b) * 2 ** -48;
}

/**
 * a + b as the spreadsheet adds: a sum that cancels to within the last bits of both operands
 * (relative `below`, cancellation.ts: 2^-48 in LibreOffice, 2^-50 in Excel) is 0.
 */
export function approxAdd(a: number, b: number, below = 2 ** -48): number {
  const s = a + b;
  if (!((a < 0 && b > 0) || (a > 0 && b < 0)) || !Number.isFinite(s)) return s;
  return Math.abs(s) < Math.abs(a) * below && Math.abs(s) < Math.abs(b) * below ? 0 : s;
}

/** A value in a number's place: blank is 0, TRUE is 1, text that reads as a number is it. */
export function toNumber(v: Scalar): number | Error {
  if (v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (isXlError(v)) return v;
  const t = v.trim();
  if (t === '') return xlError('#VALUE!');
  const n = Number(t.replace(/,/g, ''));
  if (Number.isFinite(n)) return n;
  const pct = /^([-+]?[\d.]+)\s*%$/.exec(t);
  if (pct && Number.isFinite(Number(pct[1]))) return Number(pct[1]) / 100;
  return xlError('#VALUE!');
}

/** A number as the General format writes it (15 significant digits, `1E+21`). */
export function numberText(n: number): string {
  const kept = Number(n.toPrecision(15));
  return String(kept).replace(/e\+?/, (m) => (m === 'e+' ? 'E+' : 'E'));
}

/** A value in a text's place: blank is "", TRUE is "TRUE". */
export function toText(v: Scalar): string | Error {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (isXlError(v)) return v;
  return numberText(v);
}

/** A value in a condition's place: numbers are true unless 0; text is an error unless TRUE/FALSE. */
export function toBoolean(v: Scalar): boolean | Error {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (isXlError(v)) return v;
  const u = v.trim().toUpperCase();
  if (u === 'TRUE') return true;
  if (u === 'FALSE') return false;
  return xlError('#VALUE!');
}

/** Excel's order across types: numbers < text < booleans; a blank takes the other side's type. */
const rank = (v: number | string | boolean): number =>
  typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2;

/** Compares two scalars as Excel's comparison operators do: -1, 0 or 1 (or the error). */
export function compare(a: Scalar, b: Scalar): number | Error {
  if (isXlError(a)) return a;
  if (isXlError(b)) return b;
  const blankAs = (other: Scalar): number | string | boolean =>
    typeof other === 'string' ? '' : typeof other === 'boolean' ? false : 0;
  const x = a === null ? blankAs(b) : a;
  const y = b === null ? blankAs(a) : b;
  if (rank(x) !== rank(y)) return rank(x) < rank(y) ? -1 : 1;
  if (typeof x === 'number' && typeof y === 'number') return approxEqual(x, y) ? 0 : x < y ? -1 : 1;
  if (typeof x === 'string' && typeof y === 'string') {
    const l = x.toLowerCase();
    const r = y.toLowerCase();
    return l === r ? 0 : l < r ? -1 : 1;
  }
  return x === y ? 0 : x < y ? -1 : 1;
}

/** The first index of sorted `rows` whose value is at least `x` (rows.length when none is). */
export function lowerBound(rows: number[], x: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A stored cell value as a grid value (a stored error is an error value). */
export const fromCell = (v: CellValue): Scalar =>
  v !== null && typeof v === 'object' ? xlError(v.error) : v;
