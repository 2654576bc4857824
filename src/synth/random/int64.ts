/**
 * 64-bit unsigned arithmetic on pairs of 32-bit halves. The RNG's hot path runs on these so a draw
 * allocates nothing: results land in the module-level registers `hi` / `lo` (int32 bit patterns).
 */

/**
 * Result registers of the last operation: [0] upper word, [1] lower word (int32 bit patterns).
 * A typed array, because int32 values stored in object fields may be boxed on every write.
 */
export const reg = new Int32Array(2);

/** Low 64 bits of (ah:al) * (bh:bl), into `reg`. */
export function mul64(ah: number, al: number, bh: number, bl: number): void {
  // High word of the unsigned 32x32 product al*bl: split al in 16-bit halves so every partial
  // product stays below 2^53 (exact); floor(floor(x)/n) = floor(x/n) makes the two steps exact.
  const a = al >>> 0;
  const b = bl >>> 0;
  const carry = Math.floor(((a >>> 16) * b + Math.floor(((a & 0xffff) * b) / 65536)) / 65536);
  reg[0] = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) | 0;
  reg[1] = Math.imul(al, bl);
}

/** (ah:al) + (bh:bl) modulo 2^64, into `reg`. */
export function add64(ah: number, al: number, bh: number, bl: number): void {
  const lo = (al >>> 0) + (bl >>> 0);
  reg[0] = (ah + bh + (lo > 0xffffffff ? 1 : 0)) | 0;
  reg[1] = lo | 0;
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
