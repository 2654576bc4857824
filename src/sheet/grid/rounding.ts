/**
 * ROUND, ROUNDUP, ROUNDDOWN and MROUND as LibreOffice computes them (rtl::math::round, LibreOffice
 * 7.4, the oracle of the spreadsheet tests), not as formulajs does: formulajs shifts the decimal
 * point of the double as it is, so ROUND(3*1.9*0.75, 2) — 4.2749999999999995, shown as 4.275 — is
 * 4.27, where LibreOffice and Excel give 4.28. LibreOffice scales by 10^digits, then rounds half
 * away from zero with a correction of 9e-15 relative (ROUND), or takes the floor or ceiling of the
 * scaled value read at 15 significant digits (ROUNDDOWN, ROUNDUP); ROUND to 0 digits is the plain
 * half-away-from-zero rounding of the double. The compiled model's helpers (library.ts, xl_round
 * and its kin) compute the same; test/sheet/rounding.test.ts holds the two together.
 */
import { isMatrix, isXlError, toNumber, xlError, type GridValue, type Scalar } from './values.js';

const POSITIVE_POWERS = Array.from({ length: 16 }, (_, i) => Number(`1e${i + 1}`));
// literals, not Math.pow(10, -k): V8's Math.pow(10, -4) is not the double nearest 1e-4
const NEGATIVE_POWERS = Array.from({ length: 16 }, (_, i) => Number(`1e-${i + 1}`));

/** 10^n as LibreOffice's getN10Exp gives it: the literal for |n| ≤ 16. */
function power10(n: number): number {
  if (n > 0) return n <= 16 ? POSITIVE_POWERS[n - 1]! : Math.pow(10, n);
  if (n < 0) return -n <= 16 ? NEGATIVE_POWERS[-n - 1]! : Math.pow(10, n);
  return 1;
}

/** 9e-1 … 9e-15, the correction ROUND adds at each magnitude of the scaled value (index 0: none). */
const CORRECTION = [0, ...Array.from({ length: 15 }, (_, i) => Number(`9e-${i + 1}`))];

/** C's std::round: half away from zero, on the double as it is (0.49999999999999994 is 0). */
function roundHalfAway(x: number): number {
  const a = Math.abs(x);
  const f = Math.floor(a);
  const r = a - f >= 0.5 ? f + 1 : f;
  return x < 0 ? -r : r;
}

/** The binary digits after the point of a finite |x| (0 for an integer). */
function fractionBits(a: number): number {
  if (a === 0) return 0;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exponent = ((hi >>> 20) & 0x7ff) - 1023;
  if (exponent >= 52) return 0;
  const lowest = (n: number): number => (n === 0 ? 0 : 32 - Math.clz32(n & -n));
  let least = lowest(lo);
  if (least === 0) {
    const high = lowest(hi & 0xfffff);
    least = high === 0 ? 53 : high + 32;
  }
  return Math.max(53 - least - exponent, 0);
}

/** rtl::math::approxValue: x read at 15 significant digits (a value of few binary digits as it is). */
export function approxValue(x: number): number {
  if (x === 0 || !Number.isFinite(x) || x > 2 ** 41) return x;
  const a = Math.abs(x);
  if (Number.isInteger(a) || fractionBits(a) <= 11) return x;
  const exp = 14 - Math.floor(Math.log10(a));
  const factor = power10(exp);
  const scaled = a * factor;
  if (!Number.isFinite(scaled)) return x;
  const r = roundHalfAway(scaled) / factor;
  if (!Number.isFinite(r)) return x;
  return x < 0 ? -r : r;
}

export type RoundingMode = 'nearest' | 'up' | 'down';

/** rtl::math::round(x, digits, mode): ROUND's 'nearest', ROUNDUP's 'up' (away from zero), ROUNDDOWN's 'down'. */
export function spreadsheetRound(x: number, digits: number, mode: RoundingMode): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  if (digits === 0 && mode === 'nearest') return roundHalfAway(x);
  let a = Math.abs(x);
  let factor = 1;
  if (digits !== 0) {
    if (digits < -20 || digits > 20 || a > Number.MAX_VALUE / 1e20) return x;
    factor = power10(digits);
    a *= factor;
  }
  if (mode === 'nearest') {
    const exp = a > 0 ? Math.floor(Math.log10(a)) : 0;
    const index = exp < 0 ? 15 : exp >= 14 ? 0 : 15 - exp;
    a = Math.floor(a + 0.5 + CORRECTION[index]!);
  } else {
    a = mode === 'up' ? Math.ceil(approxValue(a)) : Math.floor(approxValue(a));
  }
  if (digits !== 0) a /= factor;
  return x < 0 ? -a : a;
}

/** The digits argument as LibreOffice reads it: toward zero, at 15 significant digits. */
export function digitsOf(d: number): number {
  return d >= 0 ? Math.floor(approxValue(d)) : Math.ceil(approxValue(d));
}

/** MROUND: the multiple of `multiple` nearest `x` (LibreOffice's analysis add-in: ROUND of the quotient). */
export function mround(x: number, multiple: number): number | 'sign' {
  if (multiple === 0) return 0;
  if (x * multiple < 0) return 'sign';
  return multiple * roundHalfAway(x / multiple);
}

type Arg = GridValue | undefined;

/** A number argument: blank 0, TRUE 1, numeric text read; an error passed on. */
function numberArg(v: Scalar | undefined): number | Error {
  return toNumber(v === undefined ? null : v);
}

/** A function of two numbers over cells or, element by element, over arrays (a range in an array formula). */
function lifted(fn: (a: number, b: number) => Scalar, secondDefault?: number): (...args: Arg[]) => GridValue {
  const one = (a: Scalar | undefined, b: Scalar | undefined): Scalar => {
    const x = numberArg(a);
    if (isXlError(x)) return x;
    const y = b === undefined && secondDefault !== undefined ? secondDefault : numberArg(b);
    if (isXlError(y)) return y;
    return fn(x, y);
  };
  return (a, b) => {
    if (!isMatrix(a) && !isMatrix(b)) return one(a, b);
    const rows = Math.max(isMatrix(a) ? a.length : 1, isMatrix(b) ? b.length : 1);
    const cols = Math.max(isMatrix(a) ? a[0]!.length : 1, isMatrix(b) ? b[0]!.length : 1);
    const at = (m: Arg, r: number, c: number): Scalar | undefined =>
      isMatrix(m) ? (m[m.length === 1 ? 0 : r]?.[m[0]!.length === 1 ? 0 : c] ?? xlError('#N/A')) : m;
    return Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cols }, (_, c) => one(at(a, r, c), at(b, r, c))),
    );
  };
}

const rounding = (mode: RoundingMode) =>
  lifted((x, d) => {
    const digits = digitsOf(d);
    return digits < -20 || digits > 20 ? xlError('#NUM!') : spreadsheetRound(x, digits, mode);
  }, 0);

/** The grid evaluator's rounding functions (functions.ts), in place of formulajs's. */
export const ROUNDING_FUNCTIONS: [string, (...args: Arg[]) => GridValue][] = [
  ['ROUND', rounding('nearest')],
  ['ROUNDUP', rounding('up')],
  ['ROUNDDOWN', rounding('down')],
  // LibreOffice's TRUNC is ROUNDDOWN (formulajs's shifts the double as it is: TRUNC(959.76, 2) was 959.75)
  ['TRUNC', rounding('down')],
  [
    'MROUND',
    lifted((x, m) => {
      const r = mround(x, m);
      return r === 'sign' ? xlError('#NUM!') : r;
    }),
  ],
];
