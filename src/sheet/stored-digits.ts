/**
 * How many significant digits the program that wrote a workbook kept in its stored results. Excel
 * stores the full double (17 digits); LibreOffice writes 15 and Google Sheets' export 10
 * (loan-calculator-abhijit: `=-PMT(C7/12,C8*12,C6)` stored as 2431.805712 where the formula gives
 * 2431.805711635913, its display format showing 2 decimals — so not Excel's "precision as
 * displayed", which a `<calcPr fullPrecision="0">` would announce and which rounds to the format).
 * Such a value is compared with the computed one rounded to those digits.
 */
import type { Worksheet } from './xlsx.js';

/** Fewer digits than this in every stored result says nothing about the writer: short values. */
const MIN_ROUNDED_DIGITS = 10;
/** A double needs up to 17 digits; 16 or 17 in any stored result means nothing was rounded. */
const MAX_ROUNDED_DIGITS = 15;

/** Significant digits of a double as written in the shortest form that reads back as it. */
export function significantDigits(n: number): number {
  if (!Number.isFinite(n) || n === 0) return 0;
  const mantissa = Math.abs(n).toExponential().split('e')[0]!;
  return mantissa.replace('.', '').replace(/0+$/, '').length;
}

/**
 * The digits the writer kept (10 to 15), judged by the longest stored result of a formula that is
 * not a whole number; undefined when some result has more (the full double) or none reaches 10.
 */
export function storedDigits(sheets: Iterable<Worksheet>): number | undefined {
  let most = 0;
  for (const sheet of sheets) {
    for (const cell of sheet.cells.values()) {
      // a whole number says nothing of how fractions were rounded: Google Sheets writes one of
      // 10^10 or more in full (11708363777), more digits than the 10 it keeps for fractions
      if (cell.formula && typeof cell.value === 'number' && !Number.isInteger(cell.value))
        most = Math.max(most, significantDigits(cell.value));
    }
  }
  return most >= MIN_ROUNDED_DIGITS && most <= MAX_ROUNDED_DIGITS ? most : undefined;
}

/**
 * Whether a stored number is the computed one as a writer keeping `digits` digits writes it: within
 * one unit of its last kept digit (the writer's rounding, and a last bit computed in another order
 * that moved it: LibreOffice's PPMT(…,60,60,…) stores 2399.80826806177 where the plain double is
 * 2399.808268061756).
 */
export function sameAtDigits(stored: number, computed: number, digits: number | undefined): boolean {
  if (digits === undefined || !Number.isFinite(computed) || !Number.isFinite(stored)) return false;
  if (stored === 0) return computed === 0;
  const unit = 10 ** (Math.floor(Math.log10(Math.abs(stored))) - digits + 1);
  return Math.abs(stored - computed) <= unit;
}
