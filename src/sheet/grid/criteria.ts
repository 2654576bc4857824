/**
 * The criteria functions of the cell-grid evaluator (SUMIF, COUNTIFS, MAXIFS …), written here
 * rather than taken from @formulajs/formulajs: formulajs matches text with case and without
 * wildcards, sums text and reads TRUE/FALSE as 1/0, where Excel ignores case, reads `*`, `?` and
 * `~` (wildcards.ts), and sums numbers only. Written from Excel's documented rules, independently of the
 * compiler's criteria (criteria-library.ts): an operator (`=`, `<>`, `<`, `<=`, `>`, `>=`) then an
 * operand; a numeric operand compares numbers and text that reads as a number; `TRUE`/`FALSE`
 * match booleans; other text matches text without case, with wildcards; `""` matches blank cells
 * and empty text, `"="` blank cells only, `"<>"` any non-blank cell; a blank criterion is 0.
 */
import type { Formula } from '../formula.js';
import { GridUnsupported } from './functions.js';
import type { Area } from './tables.js';
import { isMatrix, isXlError, xlError, type GridValue, type Scalar } from './values.js';
import { wildcardMatch } from './wildcards.js';

interface Criterion {
  op: '=' | '<>' | '<' | '<=' | '>' | '>=';
  /** An operator was written (`"="` differs from `""`). */
  written: boolean;
  operand: string;
  number?: number;
  boolean?: boolean;
  /** Lower-case text, and whether it holds wildcards (for `=` and `<>` only). */
  text: string;
  wildcard: boolean;
}

/** Text that reads as a number (` 4`, `1e1`, `15%`), or undefined. */
function numberOf(s: string): number | undefined {
  const t = s.trim();
  if (t === '') return undefined;
  const pct = t.endsWith('%');
  const body = pct ? t.slice(0, -1) : t;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(body)) return undefined;
  const n = Number(body);
  if (!Number.isFinite(n)) return undefined;
  return pct ? n / 100 : n;
}

function parseCriterion(c: Scalar): Criterion | Error {
  if (isXlError(c)) return c;
  if (c === null || typeof c === 'number') {
    const n = c ?? 0;
    return { op: '=', written: false, operand: String(n), number: n, text: '', wildcard: false };
  }
  if (typeof c === 'boolean') {
    return { op: '=', written: false, operand: '', boolean: c, text: '', wildcard: false };
  }
  const m = /^(<=|>=|<>|<|>|=)?([\s\S]*)$/.exec(c)!;
  const op = (m[1] ?? '=') as Criterion['op'];
  const operand = m[2]!;
  const upper = operand.toUpperCase();
  const equality = op === '=' || op === '<>';
  return {
    op,
    written: m[1] !== undefined,
    operand,
    number: numberOf(operand),
    boolean: upper === 'TRUE' ? true : upper === 'FALSE' ? false : undefined,
    text: operand.toLowerCase(),
    wildcard: equality && /[*?~]/.test(operand),
  };
}

function meets(v: Scalar, k: Criterion): boolean {
  if (isXlError(v)) return false;
  const blank = v === null;
  const num =
    typeof v === 'number' ? v : typeof v === 'string' && k.number !== undefined ? numberOf(v) : undefined;
  if (k.op === '=' || k.op === '<>') {
    let hit: boolean;
    if (k.operand === '') hit = k.written ? blank : blank || v === '';
    else if (k.number !== undefined) hit = num !== undefined && num === k.number;
    else if (k.boolean !== undefined) hit = v === k.boolean;
    else if (typeof v !== 'string') hit = false;
    else hit = k.wildcard ? wildcardMatch(v.toLowerCase(), k.text) : v.toLowerCase() === k.text;
    return k.op === '=' ? hit : !hit;
  }
  if (k.operand === '') return false;
  const order = (a: number | string, b: number | string): boolean =>
    k.op === '<' ? a < b : k.op === '<=' ? a <= b : k.op === '>' ? a > b : a >= b;
  if (k.number !== undefined) return num !== undefined && order(num, k.number);
  return typeof v === 'string' && order(v.toLowerCase(), k.text);
}

/** A block's values row by row (a loop: Array.prototype.flat was most of a SUMIFS's time). */
function cells(m: GridValue): Scalar[] {
  if (!isMatrix(m)) return [m];
  if (m.length === 1) return m[0]!;
  const width = m[0]?.length ?? 0;
  const out = new Array<Scalar>(m.length * width);
  let k = 0;
  for (const row of m) for (let j = 0; j < row.length; j++) out[k++] = row[j]!;
  out.length = k;
  return out;
}
const shape = (m: GridValue): string => (isMatrix(m) ? `${m.length}x${m[0]?.length ?? 0}` : '1x1');

function criterionOf(name: string, v: GridValue): Criterion | Error {
  if (isMatrix(v)) {
    if (v.length === 1 && v[0]!.length === 1) return parseCriterion(v[0]![0]!);
    throw new GridUnsupported(`${name} with a range as its criterion is not evaluated`);
  }
  return parseCriterion(v);
}

/** The positions meeting every (range, criterion) pair, or an error (ranges of unlike shapes). */
function matching(name: string, pairs: [GridValue, GridValue][]): boolean[] | Error {
  const first = pairs[0]![0];
  const n = cells(first).length;
  const hits = new Array<boolean>(n).fill(true);
  for (const [range, crit] of pairs) {
    if (shape(range) !== shape(first)) return xlError('#VALUE!');
    const k = criterionOf(name, crit);
    if (isXlError(k)) return k;
    const vs = cells(range);
    for (let i = 0; i < vs.length; i++) if (hits[i] && !meets(vs[i]!, k)) hits[i] = false;
  }
  return hits;
}

/** The numbers of `values` at the matching positions; an error there is the result. */
function picked(values: GridValue, hits: boolean[]): number[] | Error {
  const out: number[] = [];
  const vs = cells(values);
  for (let i = 0; i < hits.length; i++) {
    if (!hits[i]) continue;
    const v = vs[i] ?? null;
    if (isXlError(v)) return v;
    if (typeof v === 'number') out.push(v);
  }
  return out;
}

const pairsOf = (args: GridValue[], from: number): [GridValue, GridValue][] => {
  const out: [GridValue, GridValue][] = [];
  for (let i = from; i + 1 < args.length; i += 2) out.push([args[i]!, args[i + 1]!]);
  return out;
};

function aggregate(kind: string, values: number[]): Scalar {
  switch (kind) {
    case 'SUM':
      return values.reduce((a, b) => a + b, 0);
    case 'AVERAGE':
      return values.length === 0 ? xlError('#DIV/0!') : values.reduce((a, b) => a + b, 0) / values.length;
    case 'MAX':
      return values.length === 0 ? 0 : values.reduce((a, b) => (b > a ? b : a));
    default:
      return values.length === 0 ? 0 : values.reduce((a, b) => (b < a ? b : a));
  }
}

export const CRITERIA_FUNCTIONS = new Set([
  'COUNTIF',
  'COUNTIFS',
  'SUMIF',
  'AVERAGEIF',
  'SUMIFS',
  'AVERAGEIFS',
  'MAXIFS',
  'MINIFS',
]);

/**
 * A criteria function over evaluated arguments. SUMIF/AVERAGEIF's third argument must already be
 * the criteria range's size (the evaluator resizes the reference, as Excel does).
 */
export function callCriteria(name: string, args: GridValue[]): Scalar {
  if (name === 'COUNTIF' || name === 'COUNTIFS') {
    if (args.length < 2 || args.length % 2 !== 0) return xlError('#VALUE!');
    const hits = matching(name, pairsOf(args, 0));
    return isXlError(hits) ? hits : hits.filter(Boolean).length;
  }
  if (name === 'SUMIF' || name === 'AVERAGEIF') {
    if (args.length < 2 || args.length > 3) return xlError('#VALUE!');
    const hits = matching(name, [[args[0]!, args[1]!]]);
    if (isXlError(hits)) return hits;
    const values = picked(args.length === 3 && args[2] !== null ? args[2]! : args[0]!, hits);
    return isXlError(values) ? values : aggregate(name === 'SUMIF' ? 'SUM' : 'AVERAGE', values);
  }
  // SUMIFS, AVERAGEIFS, MAXIFS, MINIFS: the values first, then (range, criterion) pairs
  if (args.length < 3 || args.length % 2 === 0) return xlError('#VALUE!');
  if (shape(args[0]!) !== shape(args[1]!)) return xlError('#VALUE!');
  const hits = matching(name, pairsOf(args, 1));
  if (isXlError(hits)) return hits;
  const values = picked(args[0]!, hits);
  return isXlError(values) ? values : aggregate(name.slice(0, -3), values);
}

/**
 * SUMIF/AVERAGEIF's sum range as Excel reads it: from its top-left cell, the criteria range's size
 * (`=SUMIF(B2:B5,">1",C4)` sums C4:C7); undefined when the function has none.
 */
export function sizedSumArea(
  f: Formula & { kind: 'call' },
  blockOf: (a: Formula) => Area | undefined,
): Area | undefined {
  const [range, , sum] = f.args;
  if ((f.name !== 'SUMIF' && f.name !== 'AVERAGEIF') || !range || !sum) return undefined;
  const c = blockOf(range);
  const s = blockOf(sum);
  if (!c || !s) return undefined;
  return { ...s, bottom: s.top + c.bottom - c.top, right: s.left + c.right - c.left };
}
