/**
 * The pipelined mode (issue 40): for a model whose rows cannot be split (a varying number of draws
 * per row, state kept from row to row, custom components), this thread samples every row, in
 * order, into batches of raw values (row-batch.ts), and the threads, this one included, encode
 * the batches to bytes, written in order. The stream stays where one thread has it, so the
 * bytes are one thread's; only the encoding, most of a row's time for most models, is shared.
 *
 * This thread encodes a batch itself whenever the workers' queues are full (the sampler is ahead
 * of them) or no worker is ready yet; otherwise it samples on. With two threads a run is thus
 * bounded by (sampling + encoding) / 2, or by the sampling when that is the larger part.
 */
import type { Worker } from 'node:worker_threads';
import type { OutputFormat } from '../../synth/index.js';
import type { RowSource } from '../../synth/output/bytes.js';
import { renderRangeBytes } from '../../synth/output/bytes.js';
import type { EncodeMessage, EncodeSetup, EncodeTask } from './protocol.js';
import { ReplayedRows, sampleRows, type SampleFailure, type SampledRows } from './row-batch.js';
import { startEncodeWorker, type WorkerReserve } from './worker-start.js';

/** Cells (rows x columns) per batch: about 0.6 MB of raw values, and of output for a numeric model. */
const BATCH_CELLS = 65_536;
const MAX_BATCH_ROWS = 8_192;
/** Output per batch once the rows' size is known (rows of long texts make batches of fewer rows). */
const BATCH_BYTES = 512 * 1024;
/** Rows per batch until a batch is encoded and the rows' size known (a worker starts on it sooner). */
const FIRST_BATCH_ROWS = 512;
/** Batches held at most, however many threads are asked for (memory: about 1 MB a batch). */
const MAX_HELD = 64;
/** Batches queued on one worker: one it encodes and one waiting, so it never idles for a message. */
const QUEUED_PER_WORKER = 2;
/** Batches held per thread (sampled, encoding, or waiting to be written): bounds memory. */
const HELD_PER_THREAD = 4;

export interface PipelineOptions {
  /** Rows [from, to) of the output (row 0 is the first row after a CSV header or JSON bracket). */
  from: number;
  to: number;
  format: OutputFormat;
  names: readonly string[];
  /** Threads, this one included (N - 1 workers encode). */
  workers: number;
  /** Rows per batch (tests); default from the row's width. */
  batchRows?: number;
  /** Workers started ahead (worker-start.ts), taken before new ones are started. */
  reserve?: WorkerReserve;
  /** Start only once every worker is ready (tests: otherwise a short run may finish without them). */
  waitForWorkers?: boolean;
  stats?: PipelineStats;
  /**
   * What the times in `stats` are read from, in milliseconds (default: wall time). The bench passes
   * this thread's CPU time, which a busy box does not inflate.
   */
  clock?: () => number;
}

/** What the run did, for tests and the bench. */
export interface PipelineStats {
  batches?: number;
  /** Batches this thread encoded (the rest went to workers). */
  encodedHere?: number;
  /** Batches a worker failed on (or did not finish), encoded again here. */
  redone?: number;
  /** Time this thread spent sampling, and encoding, in milliseconds (see PipelineOptions.clock). */
  sampleMs?: number;
  encodeMs?: number;
}

/** A sampled batch on its way to the output. */
interface Entry {
  rows: SampledRows;
  /** The row whose sampling threw, after this batch's rows: raised once they are written. */
  failure?: SampleFailure;
  text?: Uint8Array;
  /**
   * Encoding it on this thread threw at row `rows.from + written`: `text` holds the rows before
   * that one, and the error is raised after them, at the batch's turn.
   */
  failed?: { error: unknown; written: number };
}

interface Slot {
  worker: Worker;
  ready: boolean;
  dead: boolean;
  /** Task id to batch index, for the batches queued on it. */
  queued: Map<number, number>;
}

/**
 * Rows per batch for rows of `dimension` cells and, once some are encoded, of `bytesPerRow` bytes
 * of output each (0: not known yet).
 */
export function pipelineBatchRows(dimension: number, bytesPerRow = 0): number {
  const rows = Math.min(
    MAX_BATCH_ROWS,
    Math.floor(BATCH_CELLS / Math.max(1, dimension)),
    bytesPerRow > 0 ? Math.floor(BATCH_BYTES / bytesPerRow) : FIRST_BATCH_ROWS,
  );
  return Math.max(16, rows);
}

/**
 * Rows [from, to) of `run`, sampled here and encoded on `workers` threads, as UTF-8 pieces in
 * order; `rows` is the count of rows written so far (from 0). Stopping early ends the workers.
 * @throws what sampling or encoding a row throws, at the row one thread meets it, after the rows
 * before it are written
 */
export async function* pipelineChunks(
  run: RowSource,
  options: PipelineOptions,
): AsyncGenerator<{ data: Uint8Array; rows: number }, void, undefined> {
  const { from, to, format, names } = options;
  const stats = Object.assign(options.stats ?? {}, {
    batches: 0,
    encodedHere: 0,
    redone: 0,
    sampleMs: 0,
    encodeMs: 0,
  }) as Required<PipelineStats>;
  const clock = options.clock ?? ((): number => performance.now());
  /** Output bytes per row of the batches encoded so far: the next batches' size. */
  let bytesPerRow = 0;
  const noteSize = (entry: Entry): void => {
    const rows = entry.rows.to - entry.rows.from;
    if (rows > 0 && entry.text !== undefined) bytesPerRow = Math.max(bytesPerRow, entry.text.length / rows);
  };
  const batchRows = (): number => options.batchRows ?? pipelineBatchRows(run.dimension, bytesPerRow);
  const entries = new Map<number, Entry>();
  /** Sampled batches with no worker and not encoded, in order. */
  const backlog: number[] = [];
  /** Batches a worker failed on or did not finish: encoded here, where an error is the real one. */
  const redo: number[] = [];
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const setup: EncodeSetup = { encode: true, format, names };
  const slots: Slot[] = [];
  let nextId = 0;
  for (let i = 1; i < options.workers; i++) {
    const { worker, loaded } = options.reserve?.take() ?? { worker: startEncodeWorker(), loaded: false };
    // a worker started ahead and loaded answers the setup within a millisecond: queue on it at once
    const slot: Slot = { worker, ready: loaded, dead: false, queued: new Map() };
    slots.push(slot);
    worker.on('message', (message: EncodeMessage) => {
      if ('loaded' in message) return;
      if ('ready' in message) slot.ready = true;
      else {
        const index = slot.queued.get(message.id);
        slot.queued.delete(message.id);
        const entry = index === undefined ? undefined : entries.get(index);
        if (entry !== undefined) {
          if ('error' in message) {
            redo.push(index!);
            stats.redone++;
          } else {
            entry.text = message.text;
            noteSize(entry);
          }
        }
      }
      signal();
    });
    const lost = (): void => {
      slot.dead = true;
      for (const index of slot.queued.values()) {
        redo.push(index);
        stats.redone++;
      }
      slot.queued.clear();
      signal();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    worker.postMessage(setup);
  }

  /** Hands backlog batches, oldest first, to the least loaded workers with room. */
  const dispatch = (): void => {
    while (backlog.length > 0) {
      let best: Slot | undefined;
      for (const s of slots)
        if (s.ready && !s.dead && s.queued.size < QUEUED_PER_WORKER)
          if (best === undefined || s.queued.size < best.queued.size) best = s;
      if (best === undefined) return;
      const index = backlog.shift()!;
      const id = nextId++;
      best.queued.set(id, index);
      best.worker.postMessage({ id, rows: entries.get(index)!.rows } satisfies EncodeTask);
    }
  };

  const encodeHere = (index: number): void => {
    const entry = entries.get(index)!;
    const t0 = clock();
    const { rows } = entry;
    try {
      entry.text = renderRangeBytes(new ReplayedRows(rows), rows.from, rows.to, format, names);
      noteSize(entry);
    } catch (error) {
      // the rows before the failing one are written first, as after a failure to sample a row
      const replay = new ReplayedRows(rows);
      const before: Uint8Array[] = [];
      try {
        for (let row = rows.from; row < rows.to; row++)
          before.push(renderRangeBytes(replay, row, row + 1, format, names));
      } catch {
        // the same row as above: its error is the one kept
      }
      entry.text = Buffer.concat(before);
      entry.failed = { error, written: before.length };
    }
    stats.encodeMs += clock() - t0;
    stats.encodedHere++;
  };
  const letMessagesIn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  const cap = Math.min(MAX_HELD, HELD_PER_THREAD * options.workers);
  let sampledTo = from;
  let stopped = false; // a row's sampling threw: nothing after it is sampled
  let nextIndex = 0;
  let writeIndex = 0;
  try {
    if (options.waitForWorkers === true)
      while (slots.some((s) => !s.ready && !s.dead))
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
    for (;;) {
      const head = entries.get(writeIndex);
      if (head === undefined && (stopped || sampledTo >= to)) return;
      if (head !== undefined && (head.text !== undefined || head.failed !== undefined)) {
        entries.delete(writeIndex++);
        const written = head.failed?.written ?? head.rows.to - head.rows.from;
        if (written > 0) yield { data: head.text!, rows: head.rows.from + written - from };
        if (head.failed !== undefined) throw head.failed.error;
        if (head.failure !== undefined) throw head.failure.error;
        continue;
      }
      dispatch();
      // a batch to encode here: one a worker failed on, or the oldest no worker has room for
      const here = redo.length > 0 ? redo.shift() : backlog.shift();
      if (here !== undefined) {
        encodeHere(here);
        await letMessagesIn();
        continue;
      }
      if (!stopped && sampledTo < to && entries.size < cap) {
        const end = Math.min(to, sampledTo + batchRows());
        const t0 = clock();
        const { rows, failure } = sampleRows(run, sampledTo, end);
        stats.sampleMs += clock() - t0;
        stats.batches++;
        entries.set(nextIndex, failure === undefined ? { rows } : { rows, failure });
        backlog.push(nextIndex++);
        sampledTo = end;
        if (failure !== undefined) stopped = true;
        dispatch();
        await letMessagesIn();
        continue;
      }
      // every batch held is with a worker: wait for one to answer
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
