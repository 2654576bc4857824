/**
 * Per-column plans: the marginal (or label frequencies) each column gets, the guard rails applied
 * on the way (rare categories merged, identifiers and free text never copied) and which columns
 * can join the Gaussian copula.
 */
import type { TypedColumn } from './columns.js';
import { TIMESTAMP } from './columns.js';
import type { Marginal, MarginalOptions } from './marginal.js';
import { rowIndexOf } from './keys.js';
import { fitMarginal } from './marginal.js';

/** How a derived column is looked up from its source(s) (derived.ts). */
export interface Derivation {
  source: ColumnPlan;
  /**
   * A second source: the key is then `source × radix + second`, computed into a spare column
   * (both are whole numbers in the output, the second in 0 … radix − 1).
   */
  second?: { plan: ColumnPlan; radix: number };
  /** The source's value as the model's row holds it (a code, an integer, or '' when blank). */
  table: Map<string, string>;
  /** What keys outside the table give (see fallbackOf). */
  fallback: string;
}

/** A calendar cell of a date column: a month (1–12), an ISO weekday (1 = Monday), or both. */
export interface CalendarCell {
  month?: number;
  weekday?: number;
}

/**
 * The calendar column of a date column (season.ts): its month, weekday or both, as a plan the
 * copula takes (not an output column).
 */
export interface CalendarPlanInfo {
  parts: 'month' | 'weekday' | 'month and weekday';
  /** The cells in code order. */
  cells: CalendarCell[];
  /** The years of each cell's rows, as `year: count`, in code order. */
  years: Map<number, number>[];
  /** The column whose cell means set the order, and the share of its variance they explain (η²). */
  by: string;
  share: number;
}

export interface ColumnPlan {
  col: TypedColumn;
  /** Base node name for this column. */
  safe: string;
  marginal?: Marginal;
  /** Categorical and boolean: labels in code order and their weights. */
  labels?: string[];
  weights?: number[];
  /** Codes (categorical) or values (numeric) of every row, for the dependence estimate. */
  codes?: number[];
  /** [min, max] the output is kept inside (numeric columns whose family is unbounded). */
  bounds?: [number, number];
  inCopula: boolean;
  /** A numeric column's presence column (see presencePlan), and the column a presence plan is for. */
  presence?: ColumnPlan;
  presenceOf?: ColumnPlan;
  /** A column generated from another through a lookup table (see derived.ts). */
  derived?: Derivation;
  /** A date column's calendar cell in the copula (season.ts), and the date column such a plan is for. */
  calendarPlan?: ColumnPlan;
  calendarOf?: ColumnPlan;
  calendar?: CalendarPlanInfo;
  /**
   * A column drawn as its calendar cell's mean plus a residual (season.ts): the calendar plan whose
   * code picks the mean, and the means in code order.
   */
  seasonal?: { calendar: ColumnPlan; means: number[] };
  /** What was generalised, in words for the report. */
  notes: string[];
}

export interface PlanOptions extends MarginalOptions {
  /** Categories seen fewer times than this are merged into one "other" label. */
  minCategoryCount: number;
}

/**
 * Every numeric column's draws stay inside the sample's [min, max]: a `Truncate` (redraw, never
 * clamp, which would pile spikes at the ends) for every family that can leave it. An Empirical
 * (quantiles or frequencies) never does; Uniform, Triangular and Beta are fitted on a range widened
 * by one spacing, so they get the bounds too.
 */
function setBounds(plan: ColumnPlan): void {
  if (plan.marginal!.family === 'Empirical') {
    plan.bounds = undefined;
    return;
  }
  let min = Infinity;
  let max = -Infinity;
  for (const v of plan.col.values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  plan.bounds = [min, max];
}

function numericPlan(col: TypedColumn, safe: string, options: PlanOptions): ColumnPlan {
  const integer = col.kind === 'integer';
  const marginal = fitMarginal(col.values, integer, col.decimals, options);
  const plan: ColumnPlan = { col, safe, marginal, codes: col.values, inCopula: false, notes: [] };
  if (marginal.note) plan.notes.push(marginal.note);
  setBounds(plan);
  return plan;
}

/** Refits a numeric column with families the Copula can use (an inverse CDF). */
export function quantilePlan(plan: ColumnPlan, options: PlanOptions): void {
  const integer = plan.col.kind === 'integer';
  const m = fitMarginal(plan.col.values, integer, plan.col.decimals, { ...options, quantileOnly: true });
  plan.notes.push(`${plan.marginal!.family} has no inverse CDF for the copula: ${m.family} used instead`);
  if (m.note) plan.notes.push(m.note);
  plan.marginal = m;
  // the refit family may be unbounded where the first was not (Beta → Normal)
  setBounds(plan);
}

/**
 * Missing cells of a categorical column become one more category, the empty label, when there
 * are enough of them: a missing value is then just a value, and the column can join the copula.
 */
function withMissingCategory(col: TypedColumn, minCount: number): TypedColumn {
  const missing = col.rowCount - col.cells.length;
  if (missing < minCount) return col;
  const cells = new Array<string>(col.rowCount).fill('');
  col.rowsOf.forEach((row, k) => (cells[row] = col.cells[k]!));
  const counts: [string, number][] = [...col.counts, ['', missing]];
  counts.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { ...col, cells, rowsOf: cells.map((_, i) => i), missingRate: 0, counts };
}

/**
 * Rare categories whose combined share is at most this are left out and their share spread over
 * the others (an "other" label would be a value the sample never had); above it they share one
 * "other" label.
 */
export const SPREAD_LIMIT = 0.1;

const NUMERIC_LABEL = /^[-+]?\d+(\.\d+)?$/;

function categoricalPlan(
  typed: TypedColumn,
  safe: string,
  options: PlanOptions,
  ordered = false,
): ColumnPlan {
  const col = withMissingCategory(typed, options.minCategoryCount);
  const notes: string[] = [];
  if (col !== typed)
    notes.push(`${(typed.missingRate * 100).toFixed(1)}% missing cells kept as an empty category`);
  const kept: [string, number][] = [];
  let rare = 0;
  let rareKinds = 0;
  for (const [label, count] of col.counts) {
    if (count >= options.minCategoryCount) kept.push([label, count]);
    else {
      rare += count;
      rareKinds++;
    }
  }
  const total = col.cells.length;
  const other = rareKinds > 0 && rare / total > SPREAD_LIMIT;
  if (other) {
    // a category this rare could point at a row: its rows take one shared label instead
    const taken = new Set(kept.map(([l]) => l));
    let label = 'other';
    while (taken.has(label)) label = `(${label})`;
    kept.push([label, rare]);
    notes.push(
      `${rareKinds} categories seen fewer than ${options.minCategoryCount} times merged into "${label}"`,
    );
  } else if (rareKinds > 0)
    notes.push(
      `${rareKinds} categories seen fewer than ${options.minCategoryCount} times (${((rare / total) * 100).toFixed(1)}% of cells) left out, their share spread over the others`,
    );
  // numeric labels keep their numeric order (the copula sees an ordinal code; an empty label
  // first), text labels their frequency order
  if (ordered) kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  else if (kept.every(([l]) => l === '' || NUMERIC_LABEL.test(l)) && kept.some(([l]) => l !== ''))
    kept.sort((a, b) => (a[0] === '' ? -1 : b[0] === '' ? 1 : Number(a[0]) - Number(b[0])));
  const index = new Map(kept.map(([l], i) => [l, i]));
  const otherIndex = other ? kept.length - 1 : -1;
  // rows of a left-out category keep no code (the dependence estimate skips them)
  const codes = col.cells.map((c) => index.get(c) ?? otherIndex);
  const keptTotal = kept.reduce((s, [, c]) => s + c, 0);
  return {
    col,
    safe,
    labels: kept.map(([l]) => l),
    weights: kept.map(([, c]) => c / keptTotal),
    codes,
    inCopula: false,
    notes,
  };
}

/** Timestamp buckets, finest first: how many leading characters of `yyyy-MM-dd HH:mm:ss` stay. */
const BUCKETS: [string, number][] = [
  ['minute', 16],
  ['hour', 13],
  ['day', 10],
  ['month', 7],
  ['year', 4],
];

/**
 * Timestamps are generalised to the finest bucket (minute, hour, day…) in which buckets seen at
 * least `minCategoryCount` times hold 90% of the cells, then drawn as ordered categories: each
 * output value is a bucket's start, written in the sample's shape, never a sample timestamp.
 */
function timestampPlan(col: TypedColumn, safe: string, options: PlanOptions): ColumnPlan {
  const sep = TIMESTAMP.exec(col.cells[0]!)![0].charAt(10);
  const seconds = col.cells[0]!.length > 16;
  const full = `0000-01-01${sep}00:00${seconds ? ':00' : ''}`;
  let chosen = BUCKETS[BUCKETS.length - 1]!;
  let buckets: string[] = [];
  for (const b of BUCKETS) {
    buckets = col.cells.map((c) => c.slice(0, b[1]) + full.slice(b[1]));
    const counts = new Map<string, number>();
    for (const c of buckets) counts.set(c, (counts.get(c) ?? 0) + 1);
    let common = 0;
    for (const c of counts.values()) if (c >= options.minCategoryCount) common += c;
    chosen = b;
    if (common >= 0.9 * buckets.length) break;
  }
  const counts = new Map<string, number>();
  for (const c of buckets) counts.set(c, (counts.get(c) ?? 0) + 1);
  const bucketed: TypedColumn = { ...col, cells: buckets, counts: [...counts].sort((a, b) => b[1] - a[1]) };
  const plan = categoricalPlan(bucketed, safe, options, true);
  plan.notes.unshift(`timestamps generalised to the ${chosen[0]} (each output value is a bucket's start)`);
  return plan;
}

/** The plan of one typed column. */
export function planColumn(col: TypedColumn, safe: string, options: PlanOptions): ColumnPlan {
  switch (col.kind) {
    case 'continuous':
    case 'integer':
      return numericPlan(col, safe, options);
    case 'categorical':
    case 'boolean':
      return categoricalPlan(col, safe, options);
    case 'timestamp':
      return timestampPlan(col, safe, options);
    case 'identifier':
      return {
        col,
        safe,
        inCopula: false,
        notes: [
          col.values.length === 0
            ? 'identifier: generated as opaque text keys, no sample value copied'
            : rowIndexOf(col.values)
              ? 'row index: generated as the same running number'
              : 'identifier: fresh keys of the same width outside the sample range, none equal to a sample value',
        ],
      };
    case 'text':
      return {
        col,
        safe,
        inCopula: false,
        notes: [
          `free text (${col.counts.length} distinct values): replaced by a placeholder, nothing copied`,
        ],
      };
    case 'date':
      return {
        col,
        safe,
        inCopula: false,
        notes: ['dates: the year follows the sample, the day within it is uniform'],
      };
    default:
      return { col, safe, inCopula: false, notes: [] };
  }
}

/**
 * Whether a plan's column may join the copula (a column with codes or values for the dependence
 * estimate). A numeric column with a presence column keeps its missing cells inside the copula;
 * any other column missing more than IMPUTE_LIMIT of its cells stays out with its missing rate.
 */
export function copulaCandidate(plan: ColumnPlan): boolean {
  if (plan.derived) return false;
  return plan.codes !== undefined && (plan.presence !== undefined || plan.col.missingRate <= IMPUTE_LIMIT);
}

/**
 * A column missing at most this share of its cells, too few to estimate how missingness depends
 * on the other columns, joins the copula and is written complete; above it, it keeps its missing
 * cells but leaves the copula. Categorical columns with enough missing cells have an empty category
 * and numeric ones a presence column instead.
 */
export const IMPUTE_LIMIT = 0.05;

/**
 * The presence column of a numeric column with missing cells (the fit asks for at least 5): 0 where the
 * sample's cell is missing, 1 where it is not. It joins the copula as a two-valued column (so
 * missingness keeps its rank correlations with the other columns) and the model blanks the numeric
 * column where it drew 0 (the `Missing` filter). It is not an output column.
 */
export function presencePlan(owner: ColumnPlan, safe: string): ColumnPlan {
  const col = owner.col;
  const missing = col.rowCount - col.cells.length;
  const codes = new Array<number>(col.rowCount).fill(0);
  for (const row of col.rowsOf) codes[row] = 1;
  const rows = codes.map((_, i) => i);
  const plan: ColumnPlan = {
    col: {
      name: `${col.name} (present)`,
      index: col.index,
      kind: 'boolean',
      cells: codes.map(String),
      rowsOf: rows,
      rowCount: col.rowCount,
      values: [],
      missingRate: 0,
      decimals: 0,
      counts: [
        ['0', missing],
        ['1', col.cells.length],
      ],
    },
    safe,
    labels: ['0', '1'],
    weights: [missing / col.rowCount, col.cells.length / col.rowCount],
    codes,
    inCopula: false,
    presenceOf: owner,
    notes: [],
  };
  owner.presence = plan;
  return plan;
}
