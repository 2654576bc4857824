/**
 * Parallel generation: a run's output over worker threads, byte for byte what one thread writes.
 * `generateChunks` is what grind uses; `RowPool` gives batches with row sizes to other callers.
 */
import { availableParallelism } from 'node:os';
import type { OutputFormat, PreparedModel } from '../../synth/index.js';
import { SynthRun } from '../../synth/index.js';
import { renderRangeBytes } from '../../synth/output/bytes.js';
import { outputEnd, outputStart } from '../../synth/output/range.js';
import { RowPool, planParallel } from './pool.js';

export { RowPool, planParallel } from './pool.js';
export type { Batch, ParallelPlan, PoolOptions } from './pool.js';

/** Below this many rows one thread is faster: each worker costs ~0.25 s of CPU to start and warm up. */
export const PARALLEL_MIN_ROWS = 500_000;

/** Rows per piece of output on one thread (about 60 KB for a numeric model). */
const CHUNK_ROWS = 2048;

/** The default worker count: the cores this process may use. */
export function defaultWorkers(): number {
  return availableParallelism();
}

export interface GenerateOptions {
  count: number;
  format: OutputFormat;
  header: boolean;
  /** Threads rendering rows, this one included (N - 1 worker threads); 1 keeps to this thread. */
  workers: number;
  /** One thread below this many rows (default PARALLEL_MIN_ROWS). */
  minRows?: number;
  /** Rows per batch (tests). */
  batchRows?: number;
  /** Start only once every worker is ready (tests: otherwise a short run may finish without them). */
  waitForWorkers?: boolean;
  /** Filled in as the run goes: whether it went parallel (and why not), batches done here again. */
  stats?: GenerateStats;
}

export interface GenerateStats {
  parallel?: boolean;
  reason?: string;
  batches?: number;
  redone?: number;
  /** Batches rendered on this thread (it renders too, rather than wait for a worker). */
  local?: number;
}

/** A piece of output and the rows it completes. */
export interface OutputChunk {
  data: string | Uint8Array;
  rows: number;
}

/**
 * The output of `count` rows of `prepared` under `seed`, in order. Stopping early (return, or an
 * error) ends the workers.
 */
export async function* generateChunks(
  prepared: PreparedModel,
  seed: bigint,
  options: GenerateOptions,
): AsyncGenerator<OutputChunk, void, undefined> {
  const { count, format, header } = options;
  // one run (one graph) on this thread whichever way the rows go: see planParallel
  const run = new SynthRun(prepared, seed);
  const start = run.random.saveState();
  const plan =
    options.workers <= 1
      ? { ok: false as const, reason: 'one worker asked for' }
      : count < (options.minRows ?? PARALLEL_MIN_ROWS)
        ? { ok: false as const, reason: `fewer than ${options.minRows ?? PARALLEL_MIN_ROWS} rows` }
        : planParallel(prepared, seed, format, run);
  const stats = options.stats ?? {};
  stats.parallel = plan.ok;
  if (!plan.ok) stats.reason = plan.reason;
  if (!plan.ok) {
    // straight to bytes, as the batches are: the text of a chunk is never built
    const names = run.header();
    const before = outputStart(format, header, names);
    if (before !== '') yield { data: before, rows: 0 };
    for (let rows = 0; rows < count;) {
      const to = Math.min(count, rows + CHUNK_ROWS);
      const data = renderRangeBytes(run, rows, to, format, names);
      rows = to;
      yield { data, rows };
    }
    const after = outputEnd(format, count);
    if (after !== '') yield { data: after, rows: count };
    return;
  }
  const pool = new RowPool(prepared, seed, plan, {
    workers: options.workers,
    format,
    batchRows: options.batchRows,
    waitForWorkers: options.waitForWorkers,
    run,
  });
  try {
    const before = outputStart(format, header, run.header());
    if (before !== '') yield { data: before, rows: 0 };
    stats.batches = 0;
    for await (const batch of pool.batches(0, count, start)) {
      stats.batches++;
      stats.redone = pool.redone;
      stats.local = pool.localBatches;
      yield { data: batch.text, rows: batch.to };
    }
    const after = outputEnd(format, count);
    if (after !== '') yield { data: after, rows: count };
  } finally {
    await pool.close();
  }
}
