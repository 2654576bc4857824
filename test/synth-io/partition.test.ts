import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePartitionOption } from '../../src/cli/synth-commands.js';
import {
  MAX_PARTITIONS,
  parsePartition,
  partitionRange,
  partitionSeed,
} from '../../src/synth-io/partition.js';

// fast-check prints the seed of a failing run; MODELWORKS_FUZZ_SEED replays it
const seed = Number(process.env.MODELWORKS_FUZZ_SEED ?? Date.now() % 2 ** 31);

describe('partitions', () => {
  it('the K ranges tile [0, total) in order, sizes differing by at most one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.oneof(fc.nat({ max: 100_000 }), fc.constant(2 ** 53 - 1)),
        (count, total) => {
          let next = 0;
          const sizes: number[] = [];
          for (let index = 1; index <= count; index++) {
            const { start, end } = partitionRange(total, { index, count });
            expect(start).toBe(next);
            sizes.push(end - start);
            next = end;
          }
          expect(next).toBe(total);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        },
      ),
      { seed, numRuns: 100 },
    );
  });

  it('documents partition k as rows [floor((k-1)N/K), floor(kN/K))', () => {
    expect([1, 2, 3].map((index) => partitionRange(10, { index, count: 3 }))).toEqual([
      { start: 0, end: 3 },
      { start: 3, end: 6 },
      { start: 6, end: 10 },
    ]);
  });

  it('derives one fixed stream seed per (seed, k), distinct across k and seeds', () => {
    // pinned: a change here changes every partitioned output ever written
    expect([partitionSeed(42n, 1), partitionSeed(42n, 2)]).toEqual([
      3702170018257215964n,
      8483585982926937862n,
    ]);
    const seeds = new Set<bigint>();
    for (const s of [0n, 1n, 42n, -1n, (1n << 63n) - 1n])
      for (let k = 1; k <= 50; k++) seeds.add(partitionSeed(s, k));
    expect(seeds.size).toBe(250);
    expect(partitionSeed(42n, 1)).not.toBe(42n);
    // the seed is read as 64-bit two's complement: 2^64-1 and -1 are the same run seed
    expect(partitionSeed(BigInt.asIntN(64, (1n << 64n) - 1n), 3)).toBe(partitionSeed(-1n, 3));
  });

  it('refuses k/K outside 1 <= k <= K <= MAX_PARTITIONS with a reason', () => {
    expect(parsePartition('3/8')).toEqual({ index: 3, count: 8 });
    expect(() => parsePartition('0/8')).toThrow(/k must be an integer from 1 to K=8/);
    expect(() => parsePartition('9/8')).toThrow(/k must be/);
    expect(() => parsePartition(`1/${MAX_PARTITIONS + 1}`)).toThrow(/K must be an integer from 1 to 100000/);
    expect(() => parsePartition('3of8')).toThrow(/expected k\/K/);
  });

  it('the CLI option accepts exactly what the library accepts', () => {
    for (const text of ['1/1', '3/8', `${MAX_PARTITIONS}/${MAX_PARTITIONS}`])
      expect(parsePartitionOption(text)).toEqual(parsePartition(text));
    for (const text of ['0/1', '2/1', `1/${MAX_PARTITIONS + 1}`, '1/0', 'a/b', '-1/3'])
      expect(() => parsePartitionOption(text)).toThrow(/k\/K/);
  });
});
