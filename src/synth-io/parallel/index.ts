/**
 * Parallel generation: a run's output over worker threads, byte for byte what one thread writes.
 * `generateChunks` is what grind uses; `RowPool` gives batches with row sizes to other callers.
 */
import type { OutputFormat, PreparedModel } from '../../synth/index.js';
import { SynthRun } from '../../synth/index.js';
import { renderRangeBytes } from '../../synth/output/bytes.js';
import { outputEnd, outputStart } from '../../synth/output/range.js';
import { pipelineChunks, type PipelineStats } from './pipeline.js';
import { RowPool, planParallel } from './pool.js';
import { PARALLEL_MIN_ROWS, type WorkerReserve } from './worker-start.js';

export { RowPool, planParallel } from './pool.js';
export type { PipelineStats } from './pipeline.js';
export type { Batch, ParallelPlan, PoolOptions } from './pool.js';
export { PARALLEL_MIN_ROWS, WorkerReserve, defaultWorkers, reserveWorkers } from './worker-start.js';

/** Rows per piece of output on one thread (about 60 KB for a numeric model). */
const CHUNK_ROWS = 2048;

export interface GenerateOptions {
  count: number;
  /**
   * The index of the first row in the whole generation (a partition's first row, default 0):
   * row-indexed nodes (Sequence, ...) start there (src/synth/engine/row-identity.ts).
   */
  firstRow?: number;
  format: OutputFormat;
  header: boolean;
  /** Threads rendering rows, this one included (N - 1 worker threads); 1 keeps to this thread. */
  workers: number;
  /** One thread below this many rows (default PARALLEL_MIN_ROWS). */
  minRows?: number;
  /** Rows per batch (tests). */
  batchRows?: number;
  /**
   * The probe's rows (the first 512, rendered to learn how the rows split) are the output's first
   * rows, not rendered again (default true). Tests of short outputs turn it off, so that the
   * batches start at row 0 and the workers render rows of every output however short.
   */
  keepProbe?: boolean;
  /**
   * Split the rows over the threads when the model allows it (default true); false pipelines them
   * instead (tests of the pipelined mode on every model, the bench).
   */
  split?: boolean;
  /** Start only once every worker is ready (tests: otherwise a short run may finish without them). */
  waitForWorkers?: boolean;
  /**
   * Workers started ahead (reserveWorkers), taken before new ones are started; whatever is left of
   * it is ended when the run ends (or at once, when the run stays on one thread).
   */
  reserve?: WorkerReserve;
  /** The clock of the pipelined mode's times in `stats` (PipelineOptions.clock; the bench). */
  clock?: () => number;
  /** Filled in as the run goes: whether it went parallel (and why not), batches done here again. */
  stats?: GenerateStats;
}

export interface GenerateStats {
  /** The rows were split over the threads (each samples and renders its own batches). */
  parallel?: boolean;
  /** Why they were not split. */
  reason?: string;
  /**
   * Not split, but pipelined: this thread sampled every row and the threads encoded them
   * (pipeline.ts); `pipeline` says how the work went.
   */
  pipelined?: boolean;
  pipeline?: PipelineStats;
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
  const run = new SynthRun(prepared, seed, {}, options.firstRow ?? 0);
  const start = run.random.saveState();
  const plan =
    options.workers <= 1
      ? { ok: false as const, reason: 'one worker asked for' }
      : count < (options.minRows ?? PARALLEL_MIN_ROWS)
        ? { ok: false as const, reason: `fewer than ${options.minRows ?? PARALLEL_MIN_ROWS} rows` }
        : options.split === false
          ? { ok: false as const, reason: 'splitting turned off' }
          : planParallel(prepared, seed, format, run, options.keepProbe === false ? undefined : count);
  const stats = options.stats ?? {};
  stats.parallel = plan.ok;
  if (!plan.ok) stats.reason = plan.reason;
  const minRows = options.minRows ?? PARALLEL_MIN_ROWS;
  // rows that cannot be split are still sampled here and encoded on every thread
  stats.pipelined = !plan.ok && options.workers > 1 && count >= minRows;
  if (!plan.ok && stats.pipelined) {
    // planParallel put the stream back where it was: the pipeline starts at row 0
    const names = run.header();
    const before = outputStart(format, header, names);
    if (before !== '') yield { data: before, rows: 0 };
    stats.pipeline = {};
    try {
      yield* pipelineChunks(run, {
        from: 0,
        to: count,
        format,
        names,
        workers: options.workers,
        batchRows: options.batchRows,
        reserve: options.reserve,
        waitForWorkers: options.waitForWorkers,
        stats: stats.pipeline,
        clock: options.clock,
      });
    } finally {
      await options.reserve?.release();
    }
    const after = outputEnd(format, count);
    if (after !== '') yield { data: after, rows: count };
    return;
  }
  if (!plan.ok) {
    void options.reserve?.release(); // its workers end while this thread renders
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
    reserve: options.reserve,
  });
  try {
    const before = outputStart(format, header, run.header());
    if (before !== '') yield { data: before, rows: 0 };
    // the probe's rows are the first rows (planParallel's keepRows); the batches go on after them
    const head = plan.head ?? { bytes: new Uint8Array(0), rows: 0, end: start };
    if (head.rows > 0) yield { data: head.bytes, rows: head.rows };
    stats.batches = 0;
    for await (const batch of pool.batches(head.rows, count, head.end)) {
      stats.batches++;
      stats.redone = pool.redone;
      stats.local = pool.localBatches;
      yield { data: batch.text, rows: batch.to };
    }
    const after = outputEnd(format, count);
    if (after !== '') yield { data: after, rows: count };
  } finally {
    await Promise.all([pool.close(), options.reserve?.release()]);
  }
}
