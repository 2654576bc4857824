/**
 * Textbook samplers for distributions whose exact draw order in the original engine is unknown
 * (§12.1): conformance for these is in distribution only. Each documents the draws it makes.
 */
import type { RandomSource } from '../random/random-source.js';

/** Knuth's multiplication method: draws until the product falls to exp(-lambda) (verified recipe). */
export function poissonKnuth(rng: RandomSource, expNegLambda: number): number {
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rng.nextDouble();
  } while (p > expNegLambda);
  return k - 1;
}

function logFactorial(k: number): number {
  if (k < 2) return 0;
  if (k < 20) {
    let f = 1;
    for (let i = 2; i <= k; i++) f *= i;
    return Math.log(f);
  }
  // Stirling series; ample for k >= 20.
  const x = k + 1;
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x * x * x);
}

/** Hörmann's PTRS transformed rejection for large lambda: two uniforms per attempt. */
export function poissonPtrs(rng: RandomSource, lambda: number): number {
  const slam = Math.sqrt(lambda);
  const loglam = Math.log(lambda);
  const b = 0.931 + 2.53 * slam;
  const a = -0.059 + 0.02483 * b;
  const invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const u = rng.nextDouble() - 0.5;
    const v = rng.nextDouble();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (
      Math.log(v) + Math.log(invalpha) - Math.log(a / (us * us) + b) <=
      -lambda + k * loglam - logFactorial(k)
    ) {
      return k;
    }
  }
}

/** Marsaglia-Tsang gamma(shape, 1): a Gaussian and a uniform per attempt; shape < 1 boosted by U^(1/shape). */
export function gamma(rng: RandomSource, shape: number): number {
  if (shape < 1) {
    const g = gamma(rng, shape + 1);
    return g * Math.pow(rng.nextDouble(), 1 / shape);
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = rng.nextGaussian();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.nextDouble();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Chi-squared with df degrees of freedom, as 2 * gamma(df / 2). */
export function chiSquared(rng: RandomSource, df: number): number {
  return 2 * gamma(rng, df / 2);
}

/** Lower-triangular Cholesky factor of a symmetric positive definite matrix, or null if not PD. */
export function cholesky(a: readonly (readonly number[])[]): number[][] | null {
  const n = a.length;
  const l = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]!;
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!;
      if (i === j) {
        if (!(s > 0)) return null;
        l[i]![i] = Math.sqrt(s);
      } else l[i]![j] = s / l[j]![j]!;
    }
  }
  return l;
}

/** Inverse of an SPD matrix through its Cholesky factor. */
export function invertSpd(a: readonly (readonly number[])[]): number[][] | null {
  const l = cholesky(a);
  if (l === null) return null;
  const n = a.length;
  const inv = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let col = 0; col < n; col++) {
    // Solve L y = e_col, then L^T x = y.
    const y = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) {
      let s = i === col ? 1 : 0;
      for (let k = 0; k < i; k++) s -= l[i]![k]! * y[k]!;
      y[i] = s / l[i]![i]!;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = y[i]!;
      for (let k = i + 1; k < n; k++) s -= l[k]![i]! * inv[k]![col]!;
      inv[i]![col] = s / l[i]![i]!;
    }
  }
  return inv;
}

/** Standard normal CDF (Cody-style erfc via a rational approximation accurate to ~1e-15). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

function erfc(x: number): number {
  // Numerical Recipes' erfc with Chebyshev fit, relative error < 1.2e-7 is too coarse; use a
  // continued fraction for large |x| and a series for small |x|.
  const ax = Math.abs(x);
  let r: number;
  if (ax < 2) {
    // erf series: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
    let term = ax;
    let sum = ax;
    for (let n = 1; n < 100; n++) {
      term *= (-ax * ax) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    r = 1 - (2 / Math.sqrt(Math.PI)) * sum;
  } else {
    // Lentz continued fraction for erfc.
    let f = ax;
    let c = ax;
    let d = 0;
    for (let n = 1; n < 200; n++) {
      const an = n / 2;
      d = ax + an * d;
      d = d === 0 ? 1e-300 : 1 / d;
      c = ax + an / c;
      const delta = c * d;
      f *= delta;
      if (Math.abs(delta - 1) < 1e-16) break;
    }
    r = Math.exp(-ax * ax) / (f * Math.sqrt(Math.PI));
  }
  return x >= 0 ? r : 2 - r;
}

/** Inverse standard normal CDF (Wichura's AS241, about 1e-16 relative accuracy). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (
      (q *
        (((((((r * 2509.0809287301227 + 33430.57558358813) * r + 67265.7709270087) * r + 45921.95393154987) *
          r +
          13731.69376550946) *
          r +
          1971.5909503065513) *
          r +
          133.14166789178438) *
          r +
          3.3871328727963665)) /
      (((((((r * 5226.495278852546 + 28729.085735721943) * r + 39307.89580009271) * r + 21213.794301586597) *
        r +
        5394.196021424751) *
        r +
        687.1870074920579) *
        r +
        42.31333070160091) *
        r +
        1)
    );
  }
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let val: number;
  if (r <= 5) {
    r -= 1.6;
    val =
      (((((((r * 0.0007745450142783414 + 0.022723844989269184) * r + 0.2417807251774506) * r +
        1.2704582524523684) *
        r +
        3.6478483247632045) *
        r +
        5.769497221460691) *
        r +
        4.630337846156546) *
        r +
        1.4234371107496835) /
      (((((((r * 1.0507500716444169e-9 + 0.0005475938084995345) * r + 0.015198666563616457) * r +
        0.14810397642748008) *
        r +
        0.6897673349851) *
        r +
        1.6763848301838038) *
        r +
        2.053191626637759) *
        r +
        1);
  } else {
    r -= 5;
    val =
      (((((((r * 2.0103343992922881e-7 + 0.000027115555687434876) * r + 0.0012426609473880784) * r +
        0.026532189526576124) *
        r +
        0.29656057182850487) *
        r +
        1.7848265399172913) *
        r +
        5.463784911164114) *
        r +
        6.657904643501103) /
      (((((((r * 2.0442631033899397e-15 + 1.421511758316446e-7) * r + 0.000018463183175100548) * r +
        0.0007868691311456133) *
        r +
        0.014875361290850615) *
        r +
        0.1369298809227358) *
        r +
        0.599832206555888) *
        r +
        1);
  }
  return q < 0 ? -val : val;
}
