/**
 * Copula: correlated columns whose marginals are the inputs' distributions. Inputs are never
 * pulled; only their inverse CDFs are used. Draws: n Gaussians in order, then (t copula) one
 * chi-squared. The exact draw order of the original engine is unknown (§12.1).
 */
import { DOUBLE, INT } from '../../engine/row.js';
import type { RuntimeNode } from '../../engine/row.js';
import type { ComponentImpl, QuantileNode } from '../component.js';
import { descriptorOf, hasQuantile } from '../component.js';
import { chiSquared, cholesky, normalCdf } from '../samplers.js';

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9).
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularised incomplete beta I_x(a, b) by Lentz's continued fraction. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front =
    Math.exp(Math.log(x) * a + Math.log(1 - x) * b - (logGamma(a) + logGamma(b) - logGamma(a + b))) / a;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 300; i++) {
    const m = Math.floor(i / 2);
    let num: number;
    if (i === 0) num = 1;
    else if (i % 2 === 0) num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + num * d;
    d = Math.abs(d) < 1e-300 ? 1e300 : 1 / d;
    c = 1 + num / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    const cd = c * d;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-15) break;
  }
  return front * (f - 1);
}

function studentCdf(t: number, df: number): number {
  const p = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - p : p;
}

export const COPULA: ComponentImpl = {
  descriptor: descriptorOf('Copula'),
  inputAttributes: [],
  create(ctx): RuntimeNode {
    const n = ctx.inputs.length;
    if (n < 2) ctx.params.reject('needs at least two inputs');
    const marginals: QuantileNode[] = ctx.inputs.map((input) => {
      if (input.dimension !== 1 || !hasQuantile(input)) {
        return ctx.params.reject(
          `input "${input.name}" (${input.type}) has no inverse CDF usable as a marginal`,
        );
      }
      return input;
    });
    const corr = ctx.params.matrix('correlation');
    if (corr.length !== n || corr.some((r) => r.length !== n))
      ctx.params.reject(`correlation must be ${n}x${n}`);
    for (let i = 0; i < n; i++) {
      if (corr[i]![i] !== 1) ctx.params.reject('correlation must have a unit diagonal');
      for (let j = 0; j < i; j++)
        if (corr[i]![j] !== corr[j]![i]) ctx.params.reject('correlation must be symmetric');
    }
    const l = cholesky(corr);
    if (l === null) return ctx.params.reject('correlation is not positive definite');
    const df = ctx.params.has('df') ? ctx.params.double('df') : undefined;
    if (df !== undefined && !(df > 0)) ctx.params.reject('df must be > 0');
    const z = new Float64Array(n);
    const { rng } = ctx;
    return {
      name: ctx.name,
      type: ctx.type,
      dimension: n,
      synchronous: false,
      next(out, offset): void {
        for (let i = 0; i < n; i++) z[i] = rng.nextGaussian();
        const scale = df === undefined ? 1 : 1 / Math.sqrt(chiSquared(rng, df) / df);
        for (let i = 0; i < n; i++) {
          let y = 0;
          for (let j = 0; j <= i; j++) y += l[i]![j]! * z[j]!;
          y *= scale;
          const u = df === undefined ? normalCdf(y) : studentCdf(y, df);
          const m = marginals[i]!;
          out.nums[offset + i] = m.quantile(u);
          out.kinds[offset + i] = m.integerValued ? INT : DOUBLE;
        }
      },
    };
  },
};
