/** Continuous one-column generators (§4.1). Uniform, Normal and Lognormal follow verified recipes. */
import { DOUBLE, type Row } from '../../engine/row.js';
import type { RandomSource } from '../../random/random-source.js';
import type { BuildContext, ComponentImpl, QuantileNode } from '../component.js';
import { descriptorOf, scalarNode } from '../component.js';
import { chiSquared, gamma, normalQuantile } from '../samplers.js';

/**
 * The commonest generators are classes: parameters in instance fields, one row method on the
 * prototype shared by every graph, so a process's later graphs run as fast as its first (see
 * filters/basic.ts). The others still use scalarNode's closures.
 */
abstract class DoubleNode implements QuantileNode {
  readonly name: string;
  readonly type: string;
  readonly dimension = 1;
  readonly synchronous = false;
  readonly integerValued = false;
  constructor(
    ctx: BuildContext,
    protected readonly rng: RandomSource,
  ) {
    this.name = ctx.name;
    this.type = ctx.type;
  }
  abstract next(out: Row, offset: number): void;
  abstract quantile(u: number): number;
}

class UniformNode extends DoubleNode {
  constructor(
    ctx: BuildContext,
    private readonly min: number,
    private readonly max: number,
  ) {
    super(ctx, ctx.rng);
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = this.min + (this.max - this.min) * this.rng.nextDouble();
    out.kinds[offset] = DOUBLE;
  }
  quantile(u: number): number {
    return this.min + (this.max - this.min) * u;
  }
}

class NormalNode extends DoubleNode {
  constructor(
    ctx: BuildContext,
    private readonly mean: number,
    private readonly sigma: number,
  ) {
    super(ctx, ctx.rng);
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = this.mean + this.sigma * this.rng.nextGaussian();
    out.kinds[offset] = DOUBLE;
  }
  quantile(u: number): number {
    return this.mean + this.sigma * normalQuantile(u);
  }
}

class LognormalNode extends DoubleNode {
  constructor(
    ctx: BuildContext,
    private readonly mu: number,
    private readonly sigma: number,
  ) {
    super(ctx, ctx.rng);
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = Math.exp(this.mu + this.sigma * this.rng.nextGaussian());
    out.kinds[offset] = DOUBLE;
  }
  quantile(u: number): number {
    return Math.exp(this.mu + this.sigma * normalQuantile(u));
  }
}

function positive(ctx: BuildContext, ...names: string[]): void {
  for (const n of names) if (!(ctx.params.double(n) > 0)) ctx.params.reject(`${n} must be > 0`);
}

function impl(name: string, create: ComponentImpl['create']): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes: [], create };
}

export const CONTINUOUS: ComponentImpl[] = [
  impl('Uniform', (ctx) => {
    const min = ctx.params.double('min');
    const max = ctx.params.double('max');
    if (!(min <= max)) ctx.params.reject('min must not exceed max');
    return new UniformNode(ctx, min, max);
  }),
  impl('Normal', (ctx) => {
    const mean = ctx.params.double('mean');
    const sigma = ctx.params.double('sigma');
    if (!(sigma >= 0)) ctx.params.reject('sigma must be >= 0');
    return new NormalNode(ctx, mean, sigma);
  }),
  impl('Lognormal', (ctx) => {
    const mu = ctx.params.double('mu');
    const sigma = ctx.params.double('sigma');
    if (!(sigma >= 0)) ctx.params.reject('sigma must be >= 0');
    return new LognormalNode(ctx, mu, sigma);
  }),
  impl('Exponential', (ctx) => {
    positive(ctx, 'lambda');
    const lambda = ctx.params.double('lambda');
    const { rng } = ctx;
    // Probably the engine's choice too (§3.1): the JDK ziggurat exponential, scaled.
    return scalarNode(
      ctx,
      DOUBLE,
      () => rng.nextExponential() / lambda,
      (u) => -Math.log1p(-u) / lambda,
    );
  }),
  impl('Gamma', (ctx) => {
    positive(ctx, 'shape');
    const shape = ctx.params.double('shape');
    const scale = ctx.params.has('rate') ? 1 / ctx.params.double('rate') : ctx.params.double('scale');
    if (!(scale > 0)) ctx.params.reject('scale must be > 0');
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => scale * gamma(rng, shape));
  }),
  impl('Beta', (ctx) => {
    positive(ctx, 'alpha', 'beta');
    const a = ctx.params.double('alpha');
    const b = ctx.params.double('beta');
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => {
      const x = gamma(rng, a);
      return x / (x + gamma(rng, b));
    });
  }),
  impl('ChiSquared', (ctx) => {
    positive(ctx, 'df');
    const df = ctx.params.double('df');
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => chiSquared(rng, df));
  }),
  impl('StudentT', (ctx) => {
    positive(ctx, 'df');
    const df = ctx.params.double('df');
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => {
      const z = rng.nextGaussian();
      return z / Math.sqrt(chiSquared(rng, df) / df);
    });
  }),
  impl('FDistribution', (ctx) => {
    positive(ctx, 'd1', 'd2');
    const d1 = ctx.params.double('d1');
    const d2 = ctx.params.double('d2');
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => chiSquared(rng, d1) / d1 / (chiSquared(rng, d2) / d2));
  }),
  impl('Gumbel', (ctx) => {
    positive(ctx, 'beta');
    const mu = ctx.params.double('mu');
    const beta = ctx.params.double('beta');
    const q = (u: number): number => mu - beta * Math.log(-Math.log1p(-u));
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => q(rng.nextDouble()), q);
  }),
  impl('Laplace', (ctx) => {
    positive(ctx, 'b');
    const mu = ctx.params.double('mu');
    const b = ctx.params.double('b');
    const q = (p: number): number => {
      const u = p - 0.5;
      return mu - b * Math.sign(u) * Math.log(1 - 2 * Math.abs(u));
    };
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => q(rng.nextDouble()), q);
  }),
  impl('Logistic', (ctx) => {
    positive(ctx, 's');
    const mu = ctx.params.double('mu');
    const s = ctx.params.double('s');
    const q = (u: number): number => mu + s * Math.log(u / (1 - u));
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => q(rng.nextDouble()), q);
  }),
  impl('Pareto', (ctx) => {
    positive(ctx, 'scale', 'shape');
    const xm = ctx.params.double('scale');
    const alpha = ctx.params.double('shape');
    const q = (u: number): number => xm / Math.pow(1 - u, 1 / alpha);
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => q(rng.nextDouble()), q);
  }),
  impl('Weibull', (ctx) => {
    positive(ctx, 'shape', 'scale');
    const k = ctx.params.double('shape');
    const lambda = ctx.params.double('scale');
    const q = (u: number): number => lambda * Math.pow(-Math.log1p(-u), 1 / k);
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => q(rng.nextDouble()), q);
  }),
  impl('Triangular', (ctx) => {
    const a = ctx.params.double('min');
    const c = ctx.params.double('mode');
    const b = ctx.params.double('max');
    if (!(a <= c && c <= b && a < b)) ctx.params.reject('needs min <= mode <= max and min < max');
    const fc = (c - a) / (b - a);
    const q = (u: number): number =>
      u < fc ? a + Math.sqrt(u * (b - a) * (c - a)) : b - Math.sqrt((1 - u) * (b - a) * (b - c));
    const { rng } = ctx;
    return scalarNode(ctx, DOUBLE, () => q(rng.nextDouble()), q);
  }),
  impl('InverseGaussian', (ctx) => {
    positive(ctx, 'mu', 'lambda');
    const mu = ctx.params.double('mu');
    const lambda = ctx.params.double('lambda');
    const { rng } = ctx;
    // Michael, Schucany & Haas: one Gaussian and one uniform per value.
    return scalarNode(ctx, DOUBLE, () => {
      const n = rng.nextGaussian();
      const y = n * n;
      const x =
        mu +
        (mu * mu * y) / (2 * lambda) -
        (mu / (2 * lambda)) * Math.sqrt(4 * mu * lambda * y + mu * mu * y * y);
      return rng.nextDouble() <= mu / (mu + x) ? x : (mu * mu) / x;
    });
  }),
  impl('VonMises', (ctx) => {
    const mu = ctx.params.double('mu');
    const kappa = ctx.params.double('kappa');
    if (!(kappa >= 0)) ctx.params.reject('kappa must be >= 0');
    const { rng } = ctx;
    // Best & Fisher (1979); kappa ~ 0 degenerates to the uniform circle.
    const tau = 1 + Math.sqrt(1 + 4 * kappa * kappa);
    const rho = (tau - Math.sqrt(2 * tau)) / (2 * kappa);
    const r = (1 + rho * rho) / (2 * rho);
    return scalarNode(ctx, DOUBLE, () => {
      if (kappa < 1e-8) return mu + Math.PI * (2 * rng.nextDouble() - 1);
      for (;;) {
        const z = Math.cos(Math.PI * rng.nextDouble());
        const f = (1 + r * z) / (r + z);
        const c = kappa * (r - f);
        const u2 = rng.nextDouble();
        if (c * (2 - c) - u2 > 0 || Math.log(c / u2) + 1 - c >= 0) {
          const theta = Math.sign(rng.nextDouble() - 0.5) * Math.acos(f);
          let v = mu + theta;
          // Wrap into (-pi, pi].
          v = ((((v + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) - Math.PI;
          return v;
        }
      }
    });
  }),
];
