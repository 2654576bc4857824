/**
 * A partitioned generation in one command (`grind --partitions K --workers N`, issue 40): the K
 * partitions of docs/scale.md (each its own stream, its row-indexed columns going on from the
 * rows before it) rendered on N threads, this one included, and written in partition order as
 * one output. A partition's bytes depend only on the seed, K and its rows, never on the thread
 * that renders it, so the output depends on K and not on N. Unlike `--workers` alone, this works
 * for every model: a thread renders whole partitions, so nothing needs the rows' draw counts.
 */
import type { Worker } from 'node:worker_threads';
import type { OutputFormat, PreparedModel } from '../../synth/index.js';
import { SynthRun } from '../../synth/index.js';
import { renderRangeBytes } from '../../synth/output/bytes.js';
import { outputEnd, outputStart } from '../../synth/output/range.js';
import { partitionRange, partitionSeed, type RowRange } from '../partition.js';
import type { PartitionMessage, PartitionTask, WorkerSetup } from './protocol.js';
import { startRowWorker, type WorkerReserve } from './worker-start.js';

/** Rows per chunk, on this thread and in the workers (about 0.8 MB of CSV for support-queue). */
const CHUNK_ROWS = 16_384;

export interface PartitionedOptions {
  /** Rows of the whole generation. */
  count: number;
  /** K: how many partitions the rows are cut into (the output depends on it). */
  partitions: number;
  format: OutputFormat;
  header: boolean;
  /** Threads rendering partitions, this one included (N - 1 worker threads). */
  workers: number;
  /** Rows per chunk (tests). */
  chunkRows?: number;
  /** Workers started ahead (worker-start.ts), taken before new ones are started. */
  reserve?: WorkerReserve;
  /** Wait until every worker is ready before this thread takes a partition (tests). */
  waitForWorkers?: boolean;
  /** Filled in as the run goes: partitions the workers rendered. */
  stats?: { byWorkers: number };
}

interface Piece {
  data: Uint8Array;
  rows: number;
}

/** A worker and the partition it renders (undefined while idle or starting). */
interface Slot {
  worker: Worker;
  ready: boolean;
  partition: number | undefined;
}

/**
 * The output of `options.count` rows of `prepared` cut into K partitions of `seed`, in order.
 * Stopping early (return, or an error) ends the workers.
 * @throws SynthError raised on this thread, at the same row as a one-thread run of the partition
 */
export async function* generatePartitioned(
  prepared: PreparedModel,
  seed: bigint,
  options: PartitionedOptions,
): AsyncGenerator<{ data: string | Uint8Array; rows: number }, void, undefined> {
  const { count, format } = options;
  const K = options.partitions;
  const chunkRows = options.chunkRows ?? CHUNK_ROWS;
  const ranges: RowRange[] = Array.from({ length: K }, (_, i) =>
    partitionRange(count, { index: i + 1, count: K }),
  );
  const held: Piece[][] = ranges.map(() => []);
  const complete = ranges.map(() => false);
  const redo: number[] = []; // partitions a worker failed: rendered again here, where the error is real
  let nextToTake = 0;
  let writing = 0;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const slots: Slot[] = [];
  // a partition is given to a worker only while few partitions wait to be written ahead of it,
  // so the bytes held for later partitions stay bounded by a few partitions' output
  const ahead = (): boolean => nextToTake - writing <= 2 * options.workers;
  const assign = (slot: Slot): void => {
    slot.partition = undefined;
    if (!slot.ready || nextToTake >= K || !ahead()) return;
    const p = nextToTake++;
    slot.partition = p;
    const task: PartitionTask = {
      partition: p,
      seed: partitionSeed(seed, p + 1),
      from: ranges[p]!.start,
      to: ranges[p]!.end,
      chunkRows,
    };
    slot.worker.postMessage(task);
  };
  const setup: WorkerSetup = {
    model: prepared.model,
    edition: prepared.edition,
    outside: prepared.outside,
    formats: prepared.formats,
    limits: prepared.limits,
    seed,
    format,
    rowBytes: false,
    partitioned: true,
  };
  const workers = Math.min(options.workers, K);
  for (let i = 1; i < workers; i++) {
    const worker = options.reserve?.take()?.worker ?? startRowWorker();
    const slot: Slot = { worker, ready: false, partition: undefined };
    slots.push(slot);
    worker.on('message', (message: PartitionMessage) => {
      if ('ready' in message) {
        slot.ready = true;
        assign(slot);
      } else if ('error' in message) {
        held[message.partition] = [];
        redo.push(message.partition);
        assign(slot);
      } else if ('data' in message) {
        held[message.partition]!.push({ data: message.data, rows: message.rows });
        if (message.last) {
          complete[message.partition] = true;
          if (options.stats) options.stats.byWorkers++;
          assign(slot);
        }
      }
      signal();
    });
    // a worker that dies hands its partition back to this thread
    const lost = (): void => {
      if (slot.partition !== undefined && !complete[slot.partition]) {
        held[slot.partition] = [];
        redo.push(slot.partition);
      }
      slot.ready = false;
      slot.partition = undefined;
      signal();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    worker.postMessage(setup);
  }

  const open = (p: number): { p: number; run: SynthRun; at: number } => ({
    p,
    run: new SynthRun(prepared, partitionSeed(seed, p + 1), {}, ranges[p]!.start),
    at: ranges[p]!.start,
  });
  // A partition ahead of the one being written that fails on this thread is redone at its turn, like
  // one a worker failed: the error raised must be the one a single thread meets first, and an earlier
  // partition may fail too (placing a row-indexed node fails in every partition past the first).
  const failedAhead = (p: number, err: unknown): undefined => {
    if (p === writing) throw err;
    held[p] = [];
    complete[p] = false;
    redo.push(p);
    return undefined;
  };
  const openOrRedo = (p: number): ReturnType<typeof open> | undefined => {
    try {
      return open(p);
    } catch (err) {
      return failedAhead(p, err);
    }
  };
  let written = 0;
  try {
    if (options.waitForWorkers === true)
      while (slots.some((s) => !s.ready))
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
    // this thread takes the first partition (the workers are still starting): its run names the columns
    let local: { p: number; run: SynthRun; at: number } | undefined =
      nextToTake < K ? openOrRedo(nextToTake++) : undefined;
    // (every partition already with a worker: the names from a run that renders nothing)
    const names = (local?.run ?? new SynthRun(prepared, seed)).header();
    const before = outputStart(format, options.header, names);
    if (before !== '') yield { data: before, rows: 0 };
    while (writing < K) {
      // what is ready to write, in partition order
      const pieces = held[writing]!;
      if (pieces.length > 0) {
        held[writing] = [];
        for (const piece of pieces) {
          written += piece.rows;
          yield { data: piece.data, rows: written };
        }
        continue;
      }
      if (complete[writing]) {
        writing++;
        for (const slot of slots) if (slot.partition === undefined) assign(slot);
        continue;
      }
      // this thread renders a partition of its own too, rather than wait
      if (local === undefined) {
        // a failed partition is rendered again only at its turn, so the error raised is the one a
        // single thread meets first
        const again = redo.indexOf(writing);
        const p =
          again >= 0
            ? redo.splice(again, 1)[0]
            : nextToTake < K && (ahead() || slots.length === 0)
              ? nextToTake++
              : undefined;
        if (p !== undefined) local = openOrRedo(p);
        if (local === undefined && p !== undefined) continue;
      }
      if (local !== undefined) {
        const end = ranges[local.p]!.end;
        const to = Math.min(end, local.at + chunkRows);
        let data: string | Uint8Array;
        try {
          data = renderRangeBytes(local.run, local.at, to, format, names);
        } catch (err) {
          local = failedAhead(local.p, err);
          continue;
        }
        const piece = { data, rows: to - local.at };
        local.at = to;
        if (to >= end) complete[local.p] = true;
        if (local.p === writing) {
          written += piece.rows;
          yield { data: piece.data, rows: written };
        } else held[local.p]!.push(piece);
        if (to >= end) local = undefined;
        // let the workers' messages in between this thread's chunks
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    const after = outputEnd(format, count);
    if (after !== '') yield { data: after, rows: count };
  } finally {
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
