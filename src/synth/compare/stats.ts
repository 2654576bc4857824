/**
 * The tail probabilities compare's checks need, from @stdlib's regularized incomplete gamma and
 * beta functions (accurate far into the tails, where `1 - cdf` would round to 0).
 */
import betainc from '@stdlib/math-base-special-betainc';
import gammainc from '@stdlib/math-base-special-gammainc';
import gammaln from '@stdlib/math-base-special-gammaln';

/** P(χ² ≥ x) with `df` degrees of freedom. */
export function chiSquareTail(x: number, df: number): number {
  if (!(x > 0)) return 1;
  return gammainc(x / 2, df / 2, true, true);
}

/** P(|Z| ≥ |z|) for a standard normal Z (erfc(|z|/√2) written as Q(½, z²/2)). */
export function normalTwoSided(z: number): number {
  if (!Number.isFinite(z)) return Number.isNaN(z) ? 1 : 0;
  return gammainc((z * z) / 2, 0.5, true, true);
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
export function binomialUpper(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  // P(X ≥ k) = I_p(k, n − k + 1), the regularized incomplete beta function
  return betainc(p, k, n - k + 1, true, false);
}

/** Two-sided binomial p-value: twice the smaller tail, at most 1. */
export function binomialTwoSided(k: number, n: number, p: number): number {
  const upper = binomialUpper(k, n, p);
  const lower = 1 - binomialUpper(k + 1, n, p);
  return Math.min(1, 2 * Math.min(upper, lower));
}

/** ln C(n, k). */
function lnChoose(n: number, k: number): number {
  return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1);
}

/**
 * The chance that all `c` copies of a value land in a part of `part` rows out of `total`, when
 * rows are split at random (hypergeometric): C(part, c) / C(total, c).
 */
export function allInPart(c: number, part: number, total: number): number {
  if (c > part) return 0;
  return Math.exp(lnChoose(part, c) - lnChoose(total, c));
}

/**
 * The two-sample Kolmogorov–Smirnov statistic D = sup |F₁ − F₂| over the pooled values (ties
 * stepped together, so discrete columns are handled exactly). Both arrays sorted ascending.
 */
export function ksStatistic(a: Float64Array, b: Float64Array): number {
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < a.length && j < b.length) {
    const x = Math.min(a[i]!, b[j]!);
    while (i < a.length && a[i] === x) i++;
    while (j < b.length && b[j] === x) j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}

/**
 * P(D ≥ d) for two samples of sizes n and m: the limiting Kolmogorov distribution at the
 * effective size nm/(n+m), with Stephens' small-sample correction (as in Numerical Recipes'
 * `probks`). The @stdlib KS package tests one sample only, so the series is summed here.
 * Ties make the test conservative (p-values too large), never the other way.
 */
export function ksTwoSampleP(d: number, n: number, m: number): number {
  const ne = Math.sqrt((n * m) / (n + m));
  const lambda = (ne + 0.12 + 0.11 / ne) * d;
  if (lambda < 0.2) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = Math.exp(-2 * k * k * lambda * lambda);
    sum += (k % 2 === 1 ? 2 : -2) * term;
    if (term < 1e-300 || term <= 1e-16 * Math.abs(sum)) break;
  }
  return Math.min(1, Math.max(0, sum));
}
