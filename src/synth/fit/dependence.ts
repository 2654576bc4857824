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
): Float64Array {
  const n = values.length;
  const out = new Float64Array(rowCount).fill(NaN);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const z = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++;
    const s = normalScore((i + (j - i + 1) / 2) / n);
    for (let k = i; k <= j; k++) z[order[k]!] = s;
    i = j + 1;
  }
  values.forEach((_, k) => (out[rows[k]!] = z[k]!));
  return out;
}

/** Pearson correlation of each pair of score vectors (0 when one is constant or they never meet). */
export function scoreCorrelation(scores: readonly Float64Array[]): number[][] {
  const d = scores.length;
  const r: number[][] = Array.from({ length: d }, (_, i) =>
    Array.from({ length: d }, (_, j) => (i === j ? 1 : 0)),
  );
  for (let i = 0; i < d; i++)
    for (let j = 0; j < i; j++) {
      // pairwise complete rows: a column missing a few cells still shows its dependence
      const a: number[] = [];
      const b: number[] = [];
      scores[i]!.forEach((v, k) => {
        const w = scores[j]![k]!;
        if (!Number.isNaN(v) && !Number.isNaN(w)) {
          a.push(v);
          b.push(w);
        }
      });
      const c = a.length > 2 ? sampleCorrelation(a, b) : NaN;
      r[i]![j] = r[j]![i] = Number.isFinite(c) ? c : 0;
    }
  return r;
}

/**
 * The matrix written into the model: off-diagonals rounded to 4 decimals and shrunk toward the
 * identity until the engine's own Cholesky accepts it. Returns the shrink factor used.
 */
export function copulaMatrix(r: readonly (readonly number[])[]): { matrix: number[][]; shrink: number } {
  let shrink = 1;
  for (;;) {
    const m = r.map((row, i) => row.map((v, j) => (i === j ? 1 : Math.round(v * shrink * 1e4) / 1e4)));
    if (cholesky(m) !== null || shrink < 0.01) return { matrix: m, shrink };
    shrink *= 0.95;
  }
}
