/**
 * An independent check of a sample of the golden-draw vectors: for seed 1, the JDK's own first
 * draws (nextDouble, nextGaussian, nextExponential, recorded from a real JDK in
 * test/golden/jdk-vectors.json) pushed through each distribution's textbook closed form must give
 * the committed vectors. So the vectors were not only produced by our code, they agree with a JDK
 * stream and the published quantile functions. Needs neither ../shared nor a JDK.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ComponentVectors } from './golden-draws/harness.js';
import { VECTOR_DIR } from './golden-draws/harness.js';

interface JdkFirst {
  seed: string;
  nextDouble: string[];
  nextGaussian: string[];
  nextExponential: string[];
}
const JDK = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'golden', 'jdk-vectors.json'), 'utf8')) as {
    first: JdkFirst[];
  }
).first.find((f) => f.seed === '1')!;

const fromBits = (hex: string): number => Buffer.from(hex, 'hex').readDoubleBE(0);
const U = JDK.nextDouble.map(fromBits);
const G = JDK.nextGaussian.map(fromBits);
const E = JDK.nextExponential.map(fromBits);

/** The seed-1 raw values of one family: one number per row (first column). */
function pinned(component: string, family: string): number[] {
  const v = JSON.parse(readFileSync(join(VECTOR_DIR, `${component}.json`), 'utf8')) as ComponentVectors;
  const rows = v.families.find((f) => f.family === family)!.seeds.find((s) => s.seed === '1')!.raw;
  return rows.map((r) => {
    const cell = r[0]!;
    return typeof cell === 'number' ? cell : fromBits((cell as { d: string }).d);
  });
}

type Case = [
  component: string,
  family: string,
  source: number[],
  quantile: (x: number) => number,
  exact: boolean,
];
const CASES: Case[] = [
  ['Uniform', 'min-max', U, (u) => -3.5 + (12 - -3.5) * u, true],
  ['Normal', 'mean-sigma', G, (g) => 72 + 8 * g, true],
  ['Lognormal', 'mu-sigma', G, (g) => Math.exp(1.5 + 0.4 * g), true],
  ['Exponential', 'lambda', E, (e) => e / 0.25, true],
  // F^-1(u) = scale (-ln(1 - u))^(1/shape)
  ['Weibull', 'defaults', U, (u) => -Math.log1p(-u), true],
  ['Weibull', 'shape-scale', U, (u) => 2 * (-Math.log(1 - u)) ** (1 / 1.5), false],
  ['Weibull', 'shape-below-one', U, (u) => 10 * (-Math.log(1 - u)) ** (1 / 0.6), false],
  // Gumbel drawn as mu - beta ln(-ln(1 - u)) (1 - u is uniform too)
  ['Gumbel', 'mu-beta', U, (u) => 10 - 2.5 * Math.log(-Math.log(1 - u)), false],
  ['Logistic', 'mu-s', U, (u) => 4 + 1.7 * Math.log(u / (1 - u)), false],
  [
    'Laplace',
    'mu-b',
    U,
    (u) => (u < 0.5 ? -2 + 0.5 * Math.log(2 * u) : -2 - 0.5 * Math.log(2 - 2 * u)),
    false,
  ],
  ['Pareto', 'scale-shape', U, (u) => 3 * (1 - u) ** (-1 / 2.5), false],
  ['Bernoulli', 'p', U, (u) => (u < 0.2 ? 1 : 0), true],
  ['Geometric', 'p', U, (u) => Math.max(1, Math.ceil(Math.log(1 - u) / Math.log(1 - 0.08))), true],
];

describe('golden-draw vectors against JDK draws and closed forms (seed 1)', () => {
  it('the JDK record has the draws this test needs', () => {
    expect(U.length).toBeGreaterThanOrEqual(8);
    expect(G.length).toBeGreaterThanOrEqual(8);
    expect(E.length).toBeGreaterThanOrEqual(8);
  });

  it.each(CASES)(
    '%s %s: the first rows are the closed form of the JDK draws',
    (component, family, source, q, exact) => {
      const ours = pinned(component, family).slice(0, source.length);
      const oracle = source.map(q);
      if (exact) expect(ours).toEqual(oracle);
      // pow and log may round the last bit differently from one formula to another
      else
        ours.forEach((v, i) =>
          expect(Math.abs(v - oracle[i]!), `row ${i}`).toBeLessThanOrEqual(Math.abs(oracle[i]!) * 1e-14),
        );
    },
  );
});
