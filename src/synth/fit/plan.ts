/**
 * Per-column plans: the marginal (or label frequencies) each column gets, the guard rails applied
 * on the way (rare categories merged, identifiers and free text never copied) and which columns
 * can join the Gaussian copula.
 */
import type { TypedColumn } from './columns.js';
import type { Marginal, MarginalOptions } from './marginal.js';
import { fitMarginal } from './marginal.js';

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
  /** What was generalised, in words for the report. */
  notes: string[];
}

export interface PlanOptions extends MarginalOptions {
  /** Categories seen fewer times than this are merged into one "other" label. */
  minCategoryCount: number;
}

const BOUNDED = new Set(['Empirical', 'Uniform', 'Triangular', 'Beta', 'Categorical']);

function numericPlan(col: TypedColumn, safe: string, options: PlanOptions): ColumnPlan {
  const integer = col.kind === 'integer';
  const marginal = fitMarginal(col.values, integer, col.decimals, options);
  const plan: ColumnPlan = { col, safe, marginal, codes: col.values, inCopula: false, notes: [] };
  if (marginal.note) plan.notes.push(marginal.note);
  if (!BOUNDED.has(marginal.family)) {
    let min = Infinity;
    let max = -Infinity;
    for (const v of col.values) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
    plan.bounds = [min, max];
  }
  return plan;
}

/** Refits a numeric column with families the Copula can use (an inverse CDF). */
export function quantilePlan(plan: ColumnPlan, options: PlanOptions): void {
  const integer = plan.col.kind === 'integer';
  const m = fitMarginal(plan.col.values, integer, plan.col.decimals, { ...options, quantileOnly: true });
  plan.notes.push(`${plan.marginal!.family} has no inverse CDF for the copula: ${m.family} used instead`);
  if (m.note) plan.notes.push(m.note);
  plan.marginal = m;
}

function categoricalPlan(col: TypedColumn, safe: string, options: PlanOptions): ColumnPlan {
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
  const notes: string[] = [];
  if (rareKinds > 0) {
    // a category this rare could point at a row: its rows take one shared label instead
    const taken = new Set(kept.map(([l]) => l));
    let other = 'other';
    while (taken.has(other)) other = `(${other})`;
    kept.push([other, rare]);
    notes.push(
      `${rareKinds} categories seen fewer than ${options.minCategoryCount} times merged into "${other}"`,
    );
  }
  // numeric labels keep their numeric order (the copula sees an ordinal code), text labels
  // their frequency order
  if (kept.every(([l]) => /^[-+]?\d+(\.\d+)?$/.test(l))) kept.sort((a, b) => Number(a[0]) - Number(b[0]));
  const index = new Map(kept.map(([l], i) => [l, i]));
  const otherIndex = rareKinds > 0 ? kept.length - 1 : -1;
  const codes = col.cells.map((c) => index.get(c) ?? otherIndex);
  const total = col.cells.length;
  return {
    col,
    safe,
    labels: kept.map(([l]) => l),
    weights: kept.map(([, c]) => c / total),
    codes,
    inCopula: false,
    notes,
  };
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
    case 'identifier':
      return {
        col,
        safe,
        inCopula: false,
        notes: [
          col.values.length > 0
            ? 'identifier: generated as a running number, no sample value copied'
            : 'identifier: generated as opaque text keys, no sample value copied',
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

/** Whether a plan's column may join the copula (a full column with an inverse-CDF marginal). */
export function copulaCandidate(plan: ColumnPlan): boolean {
  return plan.col.missingRate <= IMPUTE_LIMIT && plan.codes !== undefined;
}

/**
 * A column missing at most this share of its cells joins the copula and is written complete (the
 * engine cannot blank one column of a copula row); above it, it keeps its missing cells but
 * leaves the copula.
 */
export const IMPUTE_LIMIT = 0.05;
