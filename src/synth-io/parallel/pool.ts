/**
 * Rows of one run spread over worker threads with exactly the bytes of a single thread.
 *
 * Only a model whose rows depend on earlier rows through the random stream alone qualifies
 * (rowIndependent), and only when every row takes the same number of draws. Then where a batch of
 * rows starts in the stream can be computed ahead (a jump of rows x draws), so each worker renders
 * whole batches, draws included, from a guessed start. Nothing is trusted: a batch is used only
 * when its start state is exactly the state the previous batch ended in; otherwise (a rare extra
 * draw: a rejection) it is rendered again here from the true state and the guesses restart from
 * there. A batch a worker fails on is rendered again here too, so errors are the single thread's.
 */
import type { Worker } from 'node:worker_threads';
import type { OutputFormat, PreparedModel } from '../../synth/index.js';
import { SynthRun } from '../../synth/index.js';
import { rowIndependent } from '../../synth/engine/stateless.js';
import { renderRow } from '../../synth/output/format.js';
import { renderRangeBytes } from '../../synth/output/bytes.js';
import { StateJump, sameState, stepsBetween } from '../../synth/random/jump.js';
import type { BatchReply, BatchTask, WorkerMessage, WorkerSetup } from './protocol.js';
import { renderBatch } from './render-batch.js';
import { startRowWorker, type WorkerReserve } from './worker-start.js';

/** Rows rendered here first to learn the draws per row and the row size. */
const PROBE_ROWS = 512;
/** More draws than this in one row: not worth guessing. */
const MAX_PROBE_STEPS = 10_000;
/** A batch holds about this much text (fewer rows when rows are wide). */
const BATCH_BYTES = 512 * 1024;
const MAX_BATCH_ROWS = 16_384;
/**
 * Batches queued on one worker: one it renders and one waiting, so it never idles for a message.
 * More would only leave this thread waiting for the queue at the end of a run.
 */
const QUEUED_PER_WORKER = 2;

/** How a run can be split, or why it stays on one thread. */
export type ParallelPlan =
  { ok: true; stepsPerRow: number; batchRows: number; head?: ProbeHead } | { ok: false; reason: string };

/** The probe's rows kept as the first rows of the output (planParallel's `keepRows`). */
export interface ProbeHead {
  /** Rows 0 to rows - 1 of the output, as UTF-8. */
  bytes: Uint8Array;
  rows: number;
  /** The stream state after them: where the batches start. */
  end: Int32Array;
}

/**
 * Decides whether rows of `prepared` can be spread over threads, by a short probe run. Pass the
 * run this thread will render with: a second graph of the same model on one thread makes V8's
 * call sites in the components polymorphic, and every row on this thread ~40% slower.
 *
 * Its stream is put back where it was, unless `keepRows` is given (the run is then at row 0 of
 * an output of that many rows): the probe's rows, up to that many, are then the output's first
 * rows (`head`), and the run is left after them. Otherwise they would be rendered twice, and the
 * probe's are the slowest rows of a run (the code is not yet optimised).
 */
export function planParallel(
  prepared: PreparedModel,
  seed: bigint,
  format: OutputFormat,
  run: SynthRun = new SynthRun(prepared, seed),
  keepRows?: number,
): ParallelPlan {
  if (prepared.customs.size > 0) return { ok: false, reason: 'the model uses custom components' };
  if (!rowIndependent(prepared.model, run.graph))
    return { ok: false, reason: 'a component of the model carries state from row to row' };
  const names = run.header();
  const start = run.random.saveState();
  const probeRows = keepRows === undefined ? PROBE_ROWS : Math.min(PROBE_ROWS, keepRows);
  const kept: Uint8Array[] = [];
  let steps: number | undefined;
  let chars = 0;
  let ok = false;
  try {
    for (let i = 0; i < probeRows; i++) {
      const before = run.random.saveState();
      if (keepRows === undefined) chars += renderRow(run.next(), run.dimension, format, names).length + 2;
      else {
        const row = renderRangeBytes(run, i, i + 1, format, names);
        kept.push(row);
        chars += row.length;
      }
      const n = stepsBetween(before, run.random.saveState(), MAX_PROBE_STEPS);
      if (n === undefined || (steps !== undefined && n !== steps))
        return { ok: false, reason: 'rows take different numbers of random draws' };
      steps = n;
    }
    ok = true;
  } catch {
    // the single thread meets the same error at the same row, after writing the rows before it
    return { ok: false, reason: 'a row of the probe failed' };
  } finally {
    if (!ok || keepRows === undefined) run.random.restoreState(start);
  }
  const perRow = Math.max(1, chars / Math.max(1, probeRows));
  const batchRows = Math.max(16, Math.min(MAX_BATCH_ROWS, Math.floor(BATCH_BYTES / perRow)));
  const plan = { ok: true as const, stepsPerRow: steps ?? 0, batchRows };
  if (keepRows === undefined) return plan;
  return { ...plan, head: { bytes: Buffer.concat(kept), rows: probeRows, end: run.random.saveState() } };
}

/** Rows [from, to) rendered as UTF-8, with the stream state they start from. */
export interface Batch {
  from: number;
  to: number;
  text: Uint8Array;
  rowBytes?: Uint32Array;
  start: Int32Array;
  /** The stream state after its last row (where the next batch starts). */
  end: Int32Array;
}

interface Slot {
  worker: Worker;
  waiting: ((reply: BatchReply) => void)[];
  /**
   * Batches may be queued on it: its run is built, or (started ahead and loaded) about to be.
   * Sent sooner, they would wait in its queue while this thread could render them.
   */
  ready: boolean;
  dead: boolean;
  /** Settles once the worker is ready or dead. */
  started: Promise<void>;
}

interface InFlight {
  to: number;
  state: Int32Array;
  reply: Promise<BatchReply>;
  /** Set once the reply is in: awaiting it would not leave this thread idle. */
  settled: boolean;
}

export interface PoolOptions {
  /** Threads rendering rows, this one included: N - 1 worker threads are started. */
  workers: number;
  format: OutputFormat;
  /** Also give each row's UTF-8 length. */
  rowBytes?: boolean;
  /** Rows per batch (tests use small batches); default from the plan. */
  batchRows?: number;
  /** Wait until every worker is ready before the first batch (tests: every worker takes part). */
  waitForWorkers?: boolean;
  /**
   * The run this thread renders with, when the caller has one of `prepared` and `seed` (one graph
   * per thread keeps the components' call sites monomorphic); its stream state is not kept.
   */
  run?: SynthRun;
  /** Workers started ahead (worker-start.ts): taken before any new one is started. */
  reserve?: WorkerReserve;
}

/** Worker threads rendering batches of one run; `close()` ends them. */
export class RowPool {
  private readonly slots: Slot[] = [];
  private readonly local: SynthRun;
  private readonly names: readonly string[];
  private readonly jump: StateJump;
  private readonly batchRows: number;
  private nextId = 0;
  private turn = 0;
  /** Batches rendered here because a guess or a worker failed (for tests and benches). */
  redone = 0;
  /** Batches this thread rendered from a guess instead of waiting for a worker. */
  localBatches = 0;

  constructor(
    private readonly prepared: PreparedModel,
    seed: bigint,
    plan: Extract<ParallelPlan, { ok: true }>,
    private readonly options: PoolOptions,
  ) {
    this.local = options.run ?? new SynthRun(prepared, seed);
    this.names = this.local.header();
    this.batchRows = options.batchRows ?? plan.batchRows;
    this.jump = new StateJump(this.batchRows * plan.stepsPerRow);
    const setup: WorkerSetup = {
      model: prepared.model,
      edition: prepared.edition,
      outside: prepared.outside,
      formats: prepared.formats,
      limits: prepared.limits,
      seed,
      format: options.format,
      rowBytes: options.rowBytes ?? false,
    };
    // this thread renders too (while the workers start, and whenever it would wait for one)
    for (let i = 1; i < options.workers; i++) this.slots.push(this.open(setup));
  }

  private open(setup: WorkerSetup): Slot {
    let started = (): void => undefined;
    const { worker, loaded } = this.options.reserve?.take() ?? { worker: startRowWorker(), loaded: false };
    worker.postMessage(setup);
    const slot: Slot = {
      worker,
      waiting: [],
      // loaded ahead: its run is built within milliseconds of the setup, before any batch queued now
      ready: loaded,
      dead: false,
      started: new Promise((resolve) => (started = resolve)),
    };
    slot.worker.on('message', (message: WorkerMessage) => {
      if ('loaded' in message) return; // said to the reserve (worker-start.ts) or, unread, to us
      if ('ready' in message) {
        slot.ready = true;
        started();
      } else slot.waiting.shift()?.(message);
    });
    const stop = (why: string): void => {
      slot.dead = true;
      started();
      for (const resolve of slot.waiting.splice(0)) resolve({ id: -1, error: why });
    };
    slot.worker.on('error', (err) => stop(err.message));
    slot.worker.on('exit', () => stop('the worker stopped'));
    return slot;
  }

  /** Workers that take batches now: started, and not dead. */
  private working(): Slot[] {
    return this.slots.filter((s) => s.ready && !s.dead);
  }

  private send(task: BatchTask): Promise<BatchReply> | undefined {
    const alive = this.working();
    if (alive.length === 0) return undefined;
    const slot = alive[this.turn++ % alive.length]!;
    return new Promise((resolve) => {
      slot.waiting.push(resolve);
      slot.worker.postMessage(task);
    });
  }

  /** Renders a batch on this thread from the true state (errors here are the real ones). */
  private here(from: number, to: number, state: Int32Array): Batch {
    const { format, rowBytes } = this.options;
    const done = renderBatch(this.local, this.names, format, from, to, state, rowBytes ?? false);
    return { from, to, start: state, ...done };
  }

  /**
   * A batch rendered here from a guessed start, checked like a worker's. A failure is kept as a
   * failed reply: the batch is rendered again from the true state, where the error is real.
   */
  private guessHere(from: number, to: number, state: Int32Array): InFlight {
    let reply: BatchReply;
    try {
      const { format, rowBytes } = this.options;
      reply = { id: -1, ...renderBatch(this.local, this.names, format, from, to, state, rowBytes ?? false) };
    } catch (err) {
      reply = { id: -1, error: err instanceof Error ? err.message : String(err) };
    }
    return { to, state, reply: Promise.resolve(reply), settled: true };
  }

  /**
   * Rows [from, to) in order, batch by batch, given the stream state before row `from`. Stopping
   * early (return) leaves the pool usable; `close()` ends its workers.
   */
  async *batches(from: number, to: number, state: Int32Array): AsyncGenerator<Batch, void, undefined> {
    const inflight = new Map<number, InFlight>();
    let verified: Int32Array = state.slice();
    let at = from;
    let dispatchFrom = from;
    let dispatchState: Int32Array | undefined = verified;
    let misses = 0;
    let done = 0;
    let guessing = true;
    /** Claims the next batch to guess: its rows and start, and moves the guess on past it. */
    const claim = (): { from: number; end: number; state: Int32Array } | undefined => {
      if (!guessing || dispatchFrom >= to || dispatchState === undefined) return undefined;
      const claimed = {
        from: dispatchFrom,
        end: Math.min(to, dispatchFrom + this.batchRows),
        state: dispatchState,
      };
      dispatchState =
        claimed.end - claimed.from === this.batchRows ? this.jump.apply(dispatchState) : undefined;
      dispatchFrom = claimed.end;
      return claimed;
    };
    // batches held (in flight or done ahead) stay few: memory is bounded whatever the pace
    const cap = 4 * (this.slots.length + 1);
    const fill = (): void => {
      const alive = this.working().length;
      if (alive === 0) return; // a batch claimed now would have no one to go to
      let pending = 0;
      for (const e of inflight.values()) if (!e.settled) pending++;
      for (; pending < QUEUED_PER_WORKER * alive && inflight.size < cap; pending++) {
        const next = claim();
        if (next === undefined) return;
        const reply = this.send({ id: this.nextId++, from: next.from, to: next.end, state: next.state });
        if (reply === undefined) return;
        const entry: InFlight = { to: next.end, state: next.state, reply, settled: false };
        void reply.then(() => (entry.settled = true));
        inflight.set(next.from, entry);
      }
    };
    if (this.options.waitForWorkers) await Promise.all(this.slots.map((s) => s.started));
    while (at < to) {
      fill();
      // rather than wait for a worker (or for one to start), render the next unclaimed batch here;
      // then let the workers' replies in (they queue while this thread renders) before looking again
      const head = inflight.get(at);
      if (head === undefined || (!head.settled && inflight.size < cap)) {
        const next = claim();
        if (next !== undefined) {
          inflight.set(next.from, this.guessHere(next.from, next.end, next.state));
          this.localBatches++;
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
      }
      const entry = inflight.get(at);
      inflight.delete(at);
      const reply = entry && (await entry.reply);
      let batch: Batch;
      if (entry && reply && !('error' in reply) && sameState(entry.state, verified))
        batch = { from: at, to: entry.to, start: verified, ...reply };
      else {
        const guessedWrong = entry !== undefined && !sameState(entry.state, verified);
        batch = this.here(at, Math.min(to, at + this.batchRows), verified);
        this.redone++;
        if (guessedWrong || !entry) {
          misses += guessedWrong ? 1 : 0;
          // every guess after this one came from the wrong start: restart them from the truth
          inflight.clear();
          dispatchFrom = batch.to;
          dispatchState = batch.end;
        }
      }
      done++;
      // rejections common enough to spoil most guesses: the workers only waste time
      if (misses > 2 && misses * 4 > done) guessing = false;
      verified = batch.end;
      at = batch.to;
      yield batch;
    }
  }

  /** Ends every worker. */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
