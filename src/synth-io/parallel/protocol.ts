/** Messages between a generation and its row workers (worker.ts, pool.ts). */
import type { Edition, OutputFormat, SynthLimits, SynthModel } from '../../synth/index.js';
import type { SampledRows } from './row-batch.js';

/** What every worker starts from: the prepared model's parts (structured-cloned) and the seed. */
export interface WorkerSetup {
  model: SynthModel;
  edition: Edition;
  outside: ReadonlyMap<string, unknown>;
  formats: ReadonlyMap<string, string>;
  limits: SynthLimits;
  seed: bigint;
  format: OutputFormat;
  /** Also answer each row's UTF-8 length (for callers that page by row). */
  rowBytes: boolean;
  /** Whole partitions (PartitionTask) instead of batches of one stream: no run is built ahead. */
  partitioned?: boolean;
}

/**
 * The pipelined mode's setup (pipeline.ts): the worker encodes rows sampled on the generation's
 * thread, so it needs no model, only how to write rows.
 */
export interface EncodeSetup {
  encode: true;
  format: OutputFormat;
  /** The column names (JSON keys). */
  names: readonly string[];
}

/** Encode the sampled rows of a batch (in shared memory) to UTF-8. */
export interface EncodeTask {
  id: number;
  rows: SampledRows;
}

/** An encoded batch (in shared memory: posting it copies nothing), or why encoding it threw. */
export type EncodeReply = { id: number; text: Uint8Array } | { id: number; error: string };

/**
 * Render a whole partition: rows [from, to) of the output, from a run seeded `seed` whose first
 * row is row `from` of the generation (partitioned.ts).
 */
export interface PartitionTask {
  partition: number;
  seed: bigint;
  from: number;
  to: number;
  /** Rows per chunk posted back. */
  chunkRows: number;
}

/** A chunk of a partition's output, in order; `last` on its final chunk. */
export interface PartitionChunk {
  partition: number;
  data: Uint8Array;
  rows: number;
  last: boolean;
}

/** A partition that threw; the generation renders it again on its own thread, where the error is real. */
export interface PartitionFailed {
  partition: number;
  error: string;
}

/** Render rows [from, to) starting the stream at `state`. */
export interface BatchTask {
  id: number;
  from: number;
  to: number;
  state: Int32Array;
}

/** A rendered batch: UTF-8 text and the stream's state after its last row. */
export interface BatchDone {
  id: number;
  text: Uint8Array;
  end: Int32Array;
  rowBytes?: Uint32Array;
}

/** A batch that threw; the pool renders it again on its own thread, where the error is real. */
export interface BatchFailed {
  id: number;
  error: string;
}

export type BatchReply = BatchDone | BatchFailed;

/** Sent once, when the worker has built its run: until then the pool renders every batch itself. */
export interface WorkerReady {
  ready: true;
}

/**
 * Sent once its modules are loaded, before any setup: a worker started ahead (worker-start.ts)
 * that has said so builds its run within milliseconds of the setup, so batches may be queued on
 * it at once.
 */
export interface WorkerLoaded {
  loaded: true;
}

export type WorkerMessage = BatchReply | WorkerReady | WorkerLoaded;

/** What a worker set up for encoding posts. */
export type EncodeMessage = EncodeReply | WorkerReady | WorkerLoaded;

/** What a worker set up for partitions posts. */
export type PartitionMessage = PartitionChunk | PartitionFailed | WorkerReady | WorkerLoaded;
