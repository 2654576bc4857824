/**
 * Spreadsheet conversions off the event loop: each runs in its own worker thread with a heap
 * limit and a time limit, a few at a time, the rest queued up to a bound. Whatever happens in a
 * worker (a refusal, running out of memory or time, a crash), the caller gets a result with a
 * stable reason; the server itself keeps answering.
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { startModuleWorker } from './module-worker.js';
// the compiler's limits and result types only: the compiler itself loads in the worker
import { DEFAULT_LIMITS, type SheetLimits } from '../sheet/errors.js';
import type { ConvertProgress } from '../sheet/index.js';
import type { ExpressionLimits } from '../calc/index.js';
import {
  internalFailure,
  type ConvertSpreadsheetResult,
  type SheetServiceReason,
  type SpreadsheetRequest,
} from './sheet-result.js';

/** The budgets of a server's conversions (settings: SHEET_BUDGET_SETTINGS). */
export interface SheetBudgets {
  /** Cells the worksheet may hold (its `<c>` elements), counted before it is parsed. */
  maxCells: number;
  /** Heap of one conversion's worker (V8 old generation), MB. */
  workerMemoryMb: number;
  /** Wall time of one conversion once it runs, seconds. */
  timeLimitSeconds: number;
  /** Conversions running at once. */
  workers: number;
  /** Conversions waiting for a worker; one more is refused as BUSY. */
  queue: number;
}

export const DEFAULT_SHEET_BUDGETS: Readonly<SheetBudgets> = {
  maxCells: 200_000,
  workerMemoryMb: 512,
  timeLimitSeconds: 60,
  workers: 1,
  queue: 4,
};

/** Each setting: the budget it sets and the whole numbers it accepts. */
export const SHEET_BUDGET_SETTINGS = {
  MODELWORKS_SHEET_MAX_CELLS: { key: 'maxCells', min: 1, max: 10_000_000 },
  MODELWORKS_SHEET_WORKER_MEMORY_MB: { key: 'workerMemoryMb', min: 32, max: 65_536 },
  MODELWORKS_SHEET_TIME_LIMIT_SECONDS: { key: 'timeLimitSeconds', min: 1, max: 3600 },
  MODELWORKS_SHEET_WORKERS: { key: 'workers', min: 1, max: 64 },
  MODELWORKS_SHEET_QUEUE: { key: 'queue', min: 0, max: 1000 },
} as const satisfies Record<string, { key: keyof SheetBudgets; min: number; max: number }>;

type Setting = keyof typeof SHEET_BUDGET_SETTINGS;

/** The budgets from the environment, defaults for what is unset. @throws Error naming a bad setting */
export function sheetBudgetsFromEnv(env: NodeJS.ProcessEnv = process.env): SheetBudgets {
  const budgets: SheetBudgets = { ...DEFAULT_SHEET_BUDGETS };
  for (const setting of Object.keys(SHEET_BUDGET_SETTINGS) as Setting[]) {
    const text = env[setting]?.trim();
    if (text === undefined || text === '') continue;
    const { key, min, max } = SHEET_BUDGET_SETTINGS[setting];
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max)
      throw new Error(`${setting} must be a whole number from ${min} to ${max} (got '${text}')`);
    budgets[key] = value;
  }
  return budgets;
}

/** What a worker is given. */
export interface SheetJob {
  /** Whether the worker posts its progress (SheetReply 'progress') as it goes. */
  progress?: boolean;
  /** The calc engine's evaluation limits, when the starting thread has its own (a worker starts with the defaults). */
  expressionLimits?: Readonly<ExpressionLimits>;
  bytes: Uint8Array;
  filename: string;
  modelId: string;
  limits: SheetLimits;
  /** Set when the result must fit a size (pretty JSON characters): a larger one is only measured. */
  maxResultChars?: number;
}

/** What a worker answers. */
export type SheetReply =
  | { kind: 'result'; result: ConvertSpreadsheetResult }
  | { kind: 'too-large'; resultChars: number }
  | { kind: 'progress'; progress: ConvertProgress };

/** A conversion's outcome: its result, or the size of a result too large to send. */
export type SheetOutcome = { result: ConvertSpreadsheetResult } | { tooLarge: { resultChars: number } };

export interface SheetWorkersOptions {
  budgets?: SheetBudgets;
  /** The compiler's limits besides the cell budget (file size, rows, columns). */
  limits?: SheetLimits;
  /** Where the details of unexpected failures go (stderr by default). */
  log?: (message: string) => void;
}

const refusal = (reason: SheetServiceReason, error: string): SheetOutcome => ({
  result: { valid: false, reason, error },
});

/** Starts the sheet worker on `job` with the given heap and stack limits. */
function startWorker(job: SheetJob, resourceLimits: ResourceLimits): Worker {
  return startModuleWorker('sheet-worker', { workerData: job, resourceLimits, stdout: true, stderr: false });
}

/** How one worker runs: its heap, an optional time limit and cancellation, where its progress goes. */
export interface SheetWorkerRun {
  /** The worker's heap (V8 old generation), MB. */
  memoryMb: number;
  /** Wall time once it runs, seconds; none when unset. */
  timeLimitSeconds?: number;
  signal?: AbortSignal;
  /** Told as the conversion goes, from the worker's messages (the CLI's progress on stderr). */
  onProgress?: (progress: ConvertProgress) => void;
  /** Where stray worker output and the details of unexpected failures go. */
  log: (message: string) => void;
}

/** What one worker run ends with: the worker's answer, or why it was stopped before it answered. */
export type SheetWorkerOutcome = SheetOutcome | { stopped: 'out-of-memory' | 'time-limit' | 'cancelled' };

/**
 * Runs one conversion in a worker thread with a capped heap; never throws. Shared by the servers'
 * queue (SheetWorkers) and `calc from-xlsx`, which runs its conversion capped and falls back to an
 * uncapped run on 'out-of-memory'.
 */
export function runSheetWorker(job: SheetJob, run: SheetWorkerRun): Promise<SheetWorkerOutcome> {
  const { log } = run;
  const withProgress: SheetJob = run.onProgress ? { ...job, progress: true } : job;
  return new Promise<SheetWorkerOutcome>((resolve) => {
    let worker: Worker;
    try {
      worker = startWorker(withProgress, { maxOldGenerationSizeMb: run.memoryMb, stackSizeMb: 4 });
    } catch (err) {
      resolve({ result: internalFailure(err, log) });
      return;
    }
    // a worker's stray output must not reach stdout, which may be the MCP channel
    worker.stdout.on('data', (chunk: Buffer) => log(`sheet worker: ${chunk.toString('utf8').trimEnd()}`));
    let outcome: SheetWorkerOutcome | undefined;
    const settle = (o: SheetWorkerOutcome): void => {
      outcome ??= o;
    };
    const timer =
      run.timeLimitSeconds === undefined
        ? undefined
        : setTimeout(() => {
            settle({ stopped: 'time-limit' });
            void worker.terminate();
          }, run.timeLimitSeconds * 1000);
    const onAbort = (): void => {
      settle({ stopped: 'cancelled' });
      void worker.terminate();
    };
    run.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: SheetReply) => {
      if (reply.kind === 'progress') run.onProgress?.(reply.progress);
      else if (reply.kind === 'result') settle({ result: reply.result });
      else settle({ tooLarge: { resultChars: reply.resultChars } });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') settle({ stopped: 'out-of-memory' });
      else settle({ result: internalFailure(err, log) });
    });
    worker.on('exit', (code) => {
      if (timer !== undefined) clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      if (!outcome)
        settle({
          result: internalFailure(new Error(`the sheet worker exited (code ${code}) without an answer`), log),
        });
      resolve(outcome!);
    });
  });
}

interface Waiting {
  start: () => void;
  cancel: () => void;
}

/** Runs conversions in worker threads within the budgets. One per process: the budgets are the process's. */
export class SheetWorkers {
  readonly budgets: Readonly<SheetBudgets>;
  private readonly limits: SheetLimits;
  private readonly log: (message: string) => void;
  private running = 0;
  private readonly waiting: Waiting[] = [];
  /** The runs going now: how to stop each, and its end. */
  private readonly live = new Map<AbortController, Promise<unknown>>();

  constructor(options: SheetWorkersOptions = {}) {
    this.budgets = { ...(options.budgets ?? DEFAULT_SHEET_BUDGETS) };
    // the time limit goes in too: the what-if evaluator's budget follows it (grid/limits.ts)
    this.limits = {
      ...(options.limits ?? DEFAULT_LIMITS),
      maxCells: this.budgets.maxCells,
      timeLimitSeconds: this.budgets.timeLimitSeconds,
    };
    this.log = options.log ?? ((m) => process.stderr.write(`modelworks: ${m}\n`));
  }

  /** Conversions running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Converts in a worker once one is free. Never throws: a refusal of the workbook, of the load
   * (BUSY) or of the worker's budgets (RESOURCE_LIMIT, TIME_LIMIT) is a result like any other.
   */
  async convert(
    request: SpreadsheetRequest,
    options: { maxResultChars?: number; signal?: AbortSignal } = {},
  ): Promise<SheetOutcome> {
    const { signal } = options;
    if (signal?.aborted)
      return refusal('CANCELLED', 'the request was cancelled before the conversion started');
    if (this.running >= this.budgets.workers) {
      if (this.waiting.length >= this.budgets.queue) {
        return refusal(
          'BUSY',
          `${this.running} conversion${this.running === 1 ? ' is' : 's are'} running and ${this.waiting.length} waiting, the most this server takes (MODELWORKS_SHEET_WORKERS=${this.budgets.workers}, MODELWORKS_SHEET_QUEUE=${this.budgets.queue}); try again shortly`,
        );
      }
      const started = await new Promise<boolean>((resolve) => {
        const entry: Waiting = {
          start: () => resolve(true),
          cancel: () => resolve(false),
        };
        this.waiting.push(entry);
        signal?.addEventListener(
          'abort',
          () => {
            const i = this.waiting.indexOf(entry);
            if (i >= 0) this.waiting.splice(i, 1);
            entry.cancel();
          },
          { once: true },
        );
      });
      if (!started) return refusal('CANCELLED', 'the request was cancelled while it waited for a worker');
    } else {
      this.running++;
    }
    try {
      return await this.run(request, options);
    } finally {
      const next = this.waiting.shift();
      if (next) next.start();
      else this.running--;
    }
  }

  /** Stops every running worker (their callers get a refusal). */
  async close(): Promise<void> {
    for (const stop of this.live.keys()) stop.abort();
    await Promise.all(this.live.values());
  }

  private async run(
    request: SpreadsheetRequest,
    options: { maxResultChars?: number; signal?: AbortSignal },
  ): Promise<SheetOutcome> {
    const { budgets } = this;
    const job: SheetJob = {
      bytes: request.bytes,
      filename: request.filename,
      modelId: request.modelId,
      limits: this.limits,
      ...(options.maxResultChars !== undefined ? { maxResultChars: options.maxResultChars } : {}),
    };
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const running = runSheetWorker(job, {
      memoryMb: budgets.workerMemoryMb,
      timeLimitSeconds: budgets.timeLimitSeconds,
      signal,
      log: this.log,
    });
    this.live.set(stop, running);
    const outcome = await running.finally(() => this.live.delete(stop));
    if ('result' in outcome) return { result: this.named(outcome.result) };
    if ('tooLarge' in outcome) return outcome;
    switch (outcome.stopped) {
      case 'out-of-memory':
        return refusal(
          'RESOURCE_LIMIT',
          `the conversion needed more than the ${budgets.workerMemoryMb} MB of memory a conversion may use (MODELWORKS_SHEET_WORKER_MEMORY_MB) and was stopped; convert a smaller table, or run \`modelworks calc from-xlsx\``,
        );
      case 'time-limit':
        return refusal(
          'TIME_LIMIT',
          `the conversion ran past its ${budgets.timeLimitSeconds}-second limit (MODELWORKS_SHEET_TIME_LIMIT_SECONDS) and was stopped; convert a smaller table, or run \`modelworks calc from-xlsx\``,
        );
      case 'cancelled':
        return refusal('CANCELLED', 'the request was cancelled; the conversion was stopped');
    }
  }

  /** The compiler's cell refusal, with the setting that sets this server's limit. */
  private named(result: ConvertSpreadsheetResult): ConvertSpreadsheetResult {
    if (result.valid || result.reason !== 'TOO_MANY_CELLS') return result;
    return {
      ...result,
      error: `${result.error} (MODELWORKS_SHEET_MAX_CELLS); convert a smaller table, or run \`modelworks calc from-xlsx\`, which has no cell budget`,
    };
  }
}

let processWide: SheetWorkers | undefined;

/**
 * The process's conversions, with budgets from its environment (read on first use). Servers call
 * it at start-up, so that a bad setting stops them there. @throws Error naming a bad setting
 */
export function sheetWorkers(): SheetWorkers {
  processWide ??= new SheetWorkers({ budgets: sheetBudgetsFromEnv(process.env) });
  return processWide;
}
