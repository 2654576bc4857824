/**
 * The copula's latent correlation for a target rank correlation. A Gaussian copula with latent
 * correlation r gives continuous columns Spearman's ρ = (6/π)·asin(r/2), but a column drawn from a
 * few values (codes, counts, an Empirical's items) ties, and ties pull the output's rank
 * correlation toward 0. So for each pair we find the r whose output, through the model's own
 * marginals, has the sample's Spearman ρ: the expectation is a one-dimensional integral over the
 * first latent score (the second is conditionally normal), and ρ(r) rises with r, so bisection
 * inverts it.
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import { normalQuantile } from '../components/samplers.js';

/**
 * How a column's output ranks: `continuous` (no ties), or bins in output order with their shares.
 * A bin's rank score is its mid cumulative share, as tied values share their mid-rank.
 */
export type RankBins = 'continuous' | { shares: number[] };

/** More bins than this are merged (adjacent bins share a score); ties this rare are ignored. */
const MAX_BINS = 32;
const TIE_SHARE = 0.02;

/** Bins from shares in output order (zero shares dropped), compressed to at most MAX_BINS. */
export function rankBins(shares: readonly number[]): RankBins {
  const total = shares.reduce((s, v) => s + v, 0);
  const p = shares.filter((v) => v > 0).map((v) => v / total);
  if (p.length <= 1) return { shares: [1] };
  if (Math.max(...p) < TIE_SHARE) return 'continuous';
  if (p.length <= MAX_BINS) return { shares: p };
  // keep heavy ties as they are, merge runs of light values into bins of about 1/MAX_BINS
  const out: number[] = [];
  let run = 0;
  for (const v of p) {
    if (v >= 1 / MAX_BINS) {
      if (run > 0) out.push(run);
      out.push(v);
      run = 0;
    } else {
      run += v;
      if (run >= 1 / MAX_BINS) {
        out.push(run);
        run = 0;
      }
    }
  }
  if (run > 0) out.push(run);
  return { shares: out };
}

/** Bins of a sample's values: one per distinct value, in value order. */
export function valueBins(values: readonly number[]): RankBins {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return rankBins([...counts].sort((a, b) => a[0] - b[0]).map(([, c]) => c));
}

const STEP = 0.05;
const GRID = Array.from({ length: Math.round(12 / STEP) + 1 }, (_, i) => -6 + i * STEP);
const WEIGHT = GRID.map((z) => (Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI)) * STEP);

interface Prepared {
  bins: RankBins;
  /** Latent thresholds between bins and each bin's score (discrete only). */
  cuts: number[];
  scores: number[];
  /** The column's score at each grid point, and its mean and standard deviation there. */
  atGrid: Float64Array;
  mean: number;
  sd: number;
}

function prepare(bins: RankBins): Prepared {
  const cuts: number[] = [];
  const scores: number[] = [];
  if (bins !== 'continuous') {
    let acc = 0;
    bins.shares.forEach((s, i) => {
      scores.push(acc + s / 2);
      acc += s;
      if (i < bins.shares.length - 1) cuts.push(normalQuantile(Math.min(acc, 1 - 1e-12)));
    });
  }
  const atGrid = new Float64Array(GRID.length);
  let bin = 0;
  GRID.forEach((z, k) => {
    if (bins === 'continuous') atGrid[k] = normalCdf(z, 0, 1);
    else {
      while (bin < cuts.length && z > cuts[bin]!) bin++;
      atGrid[k] = scores[bin]!;
    }
  });
  let m = 0;
  let q = 0;
  let w = 0;
  atGrid.forEach((v, k) => {
    m += WEIGHT[k]! * v;
    q += WEIGHT[k]! * v * v;
    w += WEIGHT[k]!;
  });
  m /= w;
  return { bins, cuts, scores, atGrid, mean: m, sd: Math.sqrt(Math.max(1e-300, q / w - m * m)) };
}

/** E[score of the second column | first latent = z] for latent correlation r. */
function conditional(b: Prepared, r: number, z: number): number {
  if (b.bins === 'continuous') return normalCdf((r * z) / Math.sqrt(2 - r * r), 0, 1);
  const s = Math.sqrt(1 - r * r);
  const last = b.scores.length - 1;
  let e = b.scores[last]!;
  for (let i = 0; i < b.cuts.length; i++)
    e += (b.scores[i]! - b.scores[i + 1]!) * normalCdf((b.cuts[i]! - r * z) / s, 0, 1);
  return e;
}

/** The output's Spearman ρ for latent correlation r. */
function outputRho(a: Prepared, b: Prepared, r: number): number {
  let e = 0;
  let w = 0;
  GRID.forEach((z, k) => {
    e += WEIGHT[k]! * a.atGrid[k]! * conditional(b, r, z);
    w += WEIGHT[k]!;
  });
  return (e / w - a.mean * b.mean) / (a.sd * b.sd);
}

const LIMIT = 0.98;

/**
 * The latent correlation whose output, through marginals ranking as `a` and `b`, has Spearman's ρ
 * equal to `rho` (clamped to what the marginals can reach).
 */
export function latentCorrelation(rho: number, a: RankBins, b: RankBins): number {
  if (rho === 0) return 0;
  if (a === 'continuous' && b === 'continuous') return 2 * Math.sin((Math.PI * rho) / 6);
  const pa = prepare(a);
  const pb = prepare(b);
  if (pa.scores.length === 1 || pb.scores.length === 1) return 0;
  let lo = rho > 0 ? 0 : -LIMIT;
  let hi = rho > 0 ? LIMIT : 0;
  if (rho > 0 && outputRho(pa, pb, hi) <= rho) return hi;
  if (rho < 0 && outputRho(pa, pb, lo) >= rho) return lo;
  for (let i = 0; i < 22; i++) {
    const mid = (lo + hi) / 2;
    if (outputRho(pa, pb, mid) < rho) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Exposed for tests: the forward map. */
export function spearmanOfLatent(r: number, a: RankBins, b: RankBins): number {
  return outputRho(prepare(a), prepare(b), r);
}
