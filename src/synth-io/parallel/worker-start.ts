/**
 * Starting row workers, kept apart from the pool (and from the engine) so that a command can start
 * them before it loads anything else. A worker needs 150-225 ms to start (Node's own start-up and
 * loading the row loop's modules) before it renders a row; started while the command loads the
 * engine and reads the model, it is ready by the time the rows begin (docs/synth-workers.md).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Below this many rows one thread is faster: each worker costs ~0.25 s of CPU to start and warm up. */
export const PARALLEL_MIN_ROWS = 500_000;

/** The default worker count: the cores this process may use. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/**
 * Starts a row worker: the compiled worker.js beside this module, or the .ts through tsx. It loads
 * its modules at once and builds its run from the first message it gets (a WorkerSetup).
 */
export function startRowWorker(): Worker {
  return startWorker('worker');
}

/**
 * Starts an encoding worker of the pipelined mode (encode-worker.ts): it loads the output encoders
 * alone, a handful of modules, and encodes the rows it is sent.
 */
export function startEncodeWorker(): Worker {
  return startWorker('encode-worker');
}

/** The compiled entry beside this module, or the .ts through tsx. */
function startWorker(entryName: string): Worker {
  const options = { stdout: false, stderr: false };
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL(`./${entryName}.js`, import.meta.url), options);
  // from sources (vitest): a worker does not inherit tsx's loader, so it imports the entry through it
  const entry = JSON.stringify(new URL(`./${entryName}.ts`, import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then((tsx) => tsx.tsImport(${entry}, ${entry}))`, {
    ...options,
    eval: true,
  });
}

/**
 * Row workers started ahead of a run. Until one is taken it holds the process open no longer than
 * the rest of the program does (unref'd), so a command that fails before its rows still exits.
 */
export class WorkerReserve {
  private readonly idle = new Set<Worker>();
  /** Workers that said their modules are loaded (worker.ts's first message). */
  private readonly loaded = new WeakSet<Worker>();

  constructor(count: number) {
    for (let i = 0; i < count; i++) {
      const worker = startRowWorker();
      worker.unref();
      // a worker that fails or ends while waiting is simply not handed out
      const drop = (): void => void this.idle.delete(worker);
      worker.on('error', drop);
      worker.on('exit', drop);
      worker.on('message', (message: unknown) => {
        if (typeof message === 'object' && message !== null && 'loaded' in message) this.loaded.add(worker);
      });
      this.idle.add(worker);
    }
  }

  /** Workers still waiting to be taken. */
  get size(): number {
    return this.idle.size;
  }

  /**
   * A started worker, ref'd again (it is the pool's now), and whether its modules are loaded; or
   * undefined when none is left.
   */
  take(): { worker: Worker; loaded: boolean } | undefined {
    const [worker] = this.idle;
    if (worker === undefined) return undefined;
    this.idle.delete(worker);
    worker.ref();
    return { worker, loaded: this.loaded.has(worker) };
  }

  /** Ends the workers nobody took. */
  async release(): Promise<void> {
    const left = [...this.idle];
    this.idle.clear();
    await Promise.all(left.map((w) => w.terminate()));
  }
}

/**
 * A reserve for a run of `rows` rows over `workers` threads (N - 1 workers), or undefined when such
 * a run stays on one thread anyway. Whether the model's rows can be split is known only once it
 * is loaded; when they cannot, the reserve is released unused (0.2 s of CPU per worker, on cores
 * that one thread leaves idle). No more are started ahead than the cores can run beside this
 * thread: a run that asks for more (up to 256) starts the rest once it is known to split.
 */
export function reserveWorkers(rows: number, workers: number): WorkerReserve | undefined {
  const ahead = Math.min(workers, defaultWorkers()) - 1;
  if (ahead < 1 || rows < PARALLEL_MIN_ROWS) return undefined;
  return new WorkerReserve(ahead);
}
