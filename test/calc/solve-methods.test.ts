/**
 * The solver's numerical methods against closed forms (issue 46): Brent's root of Wallis's cubic
 * and of cos x = x, in fewer evaluations than bisection; Nelder–Mead's minimum of Rosenbrock's
 * function and of a bowl whose centre lies outside the box (projection puts it on the bound); the
 * search plan's grid rounding and neighbourhood check, and its determinism for one random source.
 */
import { describe, expect, it } from 'vitest';
import { brentRoot } from '../../src/calc/solve/brent.js';
import { nelderMead } from '../../src/calc/solve/nelder-mead.js';
import { compareScores, search, snap, type Score, type SolveVariable } from '../../src/calc/solve/search.js';

/** Runs a yield-a-point generator against a plain function; returns its outcome and the evaluations. */
function drive<P, V, R>(run: Generator<P, R, V>, f: (p: P) => V): { outcome: R; evaluations: number } {
  let evaluations = 0;
  let next = run.next();
  while (!next.done) {
    evaluations++;
    next = run.next(f(next.value));
  }
  return { outcome: next.value, evaluations };
}

function rootOf(f: (x: number) => number, a: number, b: number) {
  return drive(brentRoot(a, f(a), b, f(b), { xTolerance: 1e-14, fTolerance: 0 }), f);
}

/** A seeded uniform source (mulberry32), for the tests only. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("Brent's method", () => {
  it("finds the root of Wallis's cubic x³ − 2x − 5 and of cos x − x to the last digits", () => {
    const wallis = rootOf((x) => x ** 3 - 2 * x - 5, 2, 3);
    expect(wallis.outcome.x).toBeCloseTo(2.0945514815423265, 13);
    const dottie = rootOf((x) => Math.cos(x) - x, 0, 1);
    expect(dottie.outcome.x).toBeCloseTo(0.7390851332151607, 13);
    // bisection needs log2(1 / 1e-14) ≈ 47 halvings for the same bracket
    expect(wallis.evaluations).toBeLessThan(15);
    expect(dottie.evaluations).toBeLessThan(15);
  });

  it('closes on a straight line in a few steps', () => {
    const line = rootOf((x) => 3 * x - 7, -100, 100);
    expect(Math.abs(line.outcome.fx)).toBeLessThan(1e-13);
    expect(line.outcome.x).toBeCloseTo(7 / 3, 14);
    expect(line.evaluations).toBeLessThanOrEqual(3);
  });

  it('falls back on bisection for a step function and still closes the bracket', () => {
    const step = rootOf((x) => (x < 0.3 ? -1 : 1), 0, 1);
    expect(Math.abs(step.outcome.x - 0.3)).toBeLessThan(1e-13);
  });

  it('refuses ends of the same sign', () => {
    expect(() => brentRoot(0, 1, 1, 2, { xTolerance: 1e-9, fTolerance: 0 }).next()).toThrow(RangeError);
  });
});

describe('Nelder–Mead', () => {
  const numeric = (a: number, b: number) => a - b;

  it("finds Rosenbrock's minimum at (1, 1)", () => {
    const rosenbrock = ([x, y]: number[]) => 100 * (y! - x! * x!) ** 2 + (1 - x!) ** 2;
    const { outcome } = drive(
      nelderMead([-1.2, 1], {
        lower: [-2, -2],
        upper: [2, 2],
        step: 0.5,
        xTolerance: 1e-10,
        compare: numeric,
      }),
      rosenbrock,
    );
    expect(outcome.x[0]).toBeCloseTo(1, 5);
    expect(outcome.x[1]).toBeCloseTo(1, 5);
  });

  it('keeps every point in the box: a bowl centred outside ends on the bound, at the minimum along it', () => {
    const seen: number[][] = [];
    const { outcome } = drive(
      nelderMead([0.5, 0.5], {
        lower: [0, 0],
        upper: [2, 1],
        step: 0.3,
        xTolerance: 1e-10,
        compare: numeric,
      }),
      (p: number[]) => (seen.push(p), (p[0]! - 5) ** 2 + (p[1]! - 0.25) ** 2),
    );
    expect(seen.every(([x, y]) => x! >= 0 && x! <= 2 && y! >= 0 && y! <= 1)).toBe(true);
    expect(outcome.x[0]).toBe(2);
    expect(outcome.x[1]).toBeCloseTo(0.25, 6);
  });
});

describe('the search plan', () => {
  const score = (value: number): Score => ({ violation: 0, gap: 0, objective: value });

  it('rounds stepped values to their grid inside the bounds', () => {
    const v: SolveVariable = { min: 0.05, max: 1, step: 0.1, start: 0.5 };
    expect(snap(v, 0.34)).toBe(0.3);
    expect(snap(v, 0.01)).toBe(0.1);
    expect(snap(v, 7)).toBe(1);
    expect(snap({ min: 1, max: 10, start: 1 }, 0.5)).toBe(1);
  });

  it('finds an integer optimum that rounding the continuous one misses (the neighbourhood check)', () => {
    // minimum of the continuous function at (2.5, 2.5) exactly between grid points; along
    // x − y the function is steep, so the best integer point is on the diagonal: (2, 2) or (3, 3)
    const f = ([x, y]: number[]) => (x! + y! - 5) ** 2 / 10 + 5 * (x! - y!) ** 2 + 0.01 * x!;
    const vars = [0, 1].map(() => ({ min: -10, max: 10, step: 1, start: 9 }));
    const points: number[][] = [];
    drive(search({ variables: vars, bracket: false, random: seeded(1), restarts: 2 }), (p: number[]) => {
      points.push(p);
      return score(f(p));
    });
    expect(points.every((p) => p.every((c) => Number.isInteger(c)))).toBe(true);
    const best = points.reduce((a, b) => (f(b) < f(a) ? b : a));
    expect(best).toEqual([2, 2]);
  });

  it('proposes the same points for the same random source, and others for another', () => {
    const run = (seed: number) => {
      const points: number[][] = [];
      drive(
        search({
          variables: [
            { min: -3, max: 3, start: 0 },
            { min: -3, max: 3, start: 0 },
          ],
          bracket: false,
          random: seeded(seed),
          restarts: 3,
        }),
        (p: number[]) => (
          points.push(p),
          score(Math.sin(3 * p[0]!) + Math.cos(2 * p[1]!) + 0.1 * p[0]! ** 2)
        ),
      );
      return points;
    };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it('ranks a point that breaks a constraint below every point that holds them, then by the gap', () => {
    const broken = { violation: 0.001, gap: 0, objective: -1e9 };
    const missing = { violation: 0, gap: 5, objective: 0 };
    const met = { violation: 0, gap: 0, objective: 3 };
    expect([broken, missing, met].sort(compareScores)).toEqual([met, missing, broken]);
  });
});
