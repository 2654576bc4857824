/** Maximum-likelihood fits of the catalogue's integer families (counts ≥ 0). */
import betainc from '@stdlib/math-base-special-betainc';
import digamma from '@stdlib/math-base-special-digamma';
import gammainc from '@stdlib/math-base-special-gammainc';
import gammaln from '@stdlib/math-base-special-gammaln';
import trigamma from '@stdlib/math-base-special-trigamma';
import type { FittedFamily } from './continuous.js';

/** Distinct values with counts, ascending. */
export function tally(x: readonly number[]): [number, number][] {
  const m = new Map<number, number>();
  for (const v of x) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].sort((a, b) => a[0] - b[0]);
}

/** `tally` of values already sorted ascending: one run-length pass, no hashing of doubles. */
export function tallySorted(sorted: ArrayLike<number>): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < sorted.length;) {
    const v = sorted[i]!;
    let j = i + 1;
    while (j < sorted.length && sorted[j] === v) j++;
    out.push([v + 0, j - i]); // + 0: −0 and 0 are one value, written as 0
    i = j;
  }
  return out;
}

function poisson(t: readonly [number, number][], n: number, mean: number): FittedFamily | undefined {
  if (!(mean > 0)) return undefined;
  let ll = 0;
  for (const [k, c] of t) ll += c * (k * Math.log(mean) - mean - gammaln(k + 1));
  return {
    family: 'Poisson',
    params: [['lambda', mean]],
    k: 1,
    logLik: ll,
    // P(X ≤ k) = Q(k + 1, λ), the upper regularised incomplete gamma
    cdf: (k) => (k < 0 ? 0 : gammainc(mean, Math.floor(k) + 1, true, true)),
    quantile: true,
  };
}

/** NegativeBinomial (failures before the r-th success): Newton on the profile score in r. */
function negativeBinomial(
  t: readonly [number, number][],
  n: number,
  mean: number,
  variance: number,
): FittedFamily | undefined {
  if (!(variance > mean * 1.01) || !(mean > 0)) return undefined;
  let r = (mean * mean) / (variance - mean);
  for (let i = 0; i < 100; i++) {
    let s1 = 0;
    let s2 = 0;
    for (const [k, c] of t) {
      s1 += c * digamma(k + r);
      s2 += c * trigamma(k + r);
    }
    const g = s1 - n * digamma(r) + n * Math.log(r / (r + mean));
    const dg = s2 - n * trigamma(r) + n * (1 / r - 1 / (r + mean));
    const step = g / dg;
    const next = r - step;
    r = next > 0 ? next : r / 2;
    if (Math.abs(step) < 1e-10 * r) break;
  }
  const p = r / (r + mean);
  let ll = 0;
  for (const [k, c] of t)
    ll += c * (gammaln(k + r) - gammaln(r) - gammaln(k + 1) + r * Math.log(p) + k * Math.log1p(-p));
  if (!Number.isFinite(ll)) return undefined;
  return {
    family: 'NegativeBinomial',
    params: [
      ['r', r],
      ['p', p],
    ],
    k: 2,
    logLik: ll,
    cdf: (k) => (k < 0 ? 0 : betainc(p, r, Math.floor(k) + 1)),
    quantile: false,
  };
}

/** Geometric (trial count ≥ 1): p = 1 / mean. */
function geometric(t: readonly [number, number][], n: number, mean: number): FittedFamily | undefined {
  if (!(t[0]![0] >= 1) || !(mean > 1)) return undefined;
  const p = 1 / mean;
  let ll = 0;
  for (const [k, c] of t) ll += c * ((k - 1) * Math.log1p(-p) + Math.log(p));
  return {
    family: 'Geometric',
    params: [['p', p]],
    k: 1,
    logLik: ll,
    cdf: (k) => (k < 1 ? 0 : -Math.expm1(Math.floor(k) * Math.log1p(-p))),
    quantile: true,
  };
}

/** The observed frequencies themselves (an Empirical over the distinct values). */
export function frequencies(t: readonly [number, number][], n: number): FittedFamily {
  let ll = 0;
  for (const [, c] of t) ll += c * Math.log(c / n);
  const cum: [number, number][] = [];
  let acc = 0;
  for (const [k, c] of t) cum.push([k, (acc += c) / n]);
  return {
    family: 'Empirical',
    params: t.map(([k, c]) => [String(k), c / n]),
    k: t.length - 1,
    logLik: ll,
    cdf: (k) => {
      let f = 0;
      for (const [v, F] of cum) if (v <= k) f = F;
      return f;
    },
    quantile: true,
  };
}

/** Candidate integer families for non-negative counts. */
export function fitDiscrete(x: readonly number[], t: readonly [number, number][] = tally(x)): FittedFamily[] {
  const n = x.length;
  if (t[0]![0] < 0) return [];
  let s = 0;
  for (const v of x) s += v;
  const mean = s / n;
  let ss = 0;
  for (const v of x) ss += (v - mean) ** 2;
  const variance = ss / n;
  const fits = [poisson(t, n, mean), negativeBinomial(t, n, mean, variance), geometric(t, n, mean)];
  return fits.filter((f): f is FittedFamily => f !== undefined && Number.isFinite(f.logLik));
}

/** Largest gap between the empirical and the fitted CDF over the observed support. */
export function discreteKs(t: readonly [number, number][], n: number, cdf: (k: number) => number): number {
  let acc = 0;
  let d = 0;
  for (const [k, c] of t) {
    const before = cdf(k - 1);
    d = Math.max(d, Math.abs(acc / n - before));
    acc += c;
    d = Math.max(d, Math.abs(acc / n - cdf(k)));
  }
  return d;
}
