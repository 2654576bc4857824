/**
 * Dependence for the Gaussian copula: normal scores from mid-ranks (ties share one score, so
 * categorical codes enter through their cumulative frequencies), their Pearson correlation, and a
 * repair that keeps the matrix positive definite after rounding.
 */
import { sampleCorrelation } from 'simple-statistics';
import { cholesky } from '../components/samplers.js';
import { normalScore } from './continuous.js';

/**
 * Normal scores of codes/values: Φ⁻¹ of the mid-rank of each value's tie group, placed at their
 * rows (`rows[i]` is the row of `values[i]`); rows without a value stay NaN.
 */
export function normalScores(
  values: readonly number[],
  rows: readonly number[],
  rowCount: number,
  score: (p: number) => number = normalScore,
): Float64Array {
  const n = values.length;
  const out = new Float64Array(rowCount).fill(NaN);
  // sort the values themselves (a native typed-array sort), score each tie group once, then
  // find each row's group by binary search: no comparator sort over row indices
  const sorted = Float64Array.from(values).sort();
  const groupOf = new Float64Array(n); // distinct values, ascending
  const scoreOf = new Float64Array(n);
  let groups = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && sorted[j + 1] === sorted[i]) j++;
    groupOf[groups] = sorted[i]!;
    scoreOf[groups++] = score((i + (j - i + 1) / 2) / n);
    i = j + 1;
  }
  for (let k = 0; k < n; k++) {
    const v = values[k]!;
    let lo = 0;
    let hi = groups - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (groupOf[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    out[rows[k]!] = scoreOf[lo]!;
  }
  return out;
}

/** Mid-rank shares (ties share one): their Pearson correlation is Spearman's ρ. */
export function rankScores(
  values: readonly number[],
  rows: readonly number[],
  rowCount: number,
): Float64Array {
  return normalScores(values, rows, rowCount, (p) => p);
}

/** Pearson correlation of each pair of score vectors (0 when one is constant or they never meet). */
export function scoreCorrelation(scores: readonly Float64Array[]): number[][] {
  const d = scores.length;
  const r: number[][] = Array.from({ length: d }, (_, i) =>
    Array.from({ length: d }, (_, j) => (i === j ? 1 : 0)),
  );
  // a column with no missing row is converted once and paired as it is
  const complete = scores.map((s) => (s.some((v) => Number.isNaN(v)) ? undefined : Array.from(s)));
  for (let i = 0; i < d; i++)
    for (let j = 0; j < i; j++) {
      let a = complete[i];
      let b = complete[j];
      if (!a || !b) {
        // pairwise complete rows: a column missing a few cells still shows its dependence
        a = [];
        b = [];
        const x = scores[i]!;
        const y = scores[j]!;
        for (let k = 0; k < x.length; k++)
          if (!Number.isNaN(x[k]!) && !Number.isNaN(y[k]!)) {
            a.push(x[k]!);
            b.push(y[k]!);
          }
      }
      const c = a.length > 2 ? sampleCorrelation(a, b) : NaN;
      r[i]![j] = r[j]![i] = Number.isFinite(c) ? c : 0;
    }
  return r;
}

/**
 * The matrix written into the model: off-diagonals rounded to 4 decimals, and positive definite
 * for the engine's own Cholesky. Latent correlations inverted pair by pair need not fit together.
 * Column by column, each new row (its pairs with the columns before it) is blended toward
 * `toward` (the normal-score correlations) in steps of 2% until the leading block passes
 * Cholesky, and only if that is not enough shrunk toward 0; so one troublesome column costs its
 * own pairs, not everyone's. Returns the largest blend and the smallest shrink factor used.
 */
export function copulaMatrix(
  r: readonly (readonly number[])[],
  toward: readonly (readonly number[])[] = r,
): { matrix: number[][]; shrink: number; blend: number } {
  const d = r.length;
  const m = r.map((row) => row.map(() => 0));
  const round = (v: number): number => Math.round(v * 1e4) / 1e4;
  let blend = 0;
  let shrink = 1;
  for (let k = 0; k < d; k++) {
    m[k]![k] = 1;
    const lead = (): number[][] => m.slice(0, k + 1).map((row) => row.slice(0, k + 1));
    const setRow = (f: (j: number) => number): void => {
      for (let j = 0; j < k; j++) m[k]![j] = m[j]![k] = round(f(j));
    };
    let ok = false;
    for (let step = 0; step <= 50 && !ok; step++) {
      const t = step / 50;
      setRow((j) => (1 - t) * r[k]![j]! + t * toward[k]![j]!);
      ok = cholesky(lead()) !== null;
      if (ok) blend = Math.max(blend, t);
    }
    for (let s = 0.95; !ok && s > 0.01; s *= 0.95) {
      setRow((j) => s * toward[k]![j]!);
      ok = cholesky(lead()) !== null;
      blend = 1;
      shrink = Math.min(shrink, s);
    }
    if (!ok) setRow(() => 0);
  }
  return { matrix: m, shrink, blend };
}

/**
 * The correlation of columns `x` and `p` that makes them independent given all the others (a
 * zero partial correlation): r(x,O) · R(O,O)⁻¹ · r(O,p). A numeric column and its presence column
 * are never seen together (where x is missing it has no value), so the sample says nothing about
 * their pair; this value assumes the cells are missing at random given the other columns, and it
 * is the one that keeps the matrix consistent with every estimated pair. 0 when R(O,O) is not
 * positive definite.
 */
export function conditionalZero(r: readonly (readonly number[])[], x: number, p: number): number {
  const others = r.map((_, i) => i).filter((i) => i !== x && i !== p);
  if (others.length === 0) return 0;
  const l = cholesky(others.map((i) => others.map((j) => r[i]![j]!)));
  if (l === null) return 0;
  // solve L·Lᵀ·w = r(O,p): forward, then back substitution
  const n = others.length;
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = r[others[i]!]![p]!;
    for (let k = 0; k < i; k++) s -= l[i]![k]! * y[k]!;
    y[i] = s / l[i]![i]!;
  }
  const w = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k]![i]! * w[k]!;
    w[i] = s / l[i]![i]!;
  }
  const v = others.reduce((s, i, k) => s + r[x]![i]! * w[k]!, 0);
  return Math.max(-0.99, Math.min(0.99, v));
}
