/**
 * Partitions of a generation (`grind --partition k/K`): K independent, deterministic slices of
 * one run. Partition k draws from its own random stream, seeded from (seed, k) by SHA-256, so it
 * does not depend on which machine or process generates it, nor on the other partitions. These
 * streams differ from the single-stream output of the same seed: the union of the K partitions is
 * reproducible for the same seed and K, but it is not the unpartitioned output cut in pieces.
 */
import { createHash } from 'node:crypto';

/** The largest K `--partition k/K` accepts. */
export const MAX_PARTITIONS = 100_000;

/** Partition `index` (1-based) of `count`. */
export interface Partition {
  readonly index: number;
  readonly count: number;
}

/** Rows [start, end) of the whole generation, numbered from 0. */
export interface RowRange {
  readonly start: number;
  readonly end: number;
}

/** Why k/K is not a partition, or undefined when it is one. */
export function partitionRefusal(index: number, count: number): string | undefined {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_PARTITIONS)
    return `K must be an integer from 1 to ${MAX_PARTITIONS} (got ${count})`;
  if (!Number.isSafeInteger(index) || index < 1 || index > count)
    return `k must be an integer from 1 to K=${count} (got ${index})`;
  return undefined;
}

/**
 * Parses `k/K`.
 * @throws Error in our words when the text is not k/K with 1 ≤ k ≤ K ≤ MAX_PARTITIONS
 */
export function parsePartition(text: string): Partition {
  const m = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})\s*$/.exec(text);
  if (m === null) throw new Error(`expected k/K, e.g. 3/8 (got '${text}')`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  const refusal = partitionRefusal(index, count);
  if (refusal !== undefined) throw new Error(refusal);
  return { index, count };
}

/**
 * The rows partition k of K generates out of `total`: the total split as evenly as possible,
 * partition k taking [floor((k-1)·total/K), floor(k·total/K)). Sizes differ by at most one and
 * the K ranges tile [0, total) in order.
 */
export function partitionRange(total: number, p: Partition): RowRange {
  // BigInt: (k-1)·total passes 2^53 for large totals
  const at = (k: number): number => Number((BigInt(k) * BigInt(total)) / BigInt(p.count));
  return { start: at(p.index - 1), end: at(p.index) };
}

/**
 * The seed of partition k's stream: the first 8 bytes of SHA-256 over a fixed label, the run seed
 * (64-bit two's complement, big-endian) and k (32-bit, big-endian), as a signed 64-bit integer.
 */
export function partitionSeed(seed: bigint, index: number): bigint {
  const input = Buffer.alloc(12);
  input.writeBigInt64BE(BigInt.asIntN(64, seed), 0);
  input.writeUInt32BE(index, 8);
  const digest = createHash('sha256').update('modelworks synth partition v1\0').update(input).digest();
  return digest.readBigInt64BE(0);
}
