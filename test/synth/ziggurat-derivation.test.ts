/**
 * The ziggurat tables derived from McFarland's construction (J. Stat. Comput. Simul. 86(7), 2016)
 * and checked against the constants the engine draws with (the JDK's own, see
 * src/synth/random/ziggurat-tables.ts). The engine keeps the JDK's literals because a byte-identical
 * stream needs every last bit: a double-precision derivation lands within a few ulps of them (the
 * JDK's were computed in extended precision, and even a correctly rounded derivation differs from
 * them in the last bit at 3 of the 253 exponential x values). What this proves is that the tables
 * are the paper's ziggurat for each density, that the alias tables sample its tail and overhangs
 * with the right probabilities, and that the early-accept margins are sound.
 *
 * The construction: N rectangles under the density f, each of area A = (total area) / 256, stacked
 * from the bottom. The widest spans [0, X0] with X0·f(X0) = A; rectangle i spans [0, Xi] at heights
 * f(X(i-1))..f(Xi) with Xi·(f(Xi) − f(X(i−1))) = A; X_N = 0 closes the top. A draw takes rectangle
 * i with probability 1/256 (the low byte of the word); the other 256 − N bytes go to the alias table,
 * which picks the tail beyond X0 or one of the N overhangs (the bits of curve between consecutive
 * rectangles' right edges) in proportion to their areas, which add up to (256 − N)·A.
 */
import { describe, expect, it } from 'vitest';
import {
  EXPONENTIAL_TABLES,
  NORMAL_TABLES,
  type RawZigguratTables,
} from '../../src/synth/random/ziggurat-tables.js';

const TWO_63 = 2 ** 63;
const view = new DataView(new ArrayBuffer(8));
const hexToDouble = (hex: string): number => {
  view.setBigUint64(0, BigInt('0x' + hex));
  return view.getFloat64(0);
};
const hexToSigned = (hex: string): bigint => BigInt.asIntN(64, BigInt('0x' + hex));

/** Distance in units in the last place between two positive doubles. */
function ulps(a: number, b: number): number {
  view.setFloat64(0, a);
  const ia = view.getBigInt64(0);
  view.setFloat64(0, b);
  return Number(ia - view.getBigInt64(0));
}

interface Density {
  name: string;
  f: (x: number) => number;
  /** f'(x), for Newton's method. */
  df: (x: number) => number;
  /** Area under f over [0, ∞). */
  total: number;
  /** Area under f over [a, ∞). */
  tail: (a: number) => number;
  tables: RawZigguratTables;
}

/** ∫ f over [a, b] by composite Gauss–Legendre (5 points, 64 panels): ~1e-16 relative here. */
function integrate(f: (x: number) => number, a: number, b: number): number {
  const nodes = [0, -0.5384693101056831, 0.5384693101056831, -0.906179845938664, 0.906179845938664];
  const weights = [
    0.5688888888888889, 0.47862867049936647, 0.47862867049936647, 0.23692688505618908, 0.23692688505618908,
  ];
  const panels = 64;
  const h = (b - a) / panels;
  let sum = 0;
  for (let p = 0; p < panels; p++) {
    const mid = a + (p + 0.5) * h;
    for (let k = 0; k < 5; k++) sum += weights[k]! * f(mid + (nodes[k]! * h) / 2);
  }
  return (sum * h) / 2;
}

/** Solves g(x) = 0 by Newton’s method from x. */
function newton(g: (x: number) => number, dg: (x: number) => number, x: number): number {
  for (let k = 0; k < 100; k++) {
    const step = g(x) / dg(x);
    x -= step;
    if (Math.abs(step) <= 1e-17 * Math.abs(x)) break;
  }
  return x;
}

/** The paper's layer boundaries X0 > X1 > … > X_N = 0 for N rectangles of area total/256. */
function deriveBoundaries(
  d: Density,
  layers: number,
  start?: number,
  previous?: (i: number) => number,
): number[] {
  const area = d.total / 256;
  // X0: the larger root of x·f(x) = A, right of the maximum of x·f(x).
  const x0 =
    start ??
    newton(
      (x) => x * d.f(x) - area,
      (x) => d.f(x) + x * d.df(x),
      d.name === 'normal' ? 4 : 8,
    );
  const xs = [x0];
  for (let i = 1; i < layers; i++) {
    // each boundary from the one below it: ours, or (to check one step at a time) the table's
    const fPrev = d.f(previous ? previous(i - 1) : xs[i - 1]!);
    xs.push(
      newton(
        (x) => x * (d.f(x) - fPrev) - area,
        (x) => d.f(x) - fPrev + x * d.df(x),
        (previous ? previous(i - 1) : xs[i - 1]!) * 0.97,
      ),
    );
  }
  xs.push(0);
  return xs;
}

/** Region areas as the alias table should weigh them: [tail, overhang 1, …, overhang N]. */
function regionAreas(d: Density, xs: number[]): number[] {
  const areas = [d.tail(xs[0]!)];
  for (let j = 1; j < xs.length; j++) {
    const [lo, hi] = [xs[j]!, xs[j - 1]!];
    areas.push(integrate(d.f, lo, hi) - (hi - lo) * d.f(hi));
  }
  return areas;
}

/** Probability of each region under the table's alias sampling (one slot of 256, then a signed
 *  64-bit word below the slot's threshold keeps the slot, otherwise its alias). */
function aliasProbabilities(t: RawZigguratTables): number[] {
  const p = new Array<number>(t.numberOfLayers + 1).fill(0);
  t.aliasThreshold.forEach((hex, slot) => {
    const keep = Number(hexToSigned(hex) + 2n ** 63n) / 2 ** 64;
    if (slot < p.length) p[slot]! += keep / 256;
    p[t.aliasMap[slot]! & 0xff]! += (1 - keep) / 256;
  });
  return p;
}

const exponential: Density = {
  name: 'exponential',
  f: (x) => Math.exp(-x),
  df: (x) => -Math.exp(-x),
  total: 1,
  tail: (a) => Math.exp(-a),
  tables: EXPONENTIAL_TABLES,
};
const normal: Density = {
  name: 'normal',
  f: (x) => Math.exp(-0.5 * x * x),
  df: (x) => -x * Math.exp(-0.5 * x * x),
  total: Math.sqrt(Math.PI / 2),
  // beyond 40 the density is below 1e-347: zero in doubles
  tail: (a) =>
    integrate((x) => Math.exp(-0.5 * x * x), a, a + 4) + integrate((x) => Math.exp(-0.5 * x * x), a + 4, 40),
  tables: NORMAL_TABLES,
};

describe.each([exponential, normal])('the $name ziggurat follows McFarland’s construction', (d) => {
  const t = d.tables;
  const layers = t.numberOfLayers;
  const x = t.x.map(hexToDouble);
  const y = t.y.map(hexToDouble);
  const derived = deriveBoundaries(d, layers);

  it('has one rectangle per layer, each of area total/256, bounded by the derived X values', () => {
    expect(x).toHaveLength(layers + 1);
    expect(hexToDouble(t.x0)).toBe(x[0]! * TWO_63); // the tables are scaled by 2^-63 (exact)
    expect(x[layers]).toBe(0);
    // The whole recursion in doubles: the steps near the top (x → 0) are ill-conditioned, so the
    // error grows to a few parts in 10^14 there.
    derived.forEach((xi, i) => {
      if (xi !== 0) expect(Math.abs(x[i]! * TWO_63 - xi) / xi).toBeLessThan(1e-12);
    });
    // One step at a time, from the table's own previous boundary: within a few ulps everywhere.
    const oneStep = [
      x[0]! * TWO_63,
      ...deriveBoundaries(d, layers, x[0]! * TWO_63, (i) => x[i]! * TWO_63).slice(1),
    ];
    let worst = 0;
    for (let i = 0; i < layers; i++) worst = Math.max(worst, Math.abs(ulps(x[i]! * TWO_63, oneStep[i]!)));
    expect(worst).toBeLessThanOrEqual(4);
    for (let i = 0; i < layers; i++) {
      const xi = x[i]! * TWO_63;
      const below = i === 0 ? 0 : d.f(x[i - 1]! * TWO_63);
      expect(xi * (d.f(xi) - below)).toBeCloseTo(d.total / 256, 14);
    }
  });

  it('stores f at each boundary as the y table', () => {
    y.forEach((yi, i) => {
      const expected = d.f(x[i]! * TWO_63);
      expect(Math.abs(yi * TWO_63 - expected)).toBeLessThanOrEqual(8 * Number.EPSILON * expected);
    });
  });

  it('samples the tail and the overhangs in proportion to their areas through the alias table', () => {
    const areas = regionAreas(
      d,
      x.map((v) => v * TWO_63),
    );
    const aliasTotal = areas.reduce((a, b) => a + b, 0);
    // what the rectangles leave over is exactly the 256 − N slots' share
    expect(aliasTotal).toBeCloseTo(((256 - layers) * d.total) / 256, 12);
    const p = aliasProbabilities(t);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    areas.forEach((area, r) => expect(p[r]!).toBeCloseTo(area / aliasTotal, 9));
  });

  it('accepts early only points that are under (convex) or over (concave) the curve', () => {
    // Sample overhang j at 63-bit fractions: x = lerp(x, u1), y = lerp(y, u2). In a convex layer a
    // point with u2 − u1 ≥ convexMargin is under the curve; in a concave one, a point with
    // u1 − u2 ≥ concaveMargin is over it. Check both on a grid of u1 across every such layer.
    const lerp = (v: number[], j: number, u: number): number => v[j]! * TWO_63 + (v[j - 1]! - v[j]!) * u;
    const convex = Number(BigInt('0x' + t.convexMargin));
    const concave = t.concaveMargin === undefined ? undefined : Number(BigInt('0x' + t.concaveMargin));
    const inflection = t.inflectionIndex ?? layers + 1;
    let checked = 0;
    for (let j = 1; j <= layers; j++) {
      for (let k = 0; k <= 64; k++) {
        const u1 = (k / 64) * (TWO_63 - 1);
        if (j < inflection) {
          const u2 = u1 + convex;
          if (u2 >= TWO_63) continue;
          expect(lerp(y, j, u2)).toBeLessThanOrEqual(d.f(lerp(x, j, u1)));
          checked++;
        } else if (j > inflection && concave !== undefined) {
          const u2 = u1 - concave;
          if (u2 < 0) continue;
          expect(lerp(y, j, u2)).toBeGreaterThanOrEqual(d.f(lerp(x, j, u1)));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
