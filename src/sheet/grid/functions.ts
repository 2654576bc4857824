/**
 * The Excel functions of the cell-grid evaluator: @formulajs/formulajs's, called with ranges as
 * rows of cells, except the few it lacks or evaluates differently from Excel (each says why; the
 * criteria functions are in criteria.ts), the lazy ones (IF, IFERROR, CHOOSE: the evaluator evaluates their arguments itself) and the volatile
 * ones, which cannot be what-if checked.
 */
import * as formulajs from '@formulajs/formulajs';
import { format as formatNumber } from 'numfmt';
import { hlookup, match, vlookup, xmatch, xPosition } from './lookups.js';
import { PAIRED_FUNCTIONS } from './paired.js';
import { ROUNDING_FUNCTIONS } from './rounding.js';
import { EXTRA_GRID_FUNCTIONS } from './extras.js';
import { interestPart, loanPayment, principalPart } from './payments.js';
import { isMatrix, isXlError, xlError, type GridValue, type Scalar } from './values.js';

/** Thrown while evaluating a cell the evaluator cannot evaluate; the reason is reported. */
export class GridUnsupported extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'GridUnsupported';
  }
}

type Fn = (...args: (GridValue | undefined)[]) => unknown;

/** Functions whose value changes on every recalculation: the stored value cannot be reproduced. */
export const VOLATILE = new Set(['TODAY', 'NOW', 'RAND', 'RANDBETWEEN', 'RANDARRAY']);

/** Functions that make a reference at run time: the cells they read are not known beforehand. */
export const DYNAMIC_REFERENCE = new Set(['OFFSET', 'INDIRECT']);

/** INDEX of a single row with one position: Excel reads it as the column, formulajs gives #REF!. */
function index(...args: (GridValue | undefined)[]): unknown {
  const [m, r, c] = args;
  if (isMatrix(m) && m.length === 1 && c === undefined && typeof r === 'number') {
    return formulajs.INDEX(m, 1, r);
  }
  return formulajs.INDEX(m, r, c);
}

/** XLOOKUP (formulajs has none): the position by Excel's rule (`xPosition`), then the return range's cells. */
function xlookup(...args: (GridValue | undefined)[]): unknown {
  const [key, look, ret, notFound, mode, search] = args;
  if (!isMatrix(look) || !isMatrix(ret) || isMatrix(key)) return xlError('#VALUE!');
  const flat = look.length === 1 ? look[0]! : look.map((r) => r[0]!);
  const i = xPosition(key ?? null, flat, mode, search);
  if (i === undefined)
    throw new GridUnsupported('XLOOKUP with wildcard match or binary search is not evaluated');
  if (typeof i !== 'number') return notFound === undefined ? i : notFound;
  return look.length === 1 ? ret.map((r) => [r[i - 1] ?? null]) : [ret[i - 1] ?? []];
}

/** XMATCH (formulajs has none), by Excel's rule (`xPosition`). */
function xmatchOf(...args: (GridValue | undefined)[]): unknown {
  const [key, range, mode, search] = args;
  const i = xmatch(key, range, mode, search);
  if (i === undefined)
    throw new GridUnsupported('XMATCH with wildcard match or binary search is not evaluated');
  return i;
}

/**
 * SUBTOTAL over several ranges (formulajs reads only the first): the function its code names, over
 * all of them. The evaluator blanks the subtotal cells inside them first (Excel leaves those out)
 * and does not evaluate a range with a hidden row (which SUBTOTAL may skip).
 */
const SUBTOTAL_FUNCTIONS = [
  'AVERAGE',
  'COUNT',
  'COUNTA',
  'MAX',
  'MIN',
  'PRODUCT',
  'STDEV',
  'STDEVP',
  'SUM',
  'VAR',
  'VARP',
];
/** COUNTA as Excel counts: every cell that is not blank, "" and errors included (formulajs skips ""). */
function counta(...args: (GridValue | undefined)[]): number {
  let n = 0;
  for (const a of args) {
    if (a === undefined) continue;
    for (const v of isMatrix(a) ? a.flat() : [a]) if (v !== null) n++;
  }
  return n;
}

function subtotal(...args: (GridValue | undefined)[]): unknown {
  const [code, ...refs] = args;
  if (typeof code !== 'number') return xlError('#VALUE!');
  const name = SUBTOTAL_FUNCTIONS[(Math.trunc(code) % 100) - 1];
  // formulajs keeps STDEV and VAR under their 2010 names
  const alias: Record<string, string> = { STDEV: 'STDEV.S', STDEVP: 'STDEV.P', VAR: 'VAR.S', VARP: 'VAR.P' };
  const fn = name === 'COUNTA' ? counta : name === undefined ? undefined : library(alias[name] ?? name);
  return fn ? fn(...refs) : xlError('#VALUE!');
}

/**
 * NETWORKDAYS with the end before the start: Excel counts the same days negative; formulajs
 * subtracts the holidays on the wrong side. (Each call gets fresh arrays: formulajs turns the
 * holidays into dates in place.)
 */
function networkdays(...args: (GridValue | undefined)[]): unknown {
  const [start, end, holidays] = args;
  if (typeof start === 'number' && typeof end === 'number' && end < start) {
    const n = formulajs.NETWORKDAYS(end, start, holidays);
    return typeof n === 'number' ? -n : n;
  }
  return formulajs.NETWORKDAYS(start, end, holidays);
}

/**
 * PPMT and IPMT in the compiled model's rounding (payments.ts); a period outside 1 … nper is
 * #NUM! in Excel and LibreOffice, where formulajs goes on computing. Anything but numbers and
 * blanks goes to formulajs.
 */
const perPayment =
  (name: 'PPMT' | 'IPMT'): Fn =>
  (...args) => {
    const [, per, nper] = args;
    if (typeof per === 'number' && typeof nper === 'number' && (per < 1 || per > nper))
      return xlError('#NUM!');
    const v = [0, 1, 2, 3, 4, 5].map((i) => args[i] ?? 0);
    if (!v.every((a): a is number => typeof a === 'number'))
      return formulajs[name](...(args as Parameters<typeof formulajs.PPMT>));
    const [rate, period, periods, present, future, type] = v as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    return (name === 'PPMT' ? principalPart : interestPart)(rate, period, periods, present, future, type);
  };

/**
 * PMT with the compiled model's rounding ($xl_pmt, library.ts), which gives Excel's last bits on a
 * schedule (amortization-farheen) where formulajs's order is 2 to 45 units of the last place off
 * the payments Excel stored (the four in the corpora). A schedule's balance carries those bits 240
 * rows on, to a zero balance that is all rounding: the model's and formulajs's ended 4e-9 apart. The
 * value is still Excel's to its last bits (the stored-value check, and LibreOffice's in the tests).
 * Anything but numbers and blanks goes to formulajs.
 */
function pmt(...args: (GridValue | undefined)[]): unknown {
  const v = [0, 1, 2, 3, 4].map((i) => args[i] ?? 0);
  if (!v.every((a): a is number => typeof a === 'number'))
    return formulajs.PMT(...(args as Parameters<typeof formulajs.PMT>));
  const [rate, periods, present, future, type] = v as [number, number, number, number, number];
  return loanPayment(rate, periods, present, future, type);
}

/**
 * TEXT by numfmt, a library of Excel's number formats (formulajs's TEXT leaves date formats such
 * as `mmm` unformatted): a number, a numeric text or a blank (0) in the format; other text as it
 * is; an error passed on.
 */
function text(...args: (GridValue | undefined)[]): unknown {
  const [value, format] = args;
  if (isMatrix(value) || isMatrix(format)) throw new GridUnsupported('TEXT over a range is not evaluated');
  if (isXlError(value)) return value;
  if (isXlError(format)) return format;
  const pattern = format === undefined || format === null ? '' : String(format);
  let n: number;
  if (value === undefined || value === null) n = 0;
  else if (typeof value === 'number') n = value;
  else if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  else {
    const parsed = value.trim() === '' ? NaN : Number(value);
    if (!Number.isFinite(parsed)) return value;
    n = parsed;
  }
  try {
    return formatNumber(pattern, n);
  } catch {
    return xlError('#VALUE!');
  }
}

/**
 * ISERROR, ISERR, ISNA over the evaluator's own error values (formulajs's compare with its own
 * error objects, so `=IF(ISERROR(A2/B2),"none",A2/B2)` at B2 = 0 read FALSE and gave #DIV/0!).
 */
const isErrorOf =
  (which: (code: string) => boolean): Fn =>
  (v) =>
    isMatrix(v)
      ? v.map((r) => r.map((c) => isXlError(c) && which(c.message)))
      : isXlError(v) && which(v.message);

const OWN = new Map<string, Fn>([
  ['ISERROR', isErrorOf(() => true)],
  ['ISERR', isErrorOf((code) => code !== '#N/A')],
  ['ISNA', isErrorOf((code) => code === '#N/A')],
  ['TEXT', text],
  ['PMT', pmt],
  ['PPMT', perPayment('PPMT')],
  ['IPMT', perPayment('IPMT')],
  ['NETWORKDAYS', networkdays],
  ['SUBTOTAL', subtotal],
  ['COUNTA', counta],
  ['INDEX', index],
  ['XLOOKUP', xlookup],
  ['XMATCH', xmatchOf],
  ['MATCH', match],
  ['VLOOKUP', vlookup],
  ['HLOOKUP', hlookup],
  ...PAIRED_FUNCTIONS,
  ...ROUNDING_FUNCTIONS,
  ...EXTRA_GRID_FUNCTIONS,
]);

/** formulajs's function for an Excel name (`STDEV.S` is `STDEV.S` nested), if it has one. */
function library(name: string): Fn | undefined {
  let at: unknown = formulajs;
  for (const part of name.split('.')) {
    if (typeof at !== 'object' && typeof at !== 'function') return undefined;
    if (at === null || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return typeof at === 'function' ? (at as Fn) : undefined;
}

/** Whether the evaluator can call `name` (its arguments already evaluated). */
export function hasFunction(name: string): boolean {
  return OWN.has(name) || library(name) !== undefined;
}

/** Milliseconds of a JavaScript date → a 1900 date serial (formulajs's date functions return dates). */
const serialOf = (d: Date): number => d.getTime() / 86_400_000 + 25_569;

/** A function's result as a grid value. */
function fromResult(v: unknown): GridValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : xlError('#NUM!');
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? xlError('#VALUE!') : serialOf(v);
  if (isXlError(v)) return xlError(v.message);
  if (Array.isArray(v)) {
    const rows = v.every((r) => Array.isArray(r)) ? (v as unknown[][]) : [v];
    return rows.map((r) => r.map((c) => fromResult(c) as Scalar));
  }
  throw new GridUnsupported('a function returned a value the evaluator does not read');
}

export function callFunction(name: string, args: GridValue[]): GridValue {
  const fn = OWN.get(name) ?? library(name);
  if (!fn) throw new GridUnsupported(`the function ${name} is not evaluated`);
  try {
    return fromResult(fn(...args));
  } catch (err) {
    if (err instanceof GridUnsupported) throw err;
    // a library function that throws on an input Excel answers with an error value
    return xlError('#VALUE!');
  }
}
