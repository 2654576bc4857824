/**
 * Brent's method (1973): the root of a function of one variable inside a bracket whose ends have
 * values of opposite sign. Inverse quadratic interpolation and the secant step where they are
 * safe, bisection where they are not, so it never does worse than bisection and converges
 * superlinearly on smooth functions. Written as a generator: it yields each point it wants
 * evaluated and receives the value there, so the caller (who evaluates a model asynchronously,
 * under budgets) decides when to stop. No npm package offers Brent in a form we can load
 * (docs/solve.md says why).
 */

export interface BrentOptions {
  /** Stop when the bracket is narrower than this. */
  xTolerance: number;
  /** Stop when |f| at the best point is at most this. */
  fTolerance: number;
}

export interface BrentOutcome {
  /** The best estimate of the root and its value. */
  x: number;
  fx: number;
  /** The other end of the final bracket (f there has the other sign, or is zero). */
  other: number;
  fOther: number;
}

const EPSILON = Number.EPSILON;

/**
 * Yields points to evaluate; `fa` and `fb` are f at `a` and `b` and must not have the same sign.
 * A NaN received ends the search (the caller's function failed there) with the bracket so far.
 */
export function* brentRoot(
  a: number,
  fa: number,
  b: number,
  fb: number,
  options: BrentOptions,
): Generator<number, BrentOutcome, number> {
  if (fa * fb > 0) throw new RangeError('brentRoot needs a bracket whose ends differ in sign');
  let c = b;
  let fc = fb;
  let d = b - a;
  let e = d;
  for (;;) {
    if ((fb > 0 && fc > 0) || (fb < 0 && fc < 0)) {
      // the root is between a and b: c takes a's place
      c = a;
      fc = fa;
      d = b - a;
      e = d;
    }
    if (Math.abs(fc) < Math.abs(fb)) {
      // b is always the best estimate so far
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const tol = 2 * EPSILON * Math.abs(b) + 0.5 * options.xTolerance;
    const half = 0.5 * (c - b);
    if (Math.abs(half) <= tol || Math.abs(fb) <= options.fTolerance || fb === 0)
      return { x: b, fx: fb, other: c, fOther: fc };
    if (Math.abs(e) >= tol && Math.abs(fa) > Math.abs(fb)) {
      // interpolate: secant when a and c coincide, inverse quadratic otherwise
      const s = fb / fa;
      let p: number;
      let q: number;
      if (a === c) {
        p = 2 * half * s;
        q = 1 - s;
      } else {
        const qa = fa / fc;
        const r = fb / fc;
        p = s * (2 * half * qa * (qa - r) - (b - a) * (r - 1));
        q = (qa - 1) * (r - 1) * (s - 1);
      }
      if (p > 0) q = -q;
      p = Math.abs(p);
      const limit1 = 3 * half * q - Math.abs(tol * q);
      const limit2 = Math.abs(e * q);
      if (2 * p < Math.min(limit1, limit2)) {
        e = d;
        d = p / q;
      } else {
        d = half; // the interpolation would leave the bracket or converge too slowly: bisect
        e = d;
      }
    } else {
      d = half;
      e = d;
    }
    a = b;
    fa = fb;
    b += Math.abs(d) > tol ? d : half > 0 ? tol : -tol;
    fb = yield b;
    if (Number.isNaN(fb)) return { x: a, fx: fa, other: c, fOther: fc };
  }
}
