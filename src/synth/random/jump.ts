/**
 * Jump-ahead for `L64X128MixRandom`: the state `n` steps on, in O(log n) instead of n steps. Both
 * halves of the generator are linear: the LCG is an affine map mod 2^64 (jumped by composing it
 * with itself), the xoroshiro128 pair is a linear map over GF(2) (jumped by a 128x128 bit matrix
 * power). Parallel generation uses it to guess where a batch of rows starts in the stream.
 */

import { L64X128MixRandom } from './l64x128-mix-random.js';

const MASK64 = (1n << 64n) - 1n;
const LCG_MULTIPLIER = 0xd1342543de82ef95n;

// Slots of the state array (as in l64x128-mix-random.ts).
const SH = 0;
const SL = 1;
const AH = 2;
const AL = 3;
const X0 = 4;

const join = (h: number, l: number): bigint => (BigInt(h >>> 0) << 32n) | BigInt(l >>> 0);

/** One xoroshiro128 (24, 16, 37) step on four int32 words x0h, x0l, x1h, x1l. */
function xoroStep(w: Int32Array): void {
  const x0h = w[0]!;
  const x0l = w[1]!;
  const q1h = w[2]! ^ x0h;
  const q1l = w[3]! ^ x0l;
  w[0] = ((x0h << 24) | (x0l >>> 8)) ^ q1h ^ ((q1h << 16) | (q1l >>> 16));
  w[1] = ((x0l << 24) | (x0h >>> 8)) ^ q1l ^ (q1l << 16);
  w[2] = (q1l << 5) | (q1h >>> 27);
  w[3] = (q1h << 5) | (q1l >>> 27);
}

/** A 128x128 bit matrix as 128 columns of four int32 words; column b is the image of bit b. */
type BitMatrix = Int32Array;

/** The matrix of one xoroshiro step, read off the images of the 128 unit vectors. */
function stepMatrix(): BitMatrix {
  const m = new Int32Array(128 * 4);
  const w = new Int32Array(4);
  for (let b = 0; b < 128; b++) {
    w.fill(0);
    w[b >>> 5] = 1 << (b & 31);
    xoroStep(w);
    m.set(w, b * 4);
  }
  return m;
}

/** `out = m · v` (v and out: four words). */
function apply(m: BitMatrix, v: Int32Array, out: Int32Array): void {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  for (let bit = 0; bit < 128; bit++) {
    if ((v[bit >>> 5]! >>> (bit & 31)) & 1) {
      const k = bit * 4;
      a ^= m[k]!;
      b ^= m[k + 1]!;
      c ^= m[k + 2]!;
      d ^= m[k + 3]!;
    }
  }
  out[0] = a;
  out[1] = b;
  out[2] = c;
  out[3] = d;
}

/** `a · b`: column j of the product is a applied to column j of b. */
function multiply(a: BitMatrix, b: BitMatrix): BitMatrix {
  const out = new Int32Array(128 * 4);
  for (let j = 0; j < 128; j++) apply(a, b.subarray(j * 4, j * 4 + 4), out.subarray(j * 4, j * 4 + 4));
  return out;
}

/** A prepared jump of a fixed number of steps; `apply` is cheap (a few hundred operations). */
export class StateJump {
  private readonly matrix: BitMatrix;
  private readonly lcgMul: bigint;
  private readonly lcgAddFactor: bigint;

  /** @param steps how far each `apply` moves the stream (a non-negative safe integer) */
  constructor(readonly steps: number) {
    if (!Number.isSafeInteger(steps) || steps < 0) throw new RangeError(`bad jump length ${steps}`);
    // Square-and-multiply over the bits of `steps`, for the matrix and the affine LCG map at once:
    // x -> mul·x + add·a, where a is the (odd) addend held in the state.
    let power: BitMatrix = stepMatrix();
    let result: BitMatrix | undefined;
    let pMul = LCG_MULTIPLIER;
    let pAdd = 1n;
    let rMul = 1n;
    let rAdd = 0n;
    for (let n = steps; n > 0; n = Math.floor(n / 2)) {
      if (n % 2 === 1) {
        result = result === undefined ? power : multiply(power, result);
        rAdd = (pMul * rAdd + pAdd) & MASK64;
        rMul = (pMul * rMul) & MASK64;
      }
      if (n > 1) {
        power = multiply(power, power);
        pAdd = (pMul * pAdd + pAdd) & MASK64;
        pMul = (pMul * pMul) & MASK64;
      }
    }
    this.matrix = result ?? identity();
    this.lcgMul = rMul;
    this.lcgAddFactor = rAdd;
  }

  /** The state `steps` steps after `state` (both as `L64X128MixRandom.saveState` gives them). */
  apply(state: Int32Array): Int32Array {
    const out = new Int32Array(8);
    out[AH] = state[AH]!;
    out[AL] = state[AL]!;
    const s = join(state[SH]!, state[SL]!);
    const a = join(state[AH]!, state[AL]!);
    const next = (this.lcgMul * s + this.lcgAddFactor * a) & MASK64;
    out[SH] = Number(next >> 32n) | 0;
    out[SL] = Number(next & 0xffffffffn) | 0;
    apply(this.matrix, state.subarray(X0, X0 + 4), out.subarray(X0, X0 + 4));
    return out;
  }
}

function identity(): BitMatrix {
  const m = new Int32Array(128 * 4);
  for (let b = 0; b < 128; b++) m[b * 4 + (b >>> 5)] = 1 << (b & 31);
  return m;
}

/** True when two saved states are the same point of the stream. */
export function sameState(a: Int32Array, b: Int32Array): boolean {
  for (let i = 0; i < 8; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * How many steps lead from `from` to `to` (0 when equal), trying up to `max`; undefined when `to`
 * is not that close ahead.
 */
export function stepsBetween(from: Int32Array, to: Int32Array, max: number): number | undefined {
  // one generator for every call: seeding one costs more than the steps (a probe asks per row)
  const probe = (stepper ??= new L64X128MixRandom(0n));
  probe.restoreState(from);
  for (let n = 0; n <= max; n++) {
    if (probe.isAt(to)) return n;
    probe.step();
  }
  return undefined;
}
let stepper: L64X128MixRandom | undefined;
