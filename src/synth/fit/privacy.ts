/**
 * The fit report's privacy figure: how close the fitted model's output comes to the sample's own
 * rows. Two numbers over a generated table as large as the sample (the model's own seed):
 *
 * - **copies**: generated rows equal to some sample row, cell by cell (missing cells are equal to
 *   each other in any spelling of the shared vocabulary, numbers by value: `2` equals `2.0`);
 * - **nearest-neighbour distance ratio**: the median, over generated rows, of the distance to the
 *   nearest sample row, divided by the median, over sample rows, of the distance to the nearest
 *   other sample row. Numeric columns are standardized by the sample's mean and standard deviation,
 *   every other column counts 0 (same text) or 1; a missing cell is 0 from a missing one and 1 from
 *   any value. A ratio near 1 means the output sits as close to the sample as the sample's rows sit
 *   to each other; far below 1, the output hugs real rows.
 *
 * Columns the fit generates fresh by construction (identifiers, free text) are left out of both:
 * with them no row could ever be equal, which would hide copies in the other columns. The distance
 * costs rows × rows: at most NEAREST_ROWS rows of each side enter it, evenly spaced (the report
 * says how many).
 */
import { isMissingCell } from './missing.js';

/** Most rows of each side the nearest-neighbour distances read. */
export const NEAREST_ROWS = 2000;

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export interface PrivacyFigure {
  /** Generated rows (as many as the sample) and the seed they were drawn with. */
  generatedRows: number;
  seed: string;
  /** Columns compared (identifier and free-text columns are generated fresh and left out). */
  columns: string[];
  /** Generated rows equal to a sample row on every compared column, and their share. */
  copies: number;
  copyShare: number;
  /**
   * Median distance from a generated row to its nearest sample row, over the median distance
   * from a sample row to its nearest other sample row; null when the latter is 0 (half the
   * sample's rows repeat another) or no column is compared.
   */
  distanceRatio: number | null;
  generatedMedian: number;
  sampleMedian: number;
  /** Rows of each side the distances were computed on (evenly spaced when the table is larger). */
  distanceRows: { sample: number; generated: number };
}

/** How a column is compared: numbers standardized, anything else by its text. */
type ColumnRule = { numeric: true; mean: number; sd: number } | { numeric: false };

/** A cell as compared: '' for any missing spelling, numbers by value. */
function canonical(cell: string): string {
  const t = cell.trim();
  if (isMissingCell(t)) return '';
  return NUMBER.test(t) ? String(Number(t)) : t;
}

function ruleOf(cells: readonly string[]): ColumnRule {
  const values: number[] = [];
  for (const c of cells) {
    if (c === '') continue;
    if (!NUMBER.test(c)) return { numeric: false };
    values.push(Number(c));
  }
  if (values.length < 2) return { numeric: false };
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
  // a column of one value: every pair of present cells is equal, as text compares them
  return sd > 0 ? { numeric: true, mean, sd } : { numeric: false };
}

/** `count` rows of `rows`, evenly spaced (all of them when there are no more). */
function spaced<T>(rows: readonly T[], count: number): T[] {
  if (rows.length <= count) return rows.slice();
  return Array.from({ length: count }, (_, k) => rows[Math.floor((k * rows.length) / count)]!);
}

function median(values: readonly number[]): number {
  const s = Float64Array.from(values).sort();
  if (s.length === 0) return 0;
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A row as numbers (standardized values, NaN where missing) and texts, per compared column. */
interface Encoded {
  nums: Float64Array;
  texts: string[];
}

function encoder(rules: readonly ColumnRule[]): (cells: readonly string[]) => Encoded {
  return (cells) => {
    const nums = new Float64Array(rules.length);
    const texts = new Array<string>(rules.length);
    rules.forEach((r, j) => {
      const c = cells[j]!;
      texts[j] = c;
      nums[j] = r.numeric && c !== '' && NUMBER.test(c) ? (Number(c) - r.mean) / r.sd : NaN;
    });
    return { nums, texts };
  };
}

/** Squared distance: standardized difference for two numbers, else 0 (same text) or 1. */
function distance2(a: Encoded, b: Encoded, rules: readonly ColumnRule[], stop: number): number {
  let d = 0;
  for (let j = 0; j < rules.length && d < stop; j++) {
    const x = a.nums[j]!;
    const y = b.nums[j]!;
    if (rules[j]!.numeric && x === x && y === y) d += (x - y) * (x - y);
    else if (a.texts[j] !== b.texts[j]) d += 1;
  }
  return d;
}

/** Distance from each of `from` to its nearest row of `to` (skipping the same index when `self`). */
function nearest(
  from: readonly Encoded[],
  to: readonly Encoded[],
  rules: readonly ColumnRule[],
  self: boolean,
): number[] {
  return from.map((a, i) => {
    let best = Infinity;
    for (let k = 0; k < to.length && best > 0; k++) {
      if (self && k === i) continue;
      const d = distance2(a, to[k]!, rules, best);
      if (d < best) best = d;
    }
    return Math.sqrt(best);
  });
}

/**
 * The privacy figure of `generated` against `sample` (rows of CSV cells in the same column
 * order), over the columns whose index `compared` lists.
 */
export function privacyFigure(
  header: readonly string[],
  sample: readonly (readonly string[])[],
  generated: readonly (readonly string[])[],
  compared: readonly number[],
  seed: string,
): PrivacyFigure {
  const pick = (row: readonly string[]): string[] => compared.map((j) => canonical(row[j] ?? ''));
  const s = sample.map(pick);
  const g = generated.map(pick);
  const known = new Set(s.map((r) => JSON.stringify(r)));
  const copies = g.reduce((n, r) => n + (known.has(JSON.stringify(r)) ? 1 : 0), 0);
  const rules = compared.map((_, k) => ruleOf(s.map((r) => r[k]!)));
  const encode = encoder(rules);
  const sNear = spaced(s, NEAREST_ROWS).map(encode);
  const gNear = spaced(g, NEAREST_ROWS).map(encode);
  const generatedMedian = compared.length === 0 ? 0 : median(nearest(gNear, sNear, rules, false));
  const sampleMedian =
    compared.length === 0 || sNear.length < 2 ? 0 : median(nearest(sNear, sNear, rules, true));
  return {
    generatedRows: generated.length,
    seed,
    columns: compared.map((j) => header[j]!),
    copies,
    copyShare: generated.length === 0 ? 0 : copies / generated.length,
    distanceRatio: sampleMedian > 0 ? generatedMedian / sampleMedian : null,
    generatedMedian,
    sampleMedian,
    distanceRows: { sample: sNear.length, generated: gNear.length },
  };
}
