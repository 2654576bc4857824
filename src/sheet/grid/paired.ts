/**
 * The grid evaluator's own statistics of two paired ranges and YEARFRAC, where formulajs differs
 * from the spreadsheets: its SLOPE family answers #VALUE! when a range holds text or a blank (Excel
 * and LibreOffice drop that pair), and its YEARFRAC counts the ends of February in basis 0 and dates
 * given in reverse otherwise. Written from the documented rules, apart from the compiler's helpers.
 */
import { isMatrix, isXlError, xlError, type GridValue, type Scalar } from './values.js';

type Fn = (...args: (GridValue | undefined)[]) => unknown;

const cellsOf = (v: GridValue | undefined): Scalar[] => (v === undefined ? [] : isMatrix(v) ? v.flat() : [v]);

interface Paired {
  n: number;
  mx: number;
  my: number;
  sxx: number;
  syy: number;
  sxy: number;
}

/** The numeric pairs of `ys` and `xs` summarised, or the error the function gives. */
function paired(ys: GridValue | undefined, xs: GridValue | undefined): Paired | Error {
  const y = cellsOf(ys);
  const x = cellsOf(xs);
  if (y.length !== x.length) return xlError('#N/A');
  const pairs: [number, number][] = [];
  for (let i = 0; i < y.length; i++) {
    const a = y[i]!;
    const b = x[i]!;
    if (isXlError(a)) return a;
    if (isXlError(b)) return b;
    if (typeof a === 'number' && typeof b === 'number') pairs.push([a, b]);
  }
  const n = pairs.length;
  if (n === 0) return xlError('#DIV/0!');
  let sumX = 0;
  let sumY = 0;
  for (const [a, b] of pairs) {
    sumY += a;
    sumX += b;
  }
  const my = sumY / n;
  const mx = sumX / n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const [a, b] of pairs) {
    sxx += (b - mx) * (b - mx);
    syy += (a - my) * (a - my);
    sxy += (b - mx) * (a - my);
  }
  return { n, mx, my, sxx, syy, sxy };
}

const slope = (ys: GridValue | undefined, xs: GridValue | undefined): number | Error => {
  const p = paired(ys, xs);
  if (isXlError(p)) return p;
  return p.sxx === 0 ? xlError('#DIV/0!') : p.sxy / p.sxx;
};

const correl = (ys: GridValue | undefined, xs: GridValue | undefined): number | Error => {
  const p = paired(ys, xs);
  if (isXlError(p)) return p;
  return p.sxx * p.syy === 0 ? xlError('#DIV/0!') : p.sxy / Math.sqrt(p.sxx * p.syy);
};

const covariance =
  (sample: boolean): Fn =>
  (ys, xs) => {
    const p = paired(ys, xs);
    if (isXlError(p)) return p;
    const d = p.n - (sample ? 1 : 0);
    return d <= 0 ? xlError('#DIV/0!') : p.sxy / d;
  };

/** A 1900 serial → year, month, day (serial 60 is Excel's 29 February 1900). */
interface Ymd {
  y: number;
  m: number;
  d: number;
}

function ymd(serial: number): Ymd {
  if (serial === 60) return { y: 1900, m: 2, d: 29 };
  if (serial === 0) return { y: 1900, m: 1, d: 0 };
  const date = new Date(((serial < 60 ? serial + 1 : serial) - 25_569) * 86_400_000);
  return { y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() };
}

const leap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** 1 March of a year as a 1900 serial. */
const march1 = (y: number): number => Date.UTC(y, 2, 1) / 86_400_000 + 25_569;

/**
 * Days in the year YEARFRAC's basis 1 divides by, by Excel's documented rule: a span of at most a
 * year counts 366 when it lies in one leap year, takes in a 29 February or ends on one, else 365; a
 * longer span the average length of the years it touches.
 */
function actualYear(lo: number, hi: number, p: Ymd, q: Ymd): number {
  const short = p.y === q.y || (q.y === p.y + 1 && (p.m > q.m || (p.m === q.m && p.d >= q.d)));
  if (!short) {
    let days = 0;
    for (let y = p.y; y <= q.y; y++) days += leap(y) ? 366 : 365;
    return days / (q.y - p.y + 1);
  }
  const feb29 =
    (leap(p.y) && lo < march1(p.y) && hi >= march1(p.y)) ||
    (leap(q.y) && hi >= march1(q.y) && lo < march1(q.y));
  return (p.y === q.y && leap(p.y)) || feb29 || (q.m === 2 && q.d === 29) ? 366 : 365;
}

function yearfrac(start: GridValue | undefined, end: GridValue | undefined, basis?: GridValue): unknown {
  for (const v of [start, end, basis]) if (isXlError(v)) return v;
  if (isMatrix(start) || isMatrix(end) || isMatrix(basis)) return xlError('#VALUE!');
  const num = (v: Scalar | undefined): number => (v === null || v === undefined ? 0 : Number(v));
  const a = Math.floor(num(start));
  const b = Math.floor(num(end));
  const mode = Math.floor(num(basis));
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(mode)) return xlError('#VALUE!');
  if (mode < 0 || mode > 4 || a < 0 || b < 0) return xlError('#NUM!');
  if (a === b) return 0;
  const [lo, hi] = a < b ? [a, b] : [b, a];
  const p = ymd(lo);
  const q = ymd(hi);
  let days: number;
  if (mode === 0) {
    let d1 = p.d === 31 ? 30 : p.d;
    let d2 = q.d;
    if (d1 === 30 && d2 === 31) d2 = 30;
    else if (p.m === 2 && d1 === (leap(p.y) ? 29 : 28)) {
      d1 = 30;
      if (q.m === 2 && d2 === (leap(q.y) ? 29 : 28)) d2 = 30;
    }
    days = (q.y - p.y) * 360 + (q.m - p.m) * 30 + (d2 - d1);
  } else if (mode === 4) {
    const d1 = p.d === 31 ? 30 : p.d;
    const d2 = q.d === 31 ? 30 : q.d;
    days = (q.y - p.y) * 360 + (q.m - p.m) * 30 + (d2 - d1);
  } else days = hi - lo;
  const year = mode === 3 ? 365 : mode === 1 ? actualYear(lo, hi, p, q) : 360;
  return days / year;
}

export const PAIRED_FUNCTIONS = new Map<string, Fn>([
  ['SLOPE', slope],
  [
    'INTERCEPT',
    (ys, xs) => {
      const p = paired(ys, xs);
      if (isXlError(p)) return p;
      return p.sxx === 0 ? xlError('#DIV/0!') : p.my - (p.sxy / p.sxx) * p.mx;
    },
  ],
  [
    'FORECAST',
    (x, ys, xs) => {
      if (isXlError(x)) return x;
      if (typeof x !== 'number') return xlError('#VALUE!');
      const p = paired(ys, xs);
      if (isXlError(p)) return p;
      return p.sxx === 0 ? xlError('#DIV/0!') : p.my + (p.sxy / p.sxx) * (x - p.mx);
    },
  ],
  ['CORREL', correl],
  ['PEARSON', correl],
  [
    'RSQ',
    (ys, xs) => {
      const r = correl(ys, xs);
      return isXlError(r) ? r : r * r;
    },
  ],
  ['COVARIANCE.S', covariance(true)],
  ['COVARIANCE.P', covariance(false)],
  ['COVAR', covariance(false)],
  ['YEARFRAC', yearfrac],
]);
PAIRED_FUNCTIONS.set('FORECAST.LINEAR', PAIRED_FUNCTIONS.get('FORECAST')!);
