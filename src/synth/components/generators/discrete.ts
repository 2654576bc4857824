/** Integer-valued generators (§4.1) plus Categorical-style weighted choices. */
import { DOUBLE, INT, type Row } from '../../engine/row.js';
import type { RandomSource } from '../../random/random-source.js';
import type { BuildContext, ComponentImpl, QuantileNode } from '../component.js';
import { checkEntries, descriptorOf, scalarNode } from '../component.js';
import { gamma, poissonKnuth, poissonPtrs } from '../samplers.js';

function impl(name: string, create: ComponentImpl['create']): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes: [], create };
}

function probability(ctx: BuildContext, name: string): number {
  const p = ctx.params.double(name);
  if (!(p >= 0 && p <= 1)) ctx.params.reject(`${name} must be within [0, 1]`);
  return p;
}

/**
 * Cumulative probabilities for a weighted choice: weights are normalised first, then summed, and a
 * draw u picks the first index whose cumulative value exceeds it (verified for Mix and Categorical).
 */
export function cumulative(weights: readonly number[], reject: (m: string) => never): Float64Array {
  if (weights.length === 0) reject('needs at least one weight');
  let total = 0;
  for (const w of weights) {
    if (!(w >= 0) || !Number.isFinite(w)) reject('weights must be finite and >= 0');
    total += w;
  }
  if (!(total > 0)) reject('weights must not all be zero');
  const cum = new Float64Array(weights.length);
  let acc = 0;
  weights.forEach((w, i) => {
    acc += w / total;
    cum[i] = acc;
  });
  return cum;
}

/** Index of the first cumulative value above u (the last index if rounding leaves u above all). */
export function pick(cum: Float64Array, u: number): number {
  const last = cum.length - 1;
  for (let i = 0; i < last; i++) if (u < cum[i]!) return i;
  return last;
}

function poissonSampler(rng: RandomSource, lambda: number, large: boolean): () => number {
  const l = Math.exp(-lambda);
  return large ? () => poissonPtrs(rng, lambda) : () => poissonKnuth(rng, l);
}

/**
 * The commonest integer generators are classes: parameters in instance fields, one row method on
 * the prototype shared by every graph (see filters/basic.ts); the others use scalarNode.
 */
abstract class IntNode implements QuantileNode {
  readonly name: string;
  readonly type: string;
  readonly dimension = 1;
  readonly synchronous = false;
  readonly integerValued = true;
  protected readonly rng: RandomSource;
  constructor(ctx: BuildContext) {
    this.name = ctx.name;
    this.type = ctx.type;
    this.rng = ctx.rng;
  }
  abstract next(out: Row, offset: number): void;
  abstract quantile(u: number): number;
}

class BernoulliNode extends IntNode {
  constructor(
    ctx: BuildContext,
    private readonly p: number,
  ) {
    super(ctx);
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = this.rng.nextDouble() < this.p ? 1 : 0;
    out.kinds[offset] = INT;
  }
  quantile(u: number): number {
    return u < 1 - this.p ? 0 : 1;
  }
}

class CategoricalNode extends IntNode {
  constructor(
    ctx: BuildContext,
    private readonly cum: Float64Array,
  ) {
    super(ctx);
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = pick(this.cum, this.rng.nextDouble());
    out.kinds[offset] = INT;
  }
  quantile(u: number): number {
    return pick(this.cum, u);
  }
}

class PoissonNode extends IntNode {
  private readonly expNegLambda: number;
  constructor(
    ctx: BuildContext,
    private readonly lambda: number,
    private readonly large: boolean,
  ) {
    super(ctx);
    this.expNegLambda = Math.exp(-lambda);
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = this.large
      ? poissonPtrs(this.rng, this.lambda)
      : poissonKnuth(this.rng, this.expNegLambda);
    out.kinds[offset] = INT;
  }
  quantile(u: number): number {
    return poissonQuantileOf(this.lambda, u);
  }
}

export const DISCRETE: ComponentImpl[] = [
  impl('Bernoulli', (ctx) => {
    return new BernoulliNode(ctx, probability(ctx, 'p'));
  }),
  impl('Binomial', (ctx) => {
    const n = ctx.params.int('n');
    if (n < 0) ctx.params.reject('n must be >= 0');
    const p = probability(ctx, 'p');
    const fast = ctx.params.text('mode') === 'fast';
    // the standard mode draws n uniforms per value
    if (!fast) checkEntries(ctx, n, 'n (trials per value)');
    const { rng } = ctx;
    const cdf = binomialCdf(n, p);
    const q = (u: number): number => pick(cdf, u);
    if (fast) return scalarNode(ctx, INT, () => q(rng.nextDouble()), q);
    // Standard: n Bernoulli trials, success when nextDouble() < p (verified for n = 1).
    return scalarNode(
      ctx,
      INT,
      () => {
        let k = 0;
        for (let i = 0; i < n; i++) if (rng.nextDouble() < p) k++;
        return k;
      },
      q,
    );
  }),
  impl('Categorical', (ctx) => {
    return new CategoricalNode(
      ctx,
      cumulative(ctx.params.doubles('weights'), (m) => ctx.params.reject(m)),
    );
  }),
  impl('Empirical', (ctx) => {
    const items = (ctx.params.text('values') ?? '').split(/[\s,]+/).filter((s) => s !== '');
    const values: number[] = [];
    const weights: number[] = [];
    for (const item of items) {
      const [v, w] = item.split(':');
      const value = Number(v);
      const weight = w === undefined ? 1 : Number(w);
      if (!Number.isFinite(value) || !Number.isFinite(weight)) ctx.params.reject(`bad item "${item}"`);
      values.push(value);
      weights.push(weight);
    }
    const cum = cumulative(weights, (m) => ctx.params.reject(m));
    const { rng } = ctx;
    return scalarNode(
      ctx,
      DOUBLE,
      () => values[pick(cum, rng.nextDouble())]!,
      (u) => values[pick(cum, u)]!,
    );
  }),
  impl('Geometric', (ctx) => {
    const p = probability(ctx, 'p');
    if (p === 0) ctx.params.reject('p must be > 0');
    const { rng } = ctx;
    // Inversion: trials until the first success, one uniform per value.
    const q = (u: number): number => (p === 1 ? 1 : Math.max(1, Math.ceil(Math.log1p(-u) / Math.log1p(-p))));
    return scalarNode(ctx, INT, () => q(rng.nextDouble()), q);
  }),
  impl('Poisson', (ctx) => {
    const lambda = ctx.params.double('lambda');
    if (!(lambda > 0)) ctx.params.reject('lambda must be > 0');
    const large = ctx.params.text('mode') === 'large-lambda';
    // a parameter bound: the fact sheet (§6.1) has it as a load error, not a node failure
    if (large && lambda < 30) ctx.params.refuse('mode large-lambda needs lambda >= 30');
    return new PoissonNode(ctx, lambda, large);
  }),
  impl('Skellam', (ctx) => {
    const l1 = ctx.params.double('lambda1');
    const l2 = ctx.params.double('lambda2');
    if (!(l1 > 0 && l2 > 0)) ctx.params.reject('lambda1 and lambda2 must be > 0');
    const fast = ctx.params.text('mode') === 'fast';
    const a = poissonSampler(ctx.rng, l1, fast && l1 >= 30);
    const b = poissonSampler(ctx.rng, l2, fast && l2 >= 30);
    return scalarNode(ctx, INT, () => {
      const first = a();
      return first - b();
    });
  }),
  impl('NegativeBinomial', (ctx) => {
    const r = ctx.params.double('r');
    const p = probability(ctx, 'p');
    if (!(r > 0) || p === 0) ctx.params.reject('needs r > 0 and p > 0');
    const { rng } = ctx;
    // Gamma-Poisson mixture: failures before the r-th success.
    return scalarNode(ctx, INT, () => {
      const lambda = gamma(rng, r) * ((1 - p) / p);
      return lambda <= 0 ? 0 : lambda < 30 ? poissonKnuth(rng, Math.exp(-lambda)) : poissonPtrs(rng, lambda);
    });
  }),
  impl('Hypergeometric', (ctx) => {
    const population = ctx.params.int('population');
    const successes = ctx.params.int('successStates');
    const draws = ctx.params.int('draws');
    if (population < 0 || successes < 0 || draws < 0 || successes > population || draws > population) {
      ctx.params.reject('needs 0 <= successStates <= population and 0 <= draws <= population');
    }
    checkEntries(ctx, draws, 'draws (uniforms per value)');
    const { rng } = ctx;
    // Sequential draws without replacement: one uniform per draw.
    return scalarNode(ctx, INT, () => {
      let good = successes;
      let left = population;
      let k = 0;
      for (let i = 0; i < draws; i++) {
        if (rng.nextDouble() * left < good) {
          k++;
          good--;
        }
        left--;
      }
      return k;
    });
  }),
  impl('Zipf', (ctx) => {
    const n = ctx.params.int('n');
    const s = ctx.params.double('s');
    if (n < 1) ctx.params.reject('n must be >= 1');
    checkEntries(ctx, n, 'n (table entries)');
    const cum = cumulative(
      Array.from({ length: n }, (_, i) => 1 / Math.pow(i + 1, s)),
      (m) => ctx.params.reject(m),
    );
    const { rng } = ctx;
    return scalarNode(
      ctx,
      INT,
      () => pick(cum, rng.nextDouble()) + 1,
      (u) => pick(cum, u) + 1,
    );
  }),
];

function binomialCdf(n: number, p: number): Float64Array {
  const size = Math.min(n, 100000) + 1;
  const pmf = new Array<number>(size).fill(0);
  // Build in log space for stability.
  let logC = 0;
  for (let k = 0; k < size; k++) {
    if (k > 0) logC += Math.log(n - k + 1) - Math.log(k);
    pmf[k] =
      p === 0
        ? k === 0
          ? 1
          : 0
        : p === 1
          ? k === n
            ? 1
            : 0
          : Math.exp(logC + k * Math.log(p) + (n - k) * Math.log1p(-p));
  }
  return cumulative(pmf, () => {
    throw new Error('binomial pmf underflow');
  });
}

function poissonQuantileOf(lambda: number, u: number): number {
  let k = 0;
  let pk = Math.exp(-lambda);
  let acc = pk;
  while (u >= acc && k < 1e7) {
    k++;
    pk *= lambda / k;
    acc += pk;
    if (pk === 0 && k > lambda) break;
  }
  return k;
}
