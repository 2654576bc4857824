/**
 * Nelder–Mead (1965), the downhill simplex: a derivative-free minimiser of a function of several
 * variables. Bounded by a transform: the simplex moves in an unbounded space z and each point it
 * proposes is x = lower + (upper − lower)(1 + sin z)/2, always inside the box and able to reach
 * its faces. (Clamping into the box instead let the simplex collapse onto a face and stall short
 * of the minimum there, test/calc/solve-methods.test.ts has the case.) It only ever
 * compares two values, never does arithmetic on them, so the values may be any totally ordered
 * kind (the solver's lexicographic score: constraint violation first, then the target's gap, then
 * the objective). A generator like brentRoot: it yields points and receives their values.
 * Standard coefficients (reflection 1, expansion 2, contraction 1/2, shrink 1/2).
 */

export interface NelderMeadOptions<T> {
  /** Lower and upper bounds of each coordinate. */
  lower: readonly number[];
  upper: readonly number[];
  /** The initial simplex's edge along each axis (in the box's units, about). */
  step: number;
  /** Stop when every vertex is within this of the best one (in every coordinate). */
  xTolerance: number;
  /** Negative when a is better than b, positive when worse, 0 when equal. */
  compare: (a: T, b: T) => number;
}

export interface NelderMeadOutcome<T> {
  x: number[];
  fx: T;
}

interface Vertex<T> {
  /** Where the simplex has it, and the box point evaluated. */
  z: number[];
  x: number[];
  fx: T;
}

/** The box's point for a simplex point (clamped too: rounding may step a hair past a face). */
function boxPoint(z: readonly number[], lower: readonly number[], upper: readonly number[]): number[] {
  return z.map((t, i) => {
    const x = lower[i]! + ((upper[i]! - lower[i]!) * (1 + Math.sin(t))) / 2;
    return Math.min(upper[i]!, Math.max(lower[i]!, x));
  });
}

/** The simplex point of a box point (the inverse transform on [−π/2, π/2]). */
function simplexPoint(x: readonly number[], lower: readonly number[], upper: readonly number[]): number[] {
  return x.map((v, i) => {
    const width = upper[i]! - lower[i]!;
    const u = width > 0 ? (2 * (v - lower[i]!)) / width - 1 : 0;
    return Math.asin(Math.min(1, Math.max(-1, u)));
  });
}

/** Yields the start point and then each point the simplex moves to; returns the best vertex. */
export function* nelderMead<T>(
  start: readonly number[],
  options: NelderMeadOptions<T>,
): Generator<number[], NelderMeadOutcome<T>, T> {
  const { lower, upper, compare } = options;
  const n = start.length;
  const evaluate = function* (z: number[]): Generator<number[], Vertex<T>, T> {
    const point = boxPoint(z, lower, upper);
    return { z, x: point, fx: yield point };
  };
  const first = yield* evaluate(simplexPoint(start, lower, upper));
  const simplex: Vertex<T>[] = [first];
  for (let i = 0; i < n; i++) {
    // the step in z that moves x by about `step` at the centre of the box (dx/dz = width / 2 there)
    const width = upper[i]! - lower[i]!;
    const z = [...first.z];
    z[i] = z[i]! + (width > 0 ? (2 * options.step) / width : 1);
    simplex.push(yield* evaluate(z));
  }
  const order = (): void => {
    simplex.sort((a, b) => compare(a.fx, b.fx));
  };
  for (;;) {
    order();
    const best = simplex[0]!;
    const size = Math.max(...simplex.slice(1).flatMap((v) => v.x.map((c, i) => Math.abs(c - best.x[i]!))));
    if (size <= options.xTolerance) return { x: best.x, fx: best.fx };
    const worst = simplex[n]!;
    const centroid = new Array<number>(n).fill(0);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) centroid[i]! += simplex[j]!.z[i]! / n;
    const along = (t: number): number[] => centroid.map((c, i) => c + t * (c - worst.z[i]!));
    const reflected = yield* evaluate(along(1));
    if (compare(reflected.fx, best.fx) < 0) {
      const expanded = yield* evaluate(along(2));
      simplex[n] = compare(expanded.fx, reflected.fx) < 0 ? expanded : reflected;
      continue;
    }
    if (compare(reflected.fx, simplex[n - 1]!.fx) < 0) {
      simplex[n] = reflected;
      continue;
    }
    // contract: outside when the reflection beat the worst, inside otherwise
    const outside = compare(reflected.fx, worst.fx) < 0;
    const contracted = yield* evaluate(along(outside ? 0.5 : -0.5));
    if (compare(contracted.fx, outside ? reflected.fx : worst.fx) < 0) {
      simplex[n] = contracted;
      continue;
    }
    // shrink every vertex halfway towards the best
    for (let j = 1; j <= n; j++) {
      const z = simplex[j]!.z.map((c, i) => best.z[i]! + 0.5 * (c - best.z[i]!));
      simplex[j] = yield* evaluate(z);
    }
  }
}
