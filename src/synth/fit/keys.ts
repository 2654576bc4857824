/**
 * Identifier columns, as fit and compare both recognise them (one rule, so compare does not test
 * as a distribution what fit generated as keys): a row index (distinct whole numbers at one
 * constant step, in any order) and a numeric key (distinct whole numbers that are not a row index:
 * dense in their range, or all written with the same number of digits, as customer numbers are).
 * Dates are never identifiers: a daily column has each day once.
 */
import { isMissingCell } from './missing.js';

/** Fewer distinct values than this say nothing about keys. */
export const MIN_KEY_ROWS = 20;
/** A key written with this many digits or more, all the same length, is an account-style number. */
const FIXED_WIDTH_DIGITS = 5;
const WHOLE = /^[-+]?\d+(\.0+)?$/;

/** The first value and the step of a row index, or undefined when `values` are not one. */
export function rowIndexOf(values: readonly number[]): { start: number; step: number } | undefined {
  if (values.length < 2) return undefined;
  const sorted = Float64Array.from(values).sort();
  const step = sorted[1]! - sorted[0]!;
  if (!(step > 0) || !Number.isInteger(step) || !Number.isInteger(sorted[0]!)) return undefined;
  for (let i = 2; i < sorted.length; i++) if (sorted[i]! - sorted[i - 1]! !== step) return undefined;
  return { start: sorted[0]!, step };
}

/**
 * Whether present cells (missing ones left out) are a numeric key that is not a row index:
 * at least MIN_KEY_ROWS distinct whole numbers, dense (their span at most 1.5 × their count) or
 * all of one width of FIXED_WIDTH_DIGITS digits or more.
 */
export function isNumericKey(cells: readonly string[]): boolean {
  const present = cells.map((c) => c.trim()).filter((c) => !isMissingCell(c));
  if (present.length < MIN_KEY_ROWS || !present.every((c) => WHOLE.test(c))) return false;
  const values = present.map(Number);
  if (new Set(values).size !== values.length || rowIndexOf(values) !== undefined) return false;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (max - min + 1 <= 1.5 * values.length) return true;
  const width = (c: string): number => c.replace(/^[-+]/, '').replace(/\.0+$/, '').length;
  const w = width(present[0]!);
  return w >= FIXED_WIDTH_DIGITS && present.every((c) => width(c) === w);
}

/**
 * Fresh keys for a numeric key column: whole numbers of the sample's width that lie outside its
 * [min, max], so none can equal a sample value. The larger of the two gaps (below min, above max,
 * within the width) is used; row k gets gap start + (k × stride mod gap size), a permutation of
 * the gap (stride coprime to its size), so keys are distinct for as many rows as the gap holds
 * and scattered rather than counting up. Undefined when neither gap holds as many keys as rows.
 */
export function freshKeyRange(
  values: readonly number[],
  rows: number,
): { start: number; size: number; stride: number } | undefined {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min < 0) return undefined;
  const digits = String(max).length;
  const low = Math.max(digits > 1 ? 10 ** (digits - 1) : 0, 0);
  const high = 10 ** digits - 1;
  const below = { start: low, size: Math.max(0, min - low) };
  const above = { start: max + 1, size: Math.max(0, high - max) };
  const gap = above.size >= below.size ? above : below;
  if (gap.size < Math.max(rows, 2)) return undefined;
  // a stride near the golden section of the gap, made coprime to its size
  let stride = Math.max(1, Math.floor(gap.size * 0.6180339887));
  while (gcd(stride, gap.size) !== 1) stride++;
  return { ...gap, stride };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
