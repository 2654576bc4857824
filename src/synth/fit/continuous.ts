/**
 * Maximum-likelihood fits of the catalogue's continuous families. Special functions come from
 * @stdlib (see docs/fit.md for why); Gamma, Weibull and Beta shapes are solved by Newton steps on
 * the profile score equations, which converge in a handful of iterations from moment estimates.
 */
import betainc from '@stdlib/math-base-special-betainc';
import digamma from '@stdlib/math-base-special-digamma';
import gammainc from '@stdlib/math-base-special-gammainc';
import gammaln from '@stdlib/math-base-special-gammaln';
import trigamma from '@stdlib/math-base-special-trigamma';
import { normalQuantile } from '../components/samplers.js';

/** One fitted family: parameters as the catalogue names them, log-likelihood and CDF. */
export interface FittedFamily {
  family: string;
  /** Catalogue parameter name → value, in catalogue order. */
  params: [string, number][];
  /** Free parameters counted by AIC/BIC. */
  k: number;
  logLik: number;
  cdf: (x: number) => number;
  /** Whether the engine can use this family as a Copula marginal (it has an inverse CDF). */
  quantile: boolean;
  /** Beta on a scaled range: the affine map from (0,1) to the column. */
  affine?: { offset: number; width: number };
}

interface Moments {
  n: number;
  mean: number;
  variance: number;
  min: number;
  max: number;
  meanLog: number;
}

export function moments(x: readonly number[]): Moments {
  const n = x.length;
  let s = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of x) {
    s += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = s / n;
  let ss = 0;
  let sl = 0;
  for (const v of x) {
    ss += (v - mean) ** 2;
    sl += v > 0 ? Math.log(v) : NaN;
  }
  return { n, mean, variance: ss / n, min, max, meanLog: sl / n };
}

/** Standard normal CDF through the regularised incomplete gamma: Φ(z) = ½(1 ± P(½, z²/2)). */
export function phi(z: number): number {
  const p = 0.5 * gammainc((z * z) / 2, 0.5);
  return z >= 0 ? 0.5 + p : 0.5 - p;
}

const LOG_2PI = Math.log(2 * Math.PI);

function normal(x: readonly number[], m: Moments): FittedFamily | undefined {
  const sigma = Math.sqrt(m.variance);
  if (!(sigma > 0)) return undefined;
  const logLik = -0.5 * m.n * (LOG_2PI + 2 * Math.log(sigma) + 1);
  return {
    family: 'Normal',
    params: [
      ['mean', m.mean],
      ['sigma', sigma],
    ],
    k: 2,
    logLik,
    cdf: (v) => phi((v - m.mean) / sigma),
    quantile: true,
  };
}

function lognormal(x: readonly number[], m: Moments): FittedFamily | undefined {
  if (!(m.min > 0)) return undefined;
  let ss = 0;
  for (const v of x) ss += (Math.log(v) - m.meanLog) ** 2;
  const sigma = Math.sqrt(ss / m.n);
  if (!(sigma > 0)) return undefined;
  const logLik = -0.5 * m.n * (LOG_2PI + 2 * Math.log(sigma) + 1) - m.n * m.meanLog;
  return {
    family: 'Lognormal',
    params: [
      ['mu', m.meanLog],
      ['sigma', sigma],
    ],
    k: 2,
    logLik,
    cdf: (v) => (v <= 0 ? 0 : phi((Math.log(v) - m.meanLog) / sigma)),
    quantile: true,
  };
}

function exponential(x: readonly number[], m: Moments): FittedFamily | undefined {
  if (!(m.min >= 0) || !(m.mean > 0)) return undefined;
  const lambda = 1 / m.mean;
  return {
    family: 'Exponential',
    params: [['lambda', lambda]],
    k: 1,
    logLik: m.n * (Math.log(lambda) - 1),
    cdf: (v) => (v <= 0 ? 0 : -Math.expm1(-lambda * v)),
    quantile: true,
  };
}

/** Gamma shape: Newton on log k − ψ(k) = log(mean) − mean(log x). */
function gammaFit(x: readonly number[], m: Moments): FittedFamily | undefined {
  if (!(m.min > 0)) return undefined;
  const s = Math.log(m.mean) - m.meanLog;
  if (!(s > 0)) return undefined;
  // Minka's closed-form start, then Newton
  let k = (3 - s + Math.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s);
  for (let i = 0; i < 50; i++) {
    const f = Math.log(k) - digamma(k) - s;
    const step = f / (1 / k - trigamma(k));
    const next = k - step;
    k = next > 0 ? next : k / 2;
    if (Math.abs(step) < 1e-12 * k) break;
  }
  const scale = m.mean / k;
  const logLik = m.n * ((k - 1) * m.meanLog - m.mean / scale - gammaln(k) - k * Math.log(scale));
  return {
    family: 'Gamma',
    params: [
      ['shape', k],
      ['scale', scale],
    ],
    k: 2,
    logLik,
    cdf: (v) => (v <= 0 ? 0 : gammainc(v / scale, k)),
    quantile: false,
  };
}

/** Weibull shape: Newton on 1/k + mean(log x) − Σ xᵏ log x / Σ xᵏ = 0. */
function weibull(x: readonly number[], m: Moments): FittedFamily | undefined {
  if (!(m.min > 0)) return undefined;
  const logs = x.map((v) => Math.log(v / m.max));
  const meanLog = m.meanLog - Math.log(m.max); // work on x / max to keep xᵏ in range
  let k = 1.2 / Math.sqrt(variance(logs));
  for (let i = 0; i < 100; i++) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (const l of logs) {
      const p = Math.exp(k * l);
      s0 += p;
      s1 += p * l;
      s2 += p * l * l;
    }
    const g = 1 / k + meanLog - s1 / s0;
    const dg = -1 / (k * k) - (s2 / s0 - (s1 / s0) ** 2);
    const step = g / dg;
    const next = k - step;
    k = next > 0 ? next : k / 2;
    if (Math.abs(step) < 1e-10 * k) break;
  }
  let s0 = 0;
  for (const l of logs) s0 += Math.exp(k * l);
  const scale = m.max * (s0 / m.n) ** (1 / k);
  const logLik = m.n * (Math.log(k) - k * Math.log(scale) + (k - 1) * m.meanLog - 1);
  if (!Number.isFinite(logLik)) return undefined;
  return {
    family: 'Weibull',
    params: [
      ['shape', k],
      ['scale', scale],
    ],
    k: 2,
    logLik,
    cdf: (v) => (v <= 0 ? 0 : -Math.expm1(-((v / scale) ** k))),
    quantile: true,
  };
}

function variance(v: readonly number[]): number {
  let s = 0;
  for (const a of v) s += a;
  const mean = s / v.length;
  let ss = 0;
  for (const a of v) ss += (a - mean) ** 2;
  return ss / v.length;
}

function uniform(x: readonly number[], m: Moments): FittedFamily | undefined {
  const w = m.max - m.min;
  if (!(w > 0)) return undefined;
  // the MLE is [min, max]; widen by one spacing so the sample's extremes are interior
  const pad = w / m.n;
  const lo = m.min - pad;
  const hi = m.max + pad;
  return {
    family: 'Uniform',
    params: [
      ['min', lo],
      ['max', hi],
    ],
    k: 2,
    logLik: -m.n * Math.log(hi - lo),
    cdf: (v) => Math.min(1, Math.max(0, (v - lo) / (hi - lo))),
    quantile: true,
  };
}

/**
 * Triangular on the padded range; the mode by profile likelihood over a grid of sample quantiles.
 * With the values sorted, Σ log(v − a) below the mode and Σ log(b − v) above it are prefix sums,
 * so each grid point costs O(1) instead of a pass over the rows.
 */
function triangular(m: Moments, sorted: readonly number[]): FittedFamily | undefined {
  const pad = (m.max - m.min) / m.n;
  const a = m.min - pad;
  const b = m.max + pad;
  if (!(b > a)) return undefined;
  const n = sorted.length;
  const below = new Float64Array(n + 1); // below[j] = Σ_{i<j} log(v_i − a)
  const above = new Float64Array(n + 1); // above[j] = Σ_{i≥j} log(b − v_i)
  for (let i = 0; i < n; i++) below[i + 1] = below[i]! + Math.log(sorted[i]! - a);
  for (let i = n - 1; i >= 0; i--) above[i] = above[i + 1]! + Math.log(b - sorted[i]!);
  const ll = (c: number, at: number): number => {
    let j = at; // rows strictly below the mode
    while (j > 0 && sorted[j - 1]! >= c) j--;
    return (
      below[j]! +
      j * Math.log(2 / ((b - a) * (c - a))) +
      above[j]! +
      (n - j) * Math.log(2 / ((b - a) * (b - c)))
    );
  };
  let best = { c: (a + b) / 2, l: -Infinity };
  for (let i = 1; i < 40; i++) {
    const at = Math.floor((i / 40) * (n - 1));
    const c = sorted[at]!;
    if (c <= a || c >= b) continue;
    const l = ll(c, at);
    if (l > best.l) best = { c, l };
  }
  const c = best.c;
  return {
    family: 'Triangular',
    params: [
      ['min', a],
      ['mode', c],
      ['max', b],
    ],
    k: 3,
    logLik: best.l,
    cdf: (v) =>
      v <= a
        ? 0
        : v >= b
          ? 1
          : v <= c
            ? (v - a) ** 2 / ((b - a) * (c - a))
            : 1 - (b - v) ** 2 / ((b - a) * (b - c)),
    quantile: true,
  };
}

/** Beta on [min − pad, max + pad]: Newton on the two score equations (ψ and ψ′ from @stdlib). */
function betaScaled(x: readonly number[], m: Moments): FittedFamily | undefined {
  const pad = (m.max - m.min) / m.n;
  const offset = m.min - pad;
  const width = m.max - m.min + 2 * pad;
  if (!(width > 0)) return undefined;
  let l1 = 0;
  let l2 = 0;
  let mean = 0;
  let sq = 0;
  for (const v of x) {
    const y = (v - offset) / width;
    l1 += Math.log(y);
    l2 += Math.log1p(-y);
    mean += y;
    sq += y * y;
  }
  l1 /= m.n;
  l2 /= m.n;
  mean /= m.n;
  const vr = sq / m.n - mean * mean;
  const common = (mean * (1 - mean)) / vr - 1;
  let a = Math.max(0.05, mean * common);
  let b = Math.max(0.05, (1 - mean) * common);
  for (let i = 0; i < 100; i++) {
    const dab = digamma(a + b);
    const g1 = l1 - digamma(a) + dab;
    const g2 = l2 - digamma(b) + dab;
    const tab = trigamma(a + b);
    const h11 = tab - trigamma(a);
    const h22 = tab - trigamma(b);
    const det = h11 * h22 - tab * tab;
    const da = (g1 * h22 - g2 * tab) / det;
    const db = (h11 * g2 - tab * g1) / det;
    a = a - da > 0 ? a - da : a / 2;
    b = b - db > 0 ? b - db : b / 2;
    if (Math.abs(da) < 1e-10 * a && Math.abs(db) < 1e-10 * b) break;
  }
  const lbeta = gammaln(a) + gammaln(b) - gammaln(a + b);
  const logLik = m.n * ((a - 1) * l1 + (b - 1) * l2 - lbeta - Math.log(width));
  if (!Number.isFinite(logLik)) return undefined;
  return {
    family: 'Beta',
    params: [
      ['alpha', a],
      ['beta', b],
    ],
    k: 4,
    logLik,
    cdf: (v) => {
      const y = (v - offset) / width;
      return y <= 0 ? 0 : y >= 1 ? 1 : betainc(y, a, b);
    },
    quantile: false,
    affine: { offset, width },
  };
}

/** Every candidate family that applies to the values (positive-only families need x > 0). */
export function fitContinuous(x: readonly number[], sorted: readonly number[]): FittedFamily[] {
  const m = moments(x);
  const fits = [
    normal(x, m),
    lognormal(x, m),
    gammaFit(x, m),
    weibull(x, m),
    exponential(x, m),
    betaScaled(x, m),
    uniform(x, m),
    triangular(m, sorted),
  ];
  return fits.filter((f): f is FittedFamily => f !== undefined && Number.isFinite(f.logLik));
}

/** Normal score of a probability, as the engine's Copula maps it. */
export const normalScore = normalQuantile;
