/**
 * Choosing a column's marginal: candidate families ranked by an information criterion, the first
 * whose Kolmogorov–Smirnov distance passes is kept, and a quantile `Empirical` is the fallback.
 */
import kstest from '@stdlib/stats-kstest';
import type { FittedFamily } from './continuous.js';
import { fitContinuous } from './continuous.js';
import { discreteKs, fitDiscrete, frequencies, tallySorted } from './discrete.js';

export type Criterion = 'aic' | 'bic';

/** What the model will draw for one numeric column. */
export interface Marginal {
  family: string;
  params: [string, number][];
  /** Empirical only: value and weight items. */
  items?: [number, number][];
  affine?: { offset: number; width: number };
  quantile: boolean;
  /** Draws must be rounded to integers (integer columns). */
  integer: boolean;
  /** KS distance of the chosen fit against the sample, and its p-value where computed. */
  ks: number;
  pValue?: number;
  /** Candidates with their criterion value, best first (what the report shows). */
  ranking: { family: string; score: number; ks: number; accepted: boolean }[];
  /** What the fallback generalised, if it was used. */
  note?: string;
}

/** Values the KS check looks at: at most this many, taken at evenly spaced ranks. */
const KS_POINTS = 2000;

function score(f: FittedFamily, n: number, criterion: Criterion): number {
  return -2 * f.logLik + (criterion === 'aic' ? 2 : Math.log(n)) * f.k;
}

function ranksSample(sorted: readonly number[]): number[] {
  if (sorted.length <= KS_POINTS) return sorted.slice();
  const out: number[] = [];
  for (let i = 0; i < KS_POINTS; i++) out.push(sorted[Math.floor(((i + 0.5) * sorted.length) / KS_POINTS)]!);
  return out;
}

/**
 * KS distance for a sample written at a fixed precision `h`: a value v stands for the interval
 * v ± h/2, so the empirical CDF is compared with F at the interval edges.
 */
function groupedKs(t: readonly [number, number][], n: number, h: number, cdf: (x: number) => number): number {
  let acc = 0;
  let d = 0;
  for (const [v, c] of t) {
    d = Math.max(d, Math.abs(acc / n - cdf(v - h / 2)));
    acc += c;
    d = Math.max(d, Math.abs(acc / n - cdf(v + h / 2)));
  }
  return d;
}

/** Sample quantile at probability p (linear between order statistics). */
function quantileOf(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** A share of the sample at its min or max that makes an end pile (see fitMarginal). */
export const END_PILE = 0.01;

/**
 * A lattice: the sample's values sit on few of the points its precision allows (at most this
 * share of the grid between min and max) and repeat (values seen `minCategoryCount` times hold
 * LATTICE_REPEATS of the cells). Fahrenheit degrees converted to Celsius at one decimal (2.8, 3.3,
 * 3.9, …: one tenth in 5.5 used), prices in steps of 5. A family rounded to the precision spreads
 * each value's share over the unused points between them (compare calls each a spike), so the
 * Empirical, which keeps repeated values exactly, is used.
 */
export const LATTICE_OCCUPANCY = 0.5;
export const LATTICE_REPEATS = 0.9;
/**
 * At most this many distinct values make a lattice: past it the Empirical would list thousands of
 * points (a 10,000-value column made a 113 kB model, past what an MCP answer carries), and a
 * family rounded to the precision spreads so little between so many points that it is kept.
 */
export const LATTICE_MAX_VALUES = 1_000;

/** Whether the tallied values form a lattice at spacing `h` (see LATTICE_OCCUPANCY). */
export function isLattice(t: readonly [number, number][], n: number, h: number, minCount: number): boolean {
  if (t.length < 2 || t.length > LATTICE_MAX_VALUES) return false;
  const grid = Math.round((t[t.length - 1]![0] - t[0]![0]) / h) + 1;
  if (t.length > LATTICE_OCCUPANCY * grid) return false;
  let repeated = 0;
  for (const [, c] of t) if (c >= minCount) repeated += c;
  return repeated >= LATTICE_REPEATS * n;
}

/** Most quantile points an Empirical fallback lists (the model text grows with them). */
export const EMPIRICAL_MAX_POINTS = 10_000;

/**
 * The fallback: an `Empirical` over at most `points` interpolated quantiles (rounded to the
 * column's precision), so no row's exact value needs to be listed.
 */
export function empiricalQuantiles(
  sorted: readonly number[],
  points: number,
  round: (v: number) => number,
  integer: boolean,
  spike: number,
): Marginal {
  // one point per row (up to EMPIRICAL_MAX_POINTS): each lies between two neighbouring order
  // statistics, so the output keeps the sample's resolution (3,375 distinct latitudes stay
  // thousands of values, not 200 spikes) without listing a row's own value
  const k = Math.min(sorted.length, Math.max(points, EMPIRICAL_MAX_POINTS));
  const ties = new Map<number, number>();
  for (const v of sorted) ties.set(v, (ties.get(v) ?? 0) + 1);
  const weights = new Map<number, number>();
  for (let i = 0; i < k; i++) {
    const h = (sorted.length - 1) * ((i + 0.5) / k);
    // a value the sample repeats at least `spike` times is kept as it is (a price, a round
    // figure): interpolating would smear the spike; any other point is interpolated
    const at = sorted[Math.round(h)]!;
    const v = (ties.get(at) ?? 0) >= spike ? at : round(quantileOf(sorted, (i + 0.5) / k));
    weights.set(v, (weights.get(v) ?? 0) + 1);
  }
  const items = [...weights].sort((a, b) => a[0] - b[0]);
  return {
    family: 'Empirical',
    params: [],
    items,
    quantile: true,
    integer,
    ks: 0,
    ranking: [],
    note: `no family fitted: Empirical over ${k} sample quantiles`,
  };
}

/**
 * The two-sided KS statistic of sorted values against `cdf`, computed the way `@stdlib/stats-kstest`
 * does (same arithmetic, so the same number). Ranking every candidate needs only this; kstest's
 * p-value (an exact Kolmogorov matrix power that costs up to ~10^8 flops at 2000 points) is
 * computed once, for the family kept.
 */
function ksStatistic(sorted: readonly number[], cdf: (x: number) => number): number {
  const n = sorted.length;
  let hi = -Infinity;
  let lo = -Infinity;
  for (let i = 0; i < n; i++) {
    const d = cdf(sorted[i]!) - i / n;
    if (d > hi) hi = d;
    if (1 / n - d > lo) lo = 1 / n - d;
  }
  return Math.max(hi, lo);
}

function accept(
  fits: FittedFamily[],
  n: number,
  criterion: Criterion,
  ksOf: (f: FittedFamily) => { d: number; p?: () => number },
  limit: number,
  integer: boolean,
): Marginal | undefined {
  const ranked = fits.map((f) => ({ f, s: score(f, n, criterion) })).sort((a, b) => a.s - b.s);
  const ranking: Marginal['ranking'] = [];
  let chosen: Marginal | undefined;
  for (const { f, s } of ranked) {
    const { d, p } = ksOf(f);
    const ok = d <= limit;
    ranking.push({ family: f.family, score: s, ks: d, accepted: ok && chosen === undefined });
    if (ok && chosen === undefined)
      chosen = {
        family: f.family,
        params: f.params,
        ...(f.affine ? { affine: f.affine } : {}),
        quantile: f.quantile,
        integer,
        ks: d,
        ...(p !== undefined ? { pValue: p() } : {}),
        ranking,
      };
  }
  return chosen;
}

export interface MarginalOptions {
  criterion: Criterion;
  maxCategories: number;
  empiricalPoints: number;
  /** A value repeated this often is a spike the Empirical fallback keeps exactly. */
  minCategoryCount: number;
  /** Only families with an inverse CDF (the Copula needs one). */
  quantileOnly: boolean;
}

/** Fits a numeric column; `integer` columns get integer families and rounding. */
export function fitMarginal(
  values: readonly number[],
  integer: boolean,
  decimals: number,
  options: MarginalOptions,
): Marginal {
  const f10 = 10 ** decimals;
  const round = (v: number): number => Math.round(v * f10) / f10;
  const sorted = Float64Array.from(values).sort();
  const asArray = Array.from(sorted);
  const n = values.length;
  const probe = ranksSample(asArray);
  const limit = 1.63 / Math.sqrt(probe.length);
  const keep = (f: FittedFamily): boolean => !options.quantileOnly || f.quantile;
  const t = tallySorted(sorted);
  // written at a precision coarse enough to tie values: compare interval by interval
  const h = integer ? 1 : 10 ** -decimals;
  const grouped = t.length <= KS_POINTS; // with all values distinct this is the ordinary KS distance
  const continuousKs = (f: FittedFamily): { d: number; p?: () => number } => {
    if (grouped) return { d: groupedKs(t, n, h, f.cdf) };
    const pValue = (): number =>
      (kstest(probe, (x: number) => f.cdf(x), { sorted: true }) as { pValue: number }).pValue;
    return { d: ksStatistic(probe, f.cdf), p: pValue };
  };
  // a sample piled at an end (a score capped at 850, a balance of 0) keeps its pile: a fitted
  // family truncated to the range would spread it over the neighbours, the Empirical keeps it
  const pile = Math.max(options.minCategoryCount, END_PILE * n);
  if (t.length > options.maxCategories && (t[0]![1] >= pile || t[t.length - 1]![1] >= pile))
    return empiricalQuantiles(
      asArray,
      options.empiricalPoints,
      integer ? Math.round : round,
      integer,
      options.minCategoryCount,
    );
  const small = integer && t.length <= options.maxCategories; // a frequency table is among the fits
  if (!small && isLattice(t, n, h, options.minCategoryCount)) {
    const m = empiricalQuantiles(
      asArray,
      options.empiricalPoints,
      integer ? Math.round : round,
      integer,
      options.minCategoryCount,
    );
    const grid = Math.round((t[t.length - 1]![0] - t[0]![0]) / h) + 1;
    m.note = `values on a lattice (${t.length} of the ${grid} values its precision allows, repeated): Empirical keeps them`;
    return m;
  }
  if (integer) {
    const discreteFits = fitDiscrete(values, t);
    const intKs = (f: FittedFamily): { d: number } => ({ d: discreteKs(t, n, f.cdf) });
    if (t.length <= options.maxCategories) {
      const fits = [...discreteFits, frequencies(t, n)].filter(keep);
      const m = accept(fits, n, options.criterion, intKs, 1.63 / Math.sqrt(n), true);
      if (m) return m.family === 'Empirical' ? { ...m, items: t.map(([v, c]) => [v, c]), params: [] } : m;
    } else {
      // a unit-spaced density is comparable with a probability mass: one pool, one criterion
      const fits = [...discreteFits, ...fitContinuous(values, asArray)].filter(keep);
      const ks = (f: FittedFamily): { d: number; p?: () => number } =>
        discreteFits.includes(f) ? intKs(f) : continuousKs(f);
      const m = accept(fits, n, options.criterion, ks, limit, true);
      if (m) return m;
    }
    return empiricalQuantiles(asArray, options.empiricalPoints, Math.round, true, options.minCategoryCount);
  }
  const fits = fitContinuous(values, asArray).filter(keep);
  return (
    accept(fits, n, options.criterion, continuousKs, limit, false) ??
    empiricalQuantiles(asArray, options.empiricalPoints, round, false, options.minCategoryCount)
  );
}
