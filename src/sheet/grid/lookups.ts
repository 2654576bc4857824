/**
 * The lookup functions of the cell-grid evaluator that formulajs lacks (XLOOKUP's modes, XMATCH) or
 * evaluates otherwise than Excel: formulajs's approximate VLOOKUP/HLOOKUP/MATCH scan the whole list
 * (MATCH 1 takes the largest value not above the key wherever it lies), where Excel and LibreOffice
 * binary-search a list they assume sorted. On a sorted list both rules give the same position;
 * on keys out of order Excel documents no answer (each spreadsheet answers by the steps of its own
 * search), so the evaluator gives #N/A there: no value a model could be checked against.
 */
import * as formulajs from '@formulajs/formulajs';
import { isMatrix, xlError, type GridValue, type Matrix, type Scalar } from './values.js';
import { hasWildcards, wildcardMatch } from './wildcards.js';

/** A one-row or one-column range as a list; anything else is not a list. */
function lineOf(m: GridValue | undefined): Scalar[] | undefined {
  if (!isMatrix(m) || m.length === 0) return undefined;
  if (m.length === 1) return m[0]!;
  if (m.every((r) => r.length === 1)) return m.map((r) => r[0]!);
  return undefined;
}

/** How lookups compare: text without case; only values of the key's own type take part. */
const comparable = (v: Scalar, key: Scalar): boolean =>
  (typeof key === 'number' && typeof v === 'number') || (typeof key === 'string' && typeof v === 'string');
const norm = (v: Scalar): number | string => (typeof v === 'string' ? v.toLowerCase() : (v as number));

/**
 * Excel's approximate position (1-based) of `key` in `list`: `dir` 1, the last value not above
 * the key on an ascending list; -1, the last value not below it on a descending list. #N/A when
 * none fits, when the key is neither a number nor text, or when the list (its values of the key's
 * type) is out of that order.
 */
export function approximatePosition(key: Scalar, list: Scalar[], dir: 1 | -1): number | Error {
  if (typeof key !== 'number' && typeof key !== 'string') return xlError('#N/A');
  const at = list.map((v, i) => ({ v, i })).filter(({ v }) => comparable(v, key));
  const k = norm(key);
  for (let i = 1; i < at.length; i++) {
    const [a, b] = [norm(at[i - 1]!.v), norm(at[i]!.v)];
    if (dir > 0 ? a > b : a < b) return xlError('#N/A');
  }
  const fits = at.filter(({ v }) => (dir > 0 ? norm(v) <= k : norm(v) >= k));
  return fits.length === 0 ? xlError('#N/A') : fits[fits.length - 1]!.i + 1;
}

/**
 * The position (1-based) of an exact match of a text key holding wildcards (wildcards.ts): the
 * first text value the pattern matches, without case; numbers never match a pattern (Excel's rule;
 * LibreOffice matches a number's digits, so the tests keep numbers out of such lists).
 */
function wildcardPosition(key: string, list: Scalar[]): number | Error {
  const p = key.toLowerCase();
  const i = list.findIndex((v) => typeof v === 'string' && wildcardMatch(v.toLowerCase(), p));
  return i < 0 ? xlError('#N/A') : i + 1;
}

/**
 * MATCH: type 1 and -1 approximately (see above). Type 0 with a text key: the first text equal to
 * it without case, or matching its wildcards (formulajs builds a regex from the key, in which `.`
 * matches any character and `~` does not escape); type 0 with another key is formulajs's.
 */
export function match(...args: (GridValue | undefined)[]): unknown {
  const [key, range, type] = args;
  const mode = type === undefined || type === null ? 1 : type;
  if ((mode === 0 || mode === false) && typeof key === 'string' && key !== '') {
    const list = lineOf(range);
    if (!list) return xlError('#N/A');
    if (hasWildcards(key)) return wildcardPosition(key, list);
    const k = key.toLowerCase();
    const i = list.findIndex((v) => typeof v === 'string' && v.toLowerCase() === k);
    return i < 0 ? xlError('#N/A') : i + 1;
  }
  if (mode === 0 || mode === false) return formulajs.MATCH(key, range, 0);
  const list = lineOf(range);
  if (!list || isMatrix(key) || typeof mode !== 'number') return xlError('#N/A');
  return approximatePosition(key ?? null, list, mode > 0 ? 1 : -1);
}

/**
 * VLOOKUP / HLOOKUP: exact match is formulajs's, but for a text key holding wildcards (formulajs
 * compares it as it is); approximate match by `approximatePosition`.
 */
function tableLookup(across: boolean, args: (GridValue | undefined)[]): unknown {
  const [key, table, n, mode] = args;
  const exact = mode === false || mode === 0;
  if (exact && !(typeof key === 'string' && hasWildcards(key))) {
    return across ? formulajs.HLOOKUP(key, table, n, false) : formulajs.VLOOKUP(key, table, n, false);
  }
  if (!isMatrix(table) || isMatrix(key) || typeof n !== 'number') return xlError('#VALUE!');
  const lines: Matrix = across ? table : table[0]!.map((_, c) => table.map((r) => r[c] ?? null));
  const at = Math.trunc(n);
  if (at < 1) return xlError('#VALUE!');
  if (at > lines.length) return xlError('#REF!');
  const p = exact
    ? wildcardPosition(key as string, lines[0]!)
    : approximatePosition(key ?? null, lines[0]!, 1);
  return typeof p === 'number' ? (lines[at - 1]![p - 1] ?? null) : p;
}
export const vlookup = (...args: (GridValue | undefined)[]): unknown => tableLookup(false, args);
export const hlookup = (...args: (GridValue | undefined)[]): unknown => tableLookup(true, args);

/**
 * XMATCH's position (formulajs has no XLOOKUP nor XMATCH), Excel's documented rule: match mode 0
 * exact, -1 exact or the next smaller, 1 exact or the next larger, over a list in any order (a
 * linear search); search mode 1 the first such position, -1 the last. Wildcard match (2) and the
 * binary searches (±2) are not evaluated: undefined is returned for them.
 */
export function xPosition(
  key: Scalar,
  list: Scalar[],
  mode: GridValue | undefined,
  search: GridValue | undefined,
): number | Error | undefined {
  const m = mode === undefined || mode === null ? 0 : mode;
  const s = search === undefined || search === null ? 1 : search;
  if ((m !== 0 && m !== 1 && m !== -1) || (s !== 1 && s !== -1)) return undefined;
  if (m !== 0 && typeof key !== 'number' && typeof key !== 'string') return xlError('#N/A');
  const k = typeof key === 'string' ? key.toLowerCase() : key;
  const same = (v: Scalar): boolean => (typeof v === 'string' ? v.toLowerCase() : v) === k;
  const fits = list
    .map((v, i) => ({ v, i }))
    .filter(({ v }) =>
      m === 0 ? same(v) : comparable(v, key) && (m < 0 ? norm(v) <= norm(key) : norm(v) >= norm(key)),
    );
  if (fits.length === 0) return xlError('#N/A');
  const best = fits.reduce((b, f) =>
    m < 0 ? (norm(f.v) > norm(b.v) ? f : b) : norm(f.v) < norm(b.v) ? f : b,
  );
  const hits = fits.filter((f) => norm(f.v) === norm(best.v));
  return (s < 0 ? hits[hits.length - 1]! : hits[0]!).i + 1;
}

/** XMATCH(key, list, match mode, search mode); `undefined` for a mode not evaluated. */
export function xmatch(
  key: GridValue | undefined,
  range: GridValue | undefined,
  mode?: GridValue,
  search?: GridValue,
): number | Error | undefined {
  const list = lineOf(range);
  if (!list || isMatrix(key)) return xlError('#VALUE!');
  return xPosition(key ?? null, list, mode, search);
}
