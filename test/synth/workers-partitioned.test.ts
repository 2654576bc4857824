/**
 * `grind --partitions K --workers N` (issue 40, point 6): the K partitions rendered on N threads
 * and written in order. The bytes depend on the seed and K, never on N, and are the K partitions
 * of `--partition k/K` one after the other.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { OutputFormat, PreparedModel } from '../../src/synth/index.js';
import { SynthError, SynthRun, parseModel, prepareModel } from '../../src/synth/index.js';
import { renderChunks } from '../../src/synth/output/format.js';
import { partitionRange, partitionSeed } from '../../src/synth-io/partition.js';
import { generatePartitioned } from '../../src/synth-io/parallel/partitioned.js';
import type { WorkerReserve } from '../../src/synth-io/parallel/worker-start.js';
import { EXAMPLES, ROOT } from './corpus-cases.js';

const SUPPORT = prepareModel(parseModel(readFileSync(join(EXAMPLES, 'support-queue.xml'), 'utf8')));
const KEYED = prepareModel(
  parseModel(`<dataset><root node="Row"/><nodes>
    <Append name="Row"><input name="Id"/><input name="Wait"/></Append>
    <Sequence name="Id" start="1" step="1"/>
    <Lognormal name="Wait" mu="2" sigma="0.5"/>
  </nodes></dataset>`),
);

async function partitioned(
  prepared: PreparedModel,
  seed: bigint,
  count: number,
  partitions: number,
  workers: number,
  format: OutputFormat = 'csv',
): Promise<string> {
  const stats = { byWorkers: 0 };
  let out = '';
  const decoder = new TextDecoder();
  for await (const chunk of generatePartitioned(prepared, seed, {
    count,
    partitions,
    format,
    header: format === 'csv',
    workers,
    chunkRows: 97,
    waitForWorkers: true,
    stats,
  }))
    out += typeof chunk.data === 'string' ? chunk.data : decoder.decode(chunk.data);
  // with workers, they rendered some of the partitions (the bytes are theirs too)
  if (workers > 1) expect(stats.byWorkers).toBeGreaterThan(0);
  return out;
}

/** A Sequence under a Mix: it cannot be placed past the first partition (SYNTH_INVALID). */
const mixedSequence = (): PreparedModel =>
  prepareModel(
    parseModel(`<dataset><root node="Row"/><nodes>
      <Mix name="Row"><input name="Id" weight="1"/><input name="Zero" weight="1"/></Mix>
      <Sequence name="Id" start="1" step="1"/>
      <Constant name="Zero" value="0"/>
    </nodes></dataset>`),
  );

/** The K partitions as `grind --partition k/K` writes each (no header), one after the other. */
function onePartitionAtATime(prepared: PreparedModel, seed: bigint, count: number, K: number): string {
  let out = '';
  for (let index = 1; index <= K; index++) {
    const { start, end } = partitionRange(count, { index, count: K });
    const run = new SynthRun(prepared, partitionSeed(seed, index), {}, start);
    for (const chunk of renderChunks(run, { count: end - start, format: 'csv', header: false })) out += chunk;
  }
  return out;
}

describe('grind --partitions K --workers N', () => {
  it('support-queue: the same bytes for N = 1, 2 and 4, the K partitions in order', async () => {
    const K = 5;
    const one = await partitioned(SUPPORT, 2026n, 3000, K, 1);
    expect(await partitioned(SUPPORT, 2026n, 3000, K, 2)).toBe(one);
    expect(await partitioned(SUPPORT, 2026n, 3000, K, 4)).toBe(one);
    expect(one).toBe('dim0,dim1,dim2,dim3,dim4,dim5,dim6\n' + onePartitionAtATime(SUPPORT, 2026n, 3000, K));
    // the bytes depend on K
    expect(await partitioned(SUPPORT, 2026n, 3000, 4, 2)).not.toBe(one);
  }, 60_000);

  it('Sequence ids run 1..N across the partitions, whichever thread renders them', async () => {
    const text = await partitioned(KEYED, 7n, 2000, 4, 2);
    const ids = text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]));
    expect(ids).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
  }, 60_000);

  it('JSON: one array across the partitions, the same for any N', async () => {
    const one = await partitioned(KEYED, 3n, 500, 3, 1, 'json');
    expect(await partitioned(KEYED, 3n, 500, 3, 3, 'json')).toBe(one);
    expect((JSON.parse(one) as unknown[]).length).toBe(500);
  }, 60_000);

  it('a partition that fails in a worker fails here with the same error as on one thread', async () => {
    const mixed = mixedSequence();
    const failure = async (workers: number): Promise<string> => {
      try {
        await partitioned(mixed, 1n, 400, 4, workers);
      } catch (err) {
        expect(err).toBeInstanceOf(SynthError);
        return `${(err as SynthError).code}: ${(err as Error).message}`;
      }
      return 'no error';
    };
    const one = await failure(1);
    expect(one).toMatch(/^SYNTH_INVALID: Sequence "Id" is pulled a varying number/);
    // the same refusal, word for word: every partition past the first fails, each with its own probe
    // rows, so this thread must not raise a later partition's error it met first
    for (const workers of [2, 3, 4]) expect(await failure(workers)).toBe(one);
  }, 60_000);

  it('a later partition failing on this thread first does not hide an earlier one', async () => {
    // Every partition past the first fails, each naming its own probe rows (seed 1: partition 2 at
    // row 2, partitions 3 and 4 at row 4). A worker that is slow to fail partition 2 leaves this
    // thread free to open partition 3 first: the error raised must still be partition 2's.
    const mixed = mixedSequence();
    const messageOf = async (reserve?: WorkerReserve): Promise<string> => {
      try {
        for await (const _ of generatePartitioned(mixed, 1n, {
          count: 400_000,
          partitions: 4,
          format: 'csv',
          header: true,
          workers: 2,
          chunkRows: 97,
          ...(reserve ? { reserve } : {}),
        }));
      } catch (err) {
        return (err as Error).message;
      }
      return 'no error';
    };
    const one = await messageOf();
    expect(one).toMatch(/row 2\)/);
    // a real worker thread that says it is ready and answers each partition, late, with a failure
    // (as a worker whose partition threw does), so only the order on this thread is under test
    // (started and listening before the generation, so it is ready while this thread renders
    // partition 1, and takes partition 2)
    const slow = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', (m) => {
         if (m.partition === undefined) parentPort.postMessage({ ready: true });
         else setTimeout(() => parentPort.postMessage({ partition: m.partition, error: 'slow' }), 1500);
       });
       parentPort.postMessage({ listening: true });`,
      { eval: true },
    );
    await new Promise((resolve) => slow.once('message', resolve));
    const reserve = { take: () => ({ worker: slow, loaded: false }) } as unknown as WorkerReserve;
    expect(await messageOf(reserve)).toBe(one);
  }, 60_000);

  const CLI = join(ROOT, 'dist', 'cli', 'main.js');
  const grind = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [CLI, 'synth', 'grind', join(EXAMPLES, 'support-queue.xml'), '--seed', '5', '--quiet', ...args],
      { encoding: 'utf8' },
    );

  it.skipIf(!existsSync(CLI))(
    'the command: --partitions 3 is the three --partition k/3 outputs joined; misuse exits 2',
    () => {
      const joined = [1, 2, 3].map((k) => grind('--count', '900', '--partition', `${k}/3`).stdout).join('');
      const all = grind('--count', '900', '--partitions', '3', '--workers', '2');
      expect(all.status, all.stderr).toBe(0);
      expect(all.stdout).toBe(joined);
      const both = grind('--count', '9', '--partitions', '3', '--partition', '1/3');
      expect(both.status).toBe(2);
      expect(both.stderr).toMatch(/give --partitions K .* or --partition k\/K .*, not both/);
      const sink = grind('--count', '9', '--partitions', '3', '--format', 'parquet', '--output', 'x.parquet');
      expect(sink.status).toBe(2);
      expect(grind('--count', '9', '--partitions', '0').status).toBe(2);
    },
    60_000,
  );
});
