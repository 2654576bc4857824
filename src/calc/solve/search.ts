/**
 * How a solve searches its box: one variable with a target is bracketed (a scan for a change of
 * sign) and then closed by Brent's method; everything else, and a target no bracket was found
 * for, is minimised by bounded Nelder–Mead from the best point so far, then from a few seeded
 * random points, each followed by a finer run from the best. Stepped variables (integers, or any
 * `step`) are rounded to their grid at every evaluation and the best point's grid neighbours are
 * checked at the end. Pure and deterministic: the caller evaluates the points it yields, passes
 * the random source (seeded) and decides when to stop (budgets, a target met).
 */
import { brentRoot } from './brent.js';
import { nelderMead } from './nelder-mead.js';

export interface SolveVariable {
  min: number;
  max: number;
  /** Grid spacing: values are whole multiples of it (1 for integers); absent for continuous. */
  step?: number;
  /** Where the search starts (inside the bounds). */
  start: number;
}

/**
 * What a point scores; lower is better, compared in this order: how far the point breaks the
 * constraints (0: it holds them all), how far its output misses the target (0: met), then the
 * objective (the output to minimise, or how far an inequality target's output is from its bound).
 */
export interface Score {
  violation: number;
  gap: number;
  objective: number;
  /** The output minus the target value, for bracketing; absent where the point is infeasible. */
  signed?: number;
}

export function compareScores(a: Score, b: Score): number {
  return a.violation - b.violation || a.gap - b.gap || a.objective - b.objective;
}

export interface SearchPlan {
  variables: readonly SolveVariable[];
  /** One variable with a target value: bracket and close with Brent first. */
  bracket: boolean;
  /** Seeded uniform numbers in [0, 1) for the restart points. */
  random: () => number;
  /** How many Nelder–Mead restarts from random points. */
  restarts: number;
}

/** The grid's lowest and highest values (the bounds themselves for a continuous variable). */
export function gridEnds(v: SolveVariable): [number, number] {
  if (!v.step) return [v.min, v.max];
  return [tidy(Math.ceil(v.min / v.step - 1e-9) * v.step), tidy(Math.floor(v.max / v.step + 1e-9) * v.step)];
}

/** A multiple of a decimal step without binary noise (0.1 × 3 is 0.3, not 0.30000000000000004). */
function tidy(x: number): number {
  return Number(x.toPrecision(15));
}

/** The value a variable takes for x: clamped into its bounds and rounded to its grid. */
export function snap(v: SolveVariable, x: number): number {
  const [lo, hi] = gridEnds(v);
  const clamped = Math.min(hi, Math.max(lo, x));
  return v.step ? Math.min(hi, Math.max(lo, tidy(Math.round(clamped / v.step) * v.step))) : clamped;
}

const SCAN_POINTS = 16;
/** Nelder–Mead works on the unit box; its first simplex's edge and a polishing run's. */
const COARSE_STEP = 0.2;
const FINE_STEP = 0.02;
const UNIT_TOLERANCE = 1e-10;
/** Grid neighbours are checked all together up to this many stepped variables, one axis at a time past it. */
const FULL_NEIGHBOURHOOD = 4;

/** Yields points (one value per variable, snapped) and receives each point's score. */
export function* search(plan: SearchPlan): Generator<number[], void, Score> {
  const vars = plan.variables;
  let best: { x: number[]; score: Score } | undefined;
  const ask = function* (x: number[]): Generator<number[], Score, Score> {
    const point = x.map((v, i) => snap(vars[i]!, v));
    const score = yield point;
    if (!best || compareScores(score, best.score) < 0) best = { x: point, score };
    return score;
  };

  let bracketed = false;
  if (plan.bracket && vars.length === 1) bracketed = yield* bracketAndClose(vars[0]!, ask);
  if (!bracketed) {
    const unitOf = (x: number[]): number[] =>
      x.map((v, i) =>
        vars[i]!.max === vars[i]!.min ? 0 : (v - vars[i]!.min) / (vars[i]!.max - vars[i]!.min),
      );
    const valueOf = (u: readonly number[]): number[] =>
      u.map((t, i) => vars[i]!.min + t * (vars[i]!.max - vars[i]!.min));
    const steps = vars.map((v) => (v.step ? v.step / (v.max - v.min) : 0));
    const tolerance = steps.every((s) => s > 0) ? 0.25 * Math.min(...steps) : UNIT_TOLERANCE;
    const minimise = function* (from: number[], step: number): Generator<number[], void, Score> {
      const run = nelderMead<Score>(unitOf(from), {
        lower: vars.map(() => 0),
        upper: vars.map(() => 1),
        step,
        xTolerance: tolerance,
        compare: compareScores,
      });
      let next = run.next();
      while (!next.done) next = run.next(yield* ask(valueOf(next.value)));
    };
    const start = best?.x ?? vars.map((v) => v.start);
    yield* minimise(start, COARSE_STEP);
    yield* minimise(best!.x, FINE_STEP);
    for (let r = 0; r < plan.restarts; r++) {
      const before = best!.score;
      yield* minimise(
        vars.map((v) => v.min + plan.random() * (v.max - v.min)),
        COARSE_STEP,
      );
      if (compareScores(best!.score, before) < 0) yield* minimise(best!.x, FINE_STEP);
    }
  }
  if (vars.some((v) => v.step)) yield* neighbourhood(vars, () => best!, ask);
}

type Ask = (x: number[]) => Generator<number[], Score, Score>;

/**
 * One variable, a target value: a scan of the bounds for two neighbouring feasible points whose
 * outputs straddle the target (the one nearest the start first), closed by Brent. False when no
 * such pair exists or a point inside the bracket turned out infeasible (Nelder–Mead takes over).
 */
function* bracketAndClose(v: SolveVariable, ask: Ask): Generator<number[], boolean, Score> {
  const [lo, hi] = gridEnds(v);
  const xs = [
    ...new Set(
      Array.from({ length: SCAN_POINTS + 1 }, (_, i) => snap(v, lo + ((hi - lo) * i) / SCAN_POINTS)),
    ),
  ];
  const scanned: { x: number; s?: number }[] = [];
  const startScore = yield* ask([v.start]);
  if (startScore.signed === 0 && startScore.violation === 0) return true;
  for (const x of xs) scanned.push({ x, s: (yield* ask([x])).signed });
  const pairs: [number, number, number, number][] = [];
  for (let i = 1; i < scanned.length; i++) {
    const a = scanned[i - 1]!;
    const b = scanned[i]!;
    if (a.s !== undefined && b.s !== undefined && a.s * b.s <= 0) pairs.push([a.x, a.s, b.x, b.s]);
  }
  if (pairs.length === 0) return false;
  const distance = (p: [number, number, number, number]): number =>
    v.start >= p[0] && v.start <= p[2] ? 0 : Math.min(Math.abs(v.start - p[0]), Math.abs(v.start - p[2]));
  pairs.sort((p, q) => distance(p) - distance(q));
  const [a, fa, b, fb] = pairs[0]!;
  if (fa === 0 || fb === 0) return true;
  const run = brentRoot(a, fa, b, fb, {
    xTolerance: v.step ? v.step : 1e-12 * Math.max(1, Math.abs(hi - lo)),
    fTolerance: 0,
  });
  let next = run.next();
  while (!next.done) {
    const score = yield* ask([next.value]);
    if (score.signed === undefined) return false;
    next = run.next(score.signed);
  }
  return true;
}

/** Moves the best point to a better grid neighbour while there is one (stepped variables only). */
function* neighbourhood(
  vars: readonly SolveVariable[],
  best: () => { x: number[]; score: Score },
  ask: Ask,
): Generator<number[], void, Score> {
  const stepped = vars.flatMap((v, i) => (v.step ? [i] : []));
  for (;;) {
    const centre = best();
    const offsets: number[][] = [];
    if (stepped.length <= FULL_NEIGHBOURHOOD) {
      let combos: number[][] = [[]];
      for (let k = 0; k < stepped.length; k++)
        combos = combos.flatMap((c) => [-1, 0, 1].map((d) => [...c, d]));
      offsets.push(...combos.filter((c) => c.some((d) => d !== 0)));
    } else {
      for (let k = 0; k < stepped.length; k++)
        for (const d of [-1, 1]) offsets.push(stepped.map((_, j) => (j === k ? d : 0)));
    }
    for (const offset of offsets) {
      const x = [...centre.x];
      stepped.forEach((i, k) => (x[i] = x[i]! + offset[k]! * vars[i]!.step!));
      yield* ask(x);
    }
    if (best() === centre) return;
  }
}
