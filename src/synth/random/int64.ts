/**
 * 64-bit values as pairs of 32-bit halves (int32 bit patterns): the RNG's hot path runs on these so
 * a draw allocates nothing.
 */

/**
 * High word of the unsigned 32x32-bit product a*b (int32 bit pattern). Schoolbook on 16-bit limbs:
 * every partial product is below 2^32, so it stays in integer arithmetic (no float division).
 */
export function mulHigh32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = ((a0 * b0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16)) | 0;
}

/** Splits a 64-bit BigInt (any sign: two's complement) into int32 halves. */
export function splitBigInt(v: bigint): [number, number] {
  const u = BigInt.asUintN(64, v);
  return [Number(u >> 32n) | 0, Number(u & 0xffffffffn) | 0];
}

/** Joins int32 halves into a signed 64-bit BigInt (used off the hot path only). */
export function joinSigned(hi: number, lo: number): bigint {
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo >>> 0));
}

/** The signed 64-bit value of (hi:lo) rounded to the nearest double, as Java's `(double) long`. */
export function signedToDouble(hi: number, lo: number): number {
  // hi * 2^32 is exact, so the single addition rounds once, to nearest-even.
  return hi * 4294967296 + (lo >>> 0);
}
