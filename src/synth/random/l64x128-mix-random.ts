/**
 * The JDK 17 `L64X128MixRandom` generator (LXM family: a 64-bit LCG plus a xoroshiro128 generator,
 * mixed by the `lea64` finaliser), reproduced draw for draw. State lives in int32 halves so a draw
 * costs a few integer multiplies and allocates nothing.
 */
import { mulHigh32, splitBigInt } from './int64.js';
import type { RandomSource } from './random-source.js';
import { boundedNextInt } from './bounded.js';
import { nextExponential, nextGaussian } from './ziggurat.js';

const MASK64 = (1n << 64n) - 1n;
const GOLDEN = 0x9e3779b97f4a7c15n;
const SILVER = 0x6a09e667f3bcc909n;

// lea64 multiplier and the LCG multiplier, as int32 halves.
const LEA_H = 0xdaba0b6e | 0;
const LEA_L = 0xb09322e3 | 0;
const LCG_H = 0xd1342543 | 0;
const LCG_L = 0xde82ef95 | 0;

function mixMurmur(z: bigint): bigint {
  z = ((z ^ (z >> 33n)) * 0xff51afd7ed558ccdn) & MASK64;
  z = ((z ^ (z >> 33n)) * 0xc4ceb9fe1a85ec53n) & MASK64;
  return z ^ (z >> 33n);
}

function mixStafford13(z: bigint): bigint {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

// Slots of the state array.
const SH = 0;
const SL = 1;
const AH = 2;
const AL = 3;
const X0H = 4;
const X0L = 5;
const X1H = 6;
const X1L = 7;

/** Seeded exactly like `RandomGeneratorFactory.of("L64X128MixRandom").create(seed)`. */
export class L64X128MixRandom implements RandomSource {
  /** LCG state and addend, then the xoroshiro128 pair, as int32 halves (typed: no boxing). */
  private readonly st = new Int32Array(8);
  /** Upper / lower int32 word of the most recent `step()`. */
  hi = 0;
  lo = 0;

  /** @param seed any 64-bit value; negative numbers enter as their two's-complement pattern. */
  constructor(seed: bigint | number) {
    const st = this.st;
    const t = (BigInt.asUintN(64, BigInt(seed)) ^ SILVER) & MASK64;
    [st[AH], st[AL]] = splitBigInt(mixMurmur(t) | 1n);
    [st[SH], st[SL]] = [0, 1];
    // Both x0 and x1 zero is impossible (stafford13 is a bijection), so the JDK's fallback never applies.
    [st[X0H], st[X0L]] = splitBigInt(mixStafford13(t));
    [st[X1H], st[X1L]] = splitBigInt(mixStafford13((t + GOLDEN) & MASK64));
  }

  /** Advances one step; the 64-bit output is left in `hi` / `lo`. */
  step(): void {
    // Everything inline on locals: this runs once per draw, and calls through the shared int64
    // registers cost a third of its time.
    const st = this.st;
    const sh = st[SH]!;
    const sl = st[SL]!;
    const x0h = st[X0H]!;
    const x0l = st[X0L]!;
    // Output: lea64(s + x0), where lea64(z) = mix(mix(z)) and mix(z) = (z ^ (z >>> 32)) * LEA.
    const zSum = (sl >>> 0) + (x0l >>> 0);
    let zh = (sh + x0h + (zSum > 0xffffffff ? 1 : 0)) | 0;
    let zl = (zSum | 0) ^ zh;
    let h = (mulHigh32(zl, LEA_L) + Math.imul(zh, LEA_L) + Math.imul(zl, LEA_H)) | 0;
    zl = Math.imul(zl, LEA_L) ^ h;
    zh = h;
    h = (mulHigh32(zl, LEA_L) + Math.imul(zh, LEA_L) + Math.imul(zl, LEA_H)) | 0;
    this.hi = h;
    this.lo = Math.imul(zl, LEA_L) ^ h;

    // LCG: s = MULT * s + a.
    const mh = (mulHigh32(sl, LCG_L) + Math.imul(sh, LCG_L) + Math.imul(sl, LCG_H)) | 0;
    const sSum = (Math.imul(sl, LCG_L) >>> 0) + (st[AL]! >>> 0);
    st[SH] = (mh + st[AH]! + (sSum > 0xffffffff ? 1 : 0)) | 0;
    st[SL] = sSum | 0;

    // xoroshiro128 (24, 16, 37): q1 = x1 ^ x0; q0 = rotl(x0,24) ^ q1 ^ (q1 << 16); q1 = rotl(q1,37).
    const q1h = st[X1H]! ^ x0h;
    const q1l = st[X1L]! ^ x0l;
    st[X0H] = ((x0h << 24) | (x0l >>> 8)) ^ q1h ^ ((q1h << 16) | (q1l >>> 16));
    st[X0L] = ((x0l << 24) | (x0h >>> 8)) ^ q1l ^ (q1l << 16);
    // rotl 37 = swap the words, then rotl 5.
    st[X1H] = (q1l << 5) | (q1h >>> 27);
    st[X1L] = (q1h << 5) | (q1l >>> 27);
  }
  /** A copy of the whole state (8 int32: LCG state and addend, then the xoroshiro pair). */
  saveState(): Int32Array {
    return this.st.slice();
  }

  /** True when the stream is at `state` (as `saveState` gives it), without copying the state. */
  isAt(state: Int32Array): boolean {
    const st = this.st;
    for (let i = 0; i < 8; i++) if (st[i] !== state[i]) return false;
    return true;
  }

  /** Puts back a state from `saveState` (or a jump of one): the stream continues from there. */
  restoreState(state: Int32Array): void {
    this.st.set(state);
  }

  /** Next 64-bit value as a signed BigInt (convenience for tests and seeding, not the hot path). */
  nextLong(): bigint {
    this.step();
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo >>> 0));
  }

  /** Java `nextInt()`: the upper 32 bits of `nextLong()`, signed. */
  nextInt(): number {
    this.step();
    return this.hi;
  }

  /** Java `nextDouble()`: the top 53 bits scaled by 2^-53, in [0, 1). */
  nextDouble(): number {
    this.step();
    return ((this.hi >>> 0) * 2097152 + (this.lo >>> 11)) * 1.1102230246251565e-16;
  }

  /** Java `nextInt(origin, bound)`: uniform int in [origin, bound). */
  nextIntBetween(origin: number, bound: number): number {
    return boundedNextInt(this, origin, bound);
  }

  /** Java 17+ `nextGaussian()` (modified ziggurat). */
  nextGaussian(): number {
    return nextGaussian(this);
  }

  /** Java 17+ `nextExponential()` (modified ziggurat), mean 1. */
  nextExponential(): number {
    return nextExponential(this);
  }
}
