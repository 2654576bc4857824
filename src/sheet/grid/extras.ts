/**
 * VALUE and PROPER for the cell-grid evaluator, where @formulajs/formulajs differs from Excel and
 * LibreOffice (its VALUE reads "abc" and "" as 0 and "(5)" as 5 and no date; its PROPER gives
 * "O'neil"; its DATEDIF counts an end before the start negative and its MD and YD differ, and its LARGE and SMALL give
 * nothing for a k past the count): VALUE parses text by numfmt's Excel rules (numbers, grouping,
 * currency, percent, parentheses, dates and times); PROPER upper-cases each run of letters' first
 * one; DATEDIF follows LibreOffice's rules; LARGE and SMALL answer #NUM! where Excel does and are
 * formulajs's otherwise. DATE reads its year as Excel does (formulajs takes 1049 as 1049, Excel as
 * 2949) and counts January and February 1900 as Excel does.
 */
import * as formulajs from '@formulajs/formulajs';
import { parseValue } from 'numfmt';
import { isMatrix, isXlError, xlError, type GridValue, type Scalar } from './values.js';

type Fn = (...args: (GridValue | undefined)[]) => unknown;

function value(...args: (GridValue | undefined)[]): unknown {
  const [v] = args;
  if (isMatrix(v)) return v.map((r) => r.map((c) => value(c)));
  if (isXlError(v)) return v;
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return xlError('#VALUE!');
  const parsed = parseValue(v);
  return typeof parsed?.value === 'number' ? parsed.value : xlError('#VALUE!');
}

function proper(...args: (GridValue | undefined)[]): unknown {
  const [v] = args;
  if (isMatrix(v)) return v.map((r) => r.map((c) => proper(c)));
  if (isXlError(v)) return v;
  const s = v === undefined || v === null ? '' : typeof v === 'boolean' ? (v ? 'TRUE' : 'FALSE') : String(v);
  return s.replace(/\p{L}+/gu, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase());
}

/** A 1900 serial's year, month and day (serial 60, Excel's 29 February 1900, is not read here). */
function ymd(serial: number): { y: number; m: number; d: number } {
  const d = new Date((serial - 25_569) * 86_400_000);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() };
}

/** The serial of a year, month and day, months and days rolling over as DATE's do. */
const serialOf = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / 86_400_000 + 25_569;

/**
 * SUM, PRODUCT and SUMPRODUCT read a range's cells as Excel does: only numbers count there (text,
 * TRUE and blanks are left out; in SUMPRODUCT they are 0), errors propagate. formulajs reads text
 * that starts like a number in a range as that number (SUM over "1.41% 1" added 1.41) and gives
 * #VALUE! for PRODUCT and SUMPRODUCT over a range holding text. A value given directly (not a
 * range) is formulajs's to read.
 */
const numbersOnly =
  (name: 'SUM' | 'PRODUCT' | 'SUMPRODUCT', other: Scalar): Fn =>
  (...args) =>
    (formulajs[name] as Fn)(
      ...args.map((a) =>
        isMatrix(a) ? a.map((r) => r.map((c) => (typeof c === 'number' || isXlError(c) ? c : other))) : a,
      ),
    );

/** A DATE argument as a number: blank is 0, TRUE 1, text that reads as a number that number. */
function dateArgument(v: GridValue | undefined): number | undefined {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/**
 * DATE as Excel computes it: a year from 0 to 1899 is 1900 later, one below 0 or from 10000 is
 * #NUM!; months roll over and days count on from the month's first serial (so DATE(1900,2,29)
 * is 60, Excel's 29 February 1900); a date before serial 0 or after 31 December 9999 is #NUM!.
 */
function date(...args: (GridValue | undefined)[]): unknown {
  for (const a of args) if (isXlError(a)) return a;
  if (args.some((a) => isMatrix(a))) return formulajs.DATE(...(args as [number, number, number]));
  const [y, m, d] = args.slice(0, 3).map(dateArgument);
  if (y === undefined || m === undefined || d === undefined) return xlError('#VALUE!');
  const year = Math.floor(y);
  if (year < 0 || year >= 10_000) return xlError('#NUM!');
  const months = (year < 1900 ? year + 1900 : year) * 12 + Math.floor(m) - 1;
  const first = new Date(0);
  first.setUTCFullYear(Math.floor(months / 12), months - Math.floor(months / 12) * 12, 1); // no two-digit years
  const start = first.getTime() / 86_400_000 + 25_569; // the days count on from the month's first serial
  const serial = (start < 61 ? start - 1 : start) + Math.floor(d) - 1;
  return serial < 0 || serial >= 2_958_466 || Number.isNaN(serial) ? xlError('#NUM!') : serial;
}

/**
 * DATEDIF by LibreOffice's rules (formulajs's MD and YD differ: 29 February 2020 to 28 February
 * 2021 is MD 30 and YD 365 there, 58 and -1 in formulajs): whole months less one when the end's
 * day is before the start's; MD then counts from the start's day in the month before the end's;
 * YD from the start's anniversary not after the end. An end before the start is #NUM!.
 */
function datedif(...args: (GridValue | undefined)[]): unknown {
  const [start, end, unit] = args;
  if (typeof start !== 'number' || typeof end !== 'number' || typeof unit !== 'string')
    return xlError('#VALUE!');
  const a = Math.floor(start);
  const b = Math.floor(end);
  // (before March 1900 a serial is a day off JavaScript's calendar: refused, so such a cell is rejected)
  if (a < 61 || b < 61) return xlError('#VALUE!');
  if (b < a) return xlError('#NUM!');
  const p = ymd(a);
  const q = ymd(b);
  const months = (q.y - p.y) * 12 + q.m - p.m - (q.d < p.d ? 1 : 0);
  switch (unit.toUpperCase()) {
    case 'D':
      return b - a;
    case 'M':
      return months;
    case 'Y':
      return Math.floor(months / 12);
    case 'YM':
      return months % 12;
    case 'MD':
      return q.d >= p.d ? q.d - p.d : b - serialOf(q.y, q.m - 1, p.d);
    case 'YD': {
      const anniversary = serialOf(q.y, p.m, p.d);
      return anniversary > b ? b - serialOf(q.y - 1, p.m, p.d) : b - anniversary;
    }
    default:
      return xlError('#NUM!');
  }
}

/** LARGE or SMALL: #NUM! for a k below 1 or past the count of numbers. */
const kth =
  (name: 'LARGE' | 'SMALL'): Fn =>
  (...args) => {
    const [list, k] = args;
    const count = (isMatrix(list) ? list.flat() : [list]).filter((v) => typeof v === 'number').length;
    if (typeof k === 'number' && (Math.ceil(k) < 1 || Math.ceil(k) > count)) return xlError('#NUM!');
    return formulajs[name](...(args as Parameters<typeof formulajs.LARGE>));
  };

/**
 * RANK and RANK.EQ: 1 + the numbers of ref above x (order 0, or none) or below it; #N/A when x is
 * not among ref's numbers (formulajs answers 0 there, and reads text in ref), #VALUE! for a text x.
 */
const rank: Fn = (x, ref, order) => {
  if (isXlError(x)) return x;
  if (typeof x !== 'number') return xlError('#VALUE!');
  const values = isMatrix(ref) ? ref.flat() : [ref];
  const error = values.find(isXlError);
  if (error) return error;
  const numbers = values.filter((v): v is number => typeof v === 'number');
  if (!numbers.includes(x)) return xlError('#N/A');
  const ascending = typeof order === 'number' ? order !== 0 : order === true;
  return 1 + numbers.filter((v) => (ascending ? v < x : v > x)).length;
};

export const EXTRA_GRID_FUNCTIONS: [string, Fn][] = [
  ['RANK', rank],
  ['RANK.EQ', rank],
  ['VALUE', value],
  ['PROPER', proper],
  ['SUM', numbersOnly('SUM', null)],
  ['PRODUCT', numbersOnly('PRODUCT', null)],
  ['SUMPRODUCT', numbersOnly('SUMPRODUCT', 0)],
  ['DATE', date],
  ['DATEDIF', datedif],
  ['LARGE', kth('LARGE')],
  ['SMALL', kth('SMALL')],
];
