/**
 * Column typing for `fit`: what kind of column a sample's text cells describe. Pure; cells come
 * from csv-parse; missing cells are those of missing.ts (shared with compare).
 */
import { MIN_KEY_ROWS, isNumericKey, rowIndexOf } from './keys.js';
import { isMissingCell } from './missing.js';

/** How a column will be modelled. */
export type ColumnKind =
  | 'constant'
  | 'continuous'
  | 'integer'
  | 'categorical'
  | 'boolean'
  | 'date'
  | 'timestamp'
  | 'identifier'
  | 'text'
  | 'empty';

export interface TypedColumn {
  name: string;
  index: number;
  kind: ColumnKind;
  /** Non-missing cells, as text. */
  cells: string[];
  /** Row of each non-missing cell. */
  rowsOf: number[];
  rowCount: number;
  /** Numeric values of the non-missing cells (numeric kinds only). */
  values: number[];
  missingRate: number;
  /** Decimal places written in the sample (continuous only). */
  decimals: number;
  /** Whole numbers written with a decimal point (`12.0`): the output keeps that form. */
  pointZero?: boolean;
  /**
   * A continuous column that writes its whole values without a point (`2, 3.5`, as R and
   * pandas' shortest form do): the output writes them so too, not `2.0`.
   */
  plainWhole?: boolean;
  /** Distinct non-missing cell texts and their counts, most frequent first (ties by text). */
  counts: [string, number][];
}

/** The same rule the engine's FlatFile uses for numeric cells: an ordinary decimal literal. */
const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** A whole number, also as a writer of doubles prints it (`12.0`, as grind does). */
const WHOLE = /^[-+]?\d+(\.0+)?$/;
const PLAIN_WHOLE = /^[-+]?\d+$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A date and a time of day, as databases and CSV exports write them. */
export const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;
const BOOLEAN_PAIRS = [
  ['false', 'true'],
  ['no', 'yes'],
  ['n', 'y'],
  ['f', 't'],
];

export interface TypingOptions {
  /** Most distinct values a text column may have and still be categorical. */
  maxCategories: number;
}

/** Most decimal places `fit` rounds to; a column written with more keeps full precision. */
export const MAX_DECIMALS = 10;

function decimalsOf(text: string): number {
  if (/[eE]/.test(text)) return MAX_DECIMALS;
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/**
 * The median of the cells' decimal places, by counting (places above MAX_DECIMALS count as it).
 * Whole values written without a point (`18` among `12.5`, as R and pandas write the shortest
 * form) say nothing about the precision and are left out: boston's `zn` (97% whole) keeps its one
 * decimal. The median, not the largest: a few cells with binary-float noise do not set it.
 */
function precisionOf(cells: readonly string[]): number {
  const seen = new Array<number>(MAX_DECIMALS + 1).fill(0);
  let counted = 0;
  for (const c of cells) {
    if (PLAIN_WHOLE.test(c)) continue;
    seen[Math.min(MAX_DECIMALS, decimalsOf(c))]!++;
    counted++;
  }
  let acc = 0;
  const middle = Math.floor(counted / 2); // the element sorting would put there
  for (let d = 0; d <= MAX_DECIMALS; d++) if ((acc += seen[d]!) > middle) return d;
  return 0;
}

/** Whole values written without a point outnumber those written with one (`2` rather than `2.0`). */
function writesPlainWhole(cells: readonly string[]): boolean {
  let plain = 0;
  let pointed = 0;
  for (const c of cells)
    if (PLAIN_WHOLE.test(c)) plain++;
    else if (WHOLE.test(c)) pointed++;
  return plain > pointed;
}

function countCells(cells: readonly string[]): [string, number][] {
  // most frequent first, ties by text. One default (code-unit) sort of the cells and a
  // run-length pass: on 10^5 distinct numbers this costs about half of hashing them into a Map
  // and then sorting the entries with a comparator. Runs are met in text order, so each count's
  // group is already in text order.
  const sorted = cells.slice().sort();
  const byCount = new Map<number, string[]>();
  for (let i = 0; i < sorted.length;) {
    let j = i + 1;
    while (j < sorted.length && sorted[j] === sorted[i]) j++;
    const group = byCount.get(j - i);
    if (group) group.push(sorted[i]!);
    else byCount.set(j - i, [sorted[i]!]);
    i = j;
  }
  const out: [string, number][] = [];
  for (const k of [...byCount.keys()].sort((x, y) => y - x))
    for (const c of byCount.get(k)!) out.push([c, k]);
  return out;
}

function isBoolean(counts: readonly [string, number][]): boolean {
  if (counts.length !== 2) return false;
  const pair = counts.map(([c]) => c.toLowerCase()).sort();
  return BOOLEAN_PAIRS.some(([a, b]) => pair[0] === a && pair[1] === b);
}

function validDate(text: string): boolean {
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

function validTimestamp(text: string): boolean {
  const m = TIMESTAMP.exec(text);
  return m !== null && validDate(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4] ?? 0) < 60;
}

/** Most distinct values a repeating text column may have and still be categorical. */
const MAX_REPEATING = 500;
/** Values seen at least this often must cover this share of the cells (see `repeats`). */
const REPEAT_COUNT = 5;
const REPEAT_SHARE = 0.9;

/**
 * Many distinct values can still be categories (zones, product names): when the values seen at
 * least a few times cover most cells, the column is a frequency table with a thin rare tail.
 */
function repeats(counts: readonly [string, number][], n: number): boolean {
  if (counts.length > MAX_REPEATING) return false;
  const common = counts.reduce((s, [, c]) => s + (c >= REPEAT_COUNT ? c : 0), 0);
  return common >= REPEAT_SHARE * n;
}

/** Kind of a column whose every present cell is numeric. */
function numericKind(cells: readonly string[], counts: readonly [string, number][]): ColumnKind {
  // whole numbers count as integers however they are written: `3.0` has no decimals to keep
  const allInt = cells.every((c) => WHOLE.test(c));
  // distinct whole numbers: a row index (a Sequence) or a key (fresh keys, keys.ts)
  if (allInt && counts.length === cells.length && cells.length >= MIN_KEY_ROWS) {
    if (rowIndexOf(cells.map(Number)) !== undefined || isNumericKey(cells)) return 'identifier';
  }
  if (allInt && counts.length === 2 && counts.every(([c]) => c === '0' || c === '1')) return 'boolean';
  return allInt ? 'integer' : 'continuous';
}

function textKind(
  cells: readonly string[],
  counts: readonly [string, number][],
  options: TypingOptions,
): ColumnKind {
  if (isBoolean(counts)) return 'boolean';
  if (cells.every((c) => ISO_DATE.test(c) && validDate(c))) return 'date';
  if (cells.every((c) => validTimestamp(c))) return 'timestamp';
  if (counts.length === cells.length && cells.length >= 20) return 'identifier';
  if (counts.length <= options.maxCategories || repeats(counts, cells.length)) return 'categorical';
  return 'text';
}

/** Types one column from its raw cells. */
export function typeColumn(
  name: string,
  index: number,
  raw: readonly string[],
  options: TypingOptions,
): TypedColumn {
  const cells: string[] = [];
  const rowsOf: number[] = [];
  raw.forEach((r, i) => {
    const t = r.trim();
    if (isMissingCell(t)) return;
    cells.push(t);
    rowsOf.push(i);
  });
  const missingRate = raw.length === 0 ? 0 : (raw.length - cells.length) / raw.length;
  const counts = countCells(cells);
  const base = {
    name,
    index,
    cells,
    rowsOf,
    rowCount: raw.length,
    missingRate,
    counts,
    decimals: 0,
    values: [] as number[],
  };
  if (cells.length === 0) return { ...base, kind: 'empty' };
  if (counts.length === 1) return { ...base, kind: 'constant' };
  if (cells.every((c) => NUMERIC.test(c))) {
    const kind = numericKind(cells, counts);
    // the median count, as written: a few cells with binary-float noise do not set the precision
    const decimals = kind === 'continuous' ? precisionOf(cells) : 0;
    const pointZero = kind !== 'continuous' && cells.some((c) => c.includes('.'));
    const plainWhole = kind === 'continuous' && writesPlainWhole(cells);
    return {
      ...base,
      kind,
      decimals,
      values: cells.map(Number),
      ...(pointZero ? { pointZero } : {}),
      ...(plainWhole ? { plainWhole } : {}),
    };
  }
  return { ...base, kind: textKind(cells, counts, options) };
}
