/**
 * Normal and exponential deviates by McFarland's modified ziggurat (2016), drawing from the word
 * stream exactly as JDK 17+ `nextGaussian()` / `nextExponential()` do. About 99% of calls take the
 * fast path (one word, one multiply, no allocation); the rest sample the tail or an overhang, chosen
 * by a Walker alias table, and use BigInt for the 63-bit coordinate arithmetic.
 */
import { joinSigned, signedToDouble } from './int64.js';
import type { WordSource } from './random-source.js';
import type { RawZigguratTables } from './ziggurat-tables.js';
import { EXPONENTIAL_TABLES, NORMAL_TABLES } from './ziggurat-tables.js';

interface Tables {
  readonly layers: number;
  readonly x0: number;
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly thresholdHi: Int32Array;
  readonly thresholdLo: Uint32Array;
  readonly aliasMap: Uint8Array;
  readonly convexMargin: bigint;
  readonly concaveMargin: bigint;
  readonly inflectionIndex: number;
}

const bitsView = new DataView(new ArrayBuffer(8));

function hexToDouble(hex: string): number {
  bitsView.setBigUint64(0, BigInt('0x' + hex));
  return bitsView.getFloat64(0);
}

function decode(raw: RawZigguratTables): Tables {
  const words = raw.aliasThreshold.map((h) => BigInt.asIntN(64, BigInt('0x' + h)));
  return {
    layers: raw.numberOfLayers,
    x0: hexToDouble(raw.x0),
    x: Float64Array.from(raw.x, hexToDouble),
    y: Float64Array.from(raw.y, hexToDouble),
    thresholdHi: Int32Array.from(words, (w) => Number(BigInt.asIntN(32, w >> 32n))),
    thresholdLo: Uint32Array.from(words, (w) => Number(BigInt.asUintN(32, w))),
    aliasMap: Uint8Array.from(raw.aliasMap, (v) => v & 0xff),
    convexMargin: BigInt('0x' + raw.convexMargin),
    concaveMargin: raw.concaveMargin === undefined ? 0n : BigInt('0x' + raw.concaveMargin),
    inflectionIndex: raw.inflectionIndex ?? 0,
  };
}

const EXP = decode(EXPONENTIAL_TABLES);
const NORM = decode(NORMAL_TABLES);
const TWO_POW_63 = 9223372036854775808;

/** Next word shifted right by one: a uniform 63-bit non-negative BigInt. */
function next63(rng: WordSource): bigint {
  rng.step();
  return BigInt.asUintN(64, joinSigned(rng.hi, rng.lo)) >> 1n;
}

/** Layer index from the alias table: the tail (0) or one of the overhangs. */
function aliasLayer(rng: WordSource, t: Tables): number {
  rng.step();
  const j = rng.lo & 0xff;
  const th = t.thresholdHi[j]!;
  // Signed 64-bit comparison UA >= threshold[j], word by word.
  if (rng.hi > th || (rng.hi === th && rng.lo >>> 0 >= t.thresholdLo[j]!)) return t.aliasMap[j]!;
  return j;
}

/** Point on the segment between table entries j and j-1, at the 63-bit fraction u. */
function lerp(v: Float64Array, j: number, u: bigint): number {
  return v[j]! * TWO_POW_63 + (v[j - 1]! - v[j]!) * Number(u);
}

/** (hi:lo) >>> 1 as a double, rounded once like Java's `(double) (U >>> 1)`. */
function shiftedToDouble(hi: number, lo: number): number {
  return (hi >>> 0) * 2147483648 + (lo >>> 1);
}

/** One exponential deviate (mean 1) drawn as the JDK does. */
export function nextExponential(rng: WordSource): number {
  rng.step();
  let i = rng.lo & 0xff;
  if (i < EXP.layers) return EXP.x[i]! * shiftedToDouble(rng.hi, rng.lo);
  let u1 = BigInt.asUintN(64, joinSigned(rng.hi, rng.lo)) >> 1n;
  let extra = 0;
  for (;;) {
    const j = aliasLayer(rng, EXP);
    if (j > 0) return overhangConvex(rng, EXP, j, u1, expNeg) + extra;
    // Tail: the exponential is memoryless, so sample afresh and shift by x0.
    extra += EXP.x0;
    rng.step();
    i = rng.lo & 0xff;
    if (i < EXP.layers) return EXP.x[i]! * shiftedToDouble(rng.hi, rng.lo) + extra;
    u1 = BigInt.asUintN(64, joinSigned(rng.hi, rng.lo)) >> 1n;
  }
}

function expNeg(x: number): number {
  return Math.exp(-x);
}

function gaussDensity(x: number): number {
  return Math.exp(-0.5 * x * x);
}

/**
 * Samples a convex overhang: points above the chord are reflected below it, points far below the
 * chord (beyond the margin) are accepted without evaluating the density.
 */
function overhangConvex(rng: WordSource, t: Tables, j: number, u1: bigint, f: (x: number) => number): number {
  for (;;) {
    let u2 = next63(rng);
    let diff = u2 - u1;
    if (diff < 0n) {
      diff = -diff;
      u2 = u1;
      u1 -= diff;
    }
    const x = lerp(t.x, j, u1);
    if (diff >= t.convexMargin) return x;
    if (lerp(t.y, j, u2) <= f(x)) return x;
    u1 = next63(rng);
  }
}

/** One standard normal deviate drawn as the JDK does. */
export function nextGaussian(rng: WordSource): number {
  rng.step();
  const i = rng.lo & 0xff;
  if (i < NORM.layers) return NORM.x[i]! * signedToDouble(rng.hi, rng.lo);
  const firstHi = rng.hi;
  let u1 = joinSigned(rng.hi, rng.lo) & 0x7fffffffffffffffn;
  let x: number;
  const j = aliasLayer(rng, NORM);
  if (j < NORM.inflectionIndex && j > 0) {
    // Layers between the tail and the inflection point lie where the density is convex.
    x = overhangConvex(rng, NORM, j, u1, gaussDensity);
  } else if (j === 0) {
    // Tail beyond x0 (Marsaglia): two exponentials per attempt.
    for (;;) {
      x = (1 / NORM.x0) * nextExponential(rng);
      if (nextExponential(rng) > 0.5 * x * x) break;
    }
    x += NORM.x0;
  } else if (j > NORM.inflectionIndex) {
    // Concave overhang: points below the chord are always under the curve; points above it by
    // more than the margin never are.
    for (;;) {
      const u2 = next63(rng);
      const diff = u2 - u1;
      x = lerp(NORM.x, j, u1);
      if (diff >= 0n) break;
      if (-diff < NORM.concaveMargin && lerp(NORM.y, j, u2) <= gaussDensity(x)) break;
      u1 = next63(rng);
    }
  } else {
    // The inflection layer is neither convex nor concave: plain rejection.
    for (;;) {
      const u2 = next63(rng);
      x = lerp(NORM.x, j, u1);
      if (lerp(NORM.y, j, u2) <= gaussDensity(x)) break;
      u1 = next63(rng);
    }
  }
  return firstHi < 0 ? -x : x;
}
