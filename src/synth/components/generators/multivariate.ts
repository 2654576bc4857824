/** Vector-valued generators (§4.1): MVN (verified diagonal recipe), Dirichlet, Multinomial, Wisharts. */
import { DOUBLE, INT } from '../../engine/row.js';
import type { RandomSource } from '../../random/random-source.js';
import type { BuildContext, ComponentImpl } from '../component.js';
import { checkColumns, checkEntries, descriptorOf, vectorNode } from '../component.js';
import { cumulative, pick } from './discrete.js';
import { chiSquared, cholesky, gamma, invertSpd } from '../samplers.js';

function impl(name: string, create: ComponentImpl['create']): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes: [], create };
}

function squareMatrix(ctx: BuildContext, flat: number[]): number[][] {
  const k = Math.round(Math.sqrt(flat.length));
  if (k * k !== flat.length || k === 0) ctx.params.reject('scale must hold k*k values (row-major)');
  // the output is the k*k matrix: refuse it before the O(k^3) factorisation
  checkColumns(ctx, k * k, 'the matrix width (k*k)');
  return Array.from({ length: k }, (_, i) => flat.slice(i * k, i * k + k));
}

/** Bartlett decomposition: L A A^T L^T with A lower-triangular, chi on the diagonal. */
function wishart(rng: RandomSource, l: number[][], df: number): number[][] {
  const k = l.length;
  const a = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < k; i++) {
    a[i]![i] = Math.sqrt(chiSquared(rng, df - i));
    for (let j = 0; j < i; j++) a[i]![j] = rng.nextGaussian();
  }
  const la = l.map((row) => a[0]!.map((_, j) => row.reduce((s, v, m) => s + v * a[m]![j]!, 0)));
  return la.map((ri) => la.map((rj) => ri.reduce((s, v, m) => s + v * rj[m]!, 0)));
}

export const MULTIVARIATE: ComponentImpl[] = [
  impl('MultivariateNormal', (ctx) => {
    const means = ctx.params.doubles('means');
    const sigmas = ctx.params.doubles('sigmas');
    const cov = ctx.params.matrix('covariance');
    const k = means.length;
    if (k === 0) ctx.params.reject('means is required');
    if (ctx.params.has('dimension') && ctx.params.int('dimension') !== k)
      ctx.params.reject('dimension disagrees with means');
    const { rng } = ctx;
    if (cov.length > 0) {
      if (sigmas.length > 0) ctx.params.reject('give either sigmas or covariance, not both');
      if (cov.length !== k || cov.some((r) => r.length !== k))
        ctx.params.reject(`covariance must be ${k}x${k}`);
      const l = cholesky(cov);
      if (l === null) return ctx.params.reject('covariance is not positive definite');
      const z = new Array<number>(k).fill(0);
      return vectorNode(ctx, DOUBLE, k, (out) => {
        for (let i = 0; i < k; i++) z[i] = rng.nextGaussian();
        for (let i = 0; i < k; i++) {
          let s = means[i]!;
          for (let j = 0; j <= i; j++) s += l[i]![j]! * z[j]!;
          out[i] = s;
        }
      });
    }
    if (sigmas.length !== k) ctx.params.reject('sigmas must have one entry per mean');
    return vectorNode(ctx, DOUBLE, k, (out) => {
      for (let i = 0; i < k; i++) out[i] = means[i]! + sigmas[i]! * rng.nextGaussian();
    });
  }),
  impl('Dirichlet', (ctx) => {
    const alpha = ctx.params.doubles('alpha');
    if (alpha.length < 2 || alpha.some((a) => !(a > 0)))
      ctx.params.reject('alpha needs >= 2 positive values');
    const { rng } = ctx;
    return vectorNode(ctx, DOUBLE, alpha.length, (out) => {
      let sum = 0;
      for (let i = 0; i < alpha.length; i++) sum += out[i] = gamma(rng, alpha[i]!);
      for (let i = 0; i < alpha.length; i++) out[i] = out[i]! / sum;
    });
  }),
  impl('Multinomial', (ctx) => {
    const cum = cumulative(ctx.params.doubles('weights'), (m) => ctx.params.reject(m));
    const trials = ctx.params.int('trials');
    if (trials < 0) ctx.params.reject('trials must be >= 0');
    checkEntries(ctx, trials, 'trials (draws per value)');
    const { rng } = ctx;
    return vectorNode(ctx, INT, cum.length, (out) => {
      out.fill(0);
      for (let t = 0; t < trials; t++) {
        const i = pick(cum, rng.nextDouble());
        out[i] = out[i]! + 1;
      }
    });
  }),
  impl('Wishart', (ctx) => {
    const scale = squareMatrix(ctx, ctx.params.doubles('scale'));
    const df = ctx.params.double('df');
    const k = scale.length;
    if (!(df > k - 1)) ctx.params.reject(`df must be > ${k - 1}`);
    const l = cholesky(scale);
    if (l === null) return ctx.params.reject('scale is not positive definite');
    const { rng } = ctx;
    return vectorNode(ctx, DOUBLE, k * k, (out) => {
      const w = wishart(rng, l, df);
      for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) out[i * k + j] = w[i]![j]!;
    });
  }),
  impl('InverseWishart', (ctx) => {
    const psi = squareMatrix(ctx, ctx.params.doubles('scale'));
    const df = ctx.params.double('df');
    const k = psi.length;
    if (!(df > k - 1)) ctx.params.reject(`df must be > ${k - 1}`);
    const inv = invertSpd(psi);
    const l = inv === null ? null : cholesky(inv);
    if (l === null) return ctx.params.reject('scale is not positive definite');
    const { rng } = ctx;
    return vectorNode(ctx, DOUBLE, k * k, (out) => {
      const w = invertSpd(wishart(rng, l, df)) ?? psi.map((r) => r.map(() => NaN));
      for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) out[i * k + j] = w[i]![j]!;
    });
  }),
];
