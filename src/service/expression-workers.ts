/**
 * Ad-hoc expressions from a request (`eval_expression`) run in a pooled worker thread with a heap
 * limit, stopped at their time budget: the calc engine's allocation budget (calc/expression-budget.ts)
 * refuses the runaways we know of, and the worker is the wall behind it for those we do not, so
 * running out of memory or time ends a worker, never the server. An expression proven cheap
 * (calc/expression-budget.ts, `isProvenCheap`) and without a library runs in the calling thread,
 * since a worker round trip costs more than it does.
 */
import { Worker } from 'node:worker_threads';
import {
  compileExpression,
  evalExpression,
  expressionLimits,
  isProvenCheap,
  type EvalExpressionResult,
  type ExpressionLimits,
} from '../calc/index.js';

/** What a worker is sent. */
export interface ExpressionJob {
  id: number;
  expr: string;
  input: unknown;
  library: unknown;
  constants: Record<string, unknown>;
  limits: ExpressionLimits;
}

/** What a worker answers. */
export interface ExpressionReply {
  id: number;
  result: EvalExpressionResult;
}

export interface ExpressionWorkersOptions {
  /** Workers kept (and jobs running at once). */
  size?: number;
  /** Heap of one worker (V8 old generation), MB. */
  memoryMb?: number;
  /** Jobs waiting for a worker; one more is refused. */
  queue?: number;
  /** Time past the evaluation's own time budget before its worker is stopped, ms. */
  graceMs?: number;
}

/** The error codes a caller sees in the `message` of an evaluation the worker could not finish. */
export const WORKER_MEMORY_CODE = 'EVAL_MEMORY_LIMIT';
export const WORKER_TIME_CODE = 'EVAL_TIME_LIMIT';
export const WORKERS_BUSY_CODE = 'EVAL_BUSY';

const failed = (message: string): EvalExpressionResult => ({ ok: false, error: 'evaluation', message });

/** Starts a worker: the compiled expression-worker.js beside this module, or the .ts through tsx. */
function startWorker(memoryMb: number): Worker {
  const options = {
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, stackSizeMb: 4 },
    stdout: true,
    stderr: false,
  };
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./expression-worker.js', import.meta.url), options);
  // running from sources (vitest): a worker does not inherit tsx's loader (see sheet-workers.ts)
  const entry = JSON.stringify(new URL('./expression-worker.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then((tsx) => tsx.tsImport(${entry}, ${entry}))`, {
    ...options,
    eval: true,
  });
}

export class ExpressionWorkers {
  private readonly size: number;
  private readonly memoryMb: number;
  private readonly queueLimit: number;
  private readonly graceMs: number;
  private readonly log: (message: string) => void;
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private nextId = 0;
  /** Workers started so far (a pool that works reuses them). */
  started = 0;

  constructor(options: ExpressionWorkersOptions = {}, log?: (message: string) => void) {
    this.size = options.size ?? 1;
    this.memoryMb = options.memoryMb ?? 256;
    this.queueLimit = options.queue ?? 32;
    this.graceMs = options.graceMs ?? 1000;
    this.log = log ?? ((m) => process.stderr.write(`modelworks: ${m}\n`));
  }

  /** Evaluates as `evalExpression` does; never throws, whatever the expression does. */
  async evaluate(
    expr: string,
    input: unknown = {},
    library?: unknown,
    constants: Record<string, unknown> = {},
  ): Promise<EvalExpressionResult> {
    const compiled = compileExpression(expr);
    if (!compiled.ok || ((library === undefined || library === null) && isProvenCheap(compiled.expr.ast)))
      return evalExpression(expr, input, library, constants);
    if (this.running >= this.size) {
      if (this.waiting.length >= this.queueLimit)
        return failed(
          `${WORKERS_BUSY_CODE}: ${this.running} expression${this.running === 1 ? ' is' : 's are'} running and ${this.waiting.length} waiting, the most this server takes; try again shortly`,
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await this.run(expr, input, library, constants);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    this.idle.length = 0;
    await Promise.all([...this.live].map((w) => w.terminate()));
  }

  private take(): Worker {
    const reused = this.idle.pop();
    if (reused) return reused;
    const worker = startWorker(this.memoryMb);
    this.started++;
    this.live.add(worker);
    // a worker's stray output must not reach stdout, which may be the MCP channel
    worker.stdout.on('data', (chunk: Buffer) =>
      this.log(`expression worker: ${chunk.toString('utf8').trimEnd()}`),
    );
    worker.once('exit', () => {
      this.live.delete(worker);
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return worker;
  }

  private run(
    expr: string,
    input: unknown,
    library: unknown,
    constants: Record<string, unknown>,
  ): Promise<EvalExpressionResult> {
    const limits = expressionLimits();
    const job: ExpressionJob = { id: ++this.nextId, expr, input, library, constants, limits };
    return new Promise<EvalExpressionResult>((resolve) => {
      let worker: Worker;
      try {
        worker = this.take();
        worker.ref();
        worker.postMessage(job);
      } catch (err) {
        // input that cannot be cloned to a thread (it came from JSON, so this is unexpected)
        this.log(`expression worker: ${err instanceof Error ? err.message : String(err)}`);
        resolve(failed('the expression could not be handed to a worker'));
        return;
      }
      let settled = false;
      const finish = (result: EvalExpressionResult, keep: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (keep) {
          worker.unref();
          this.idle.push(worker);
        } else void worker.terminate();
        resolve(result);
      };
      const onMessage = (reply: ExpressionReply): void => {
        if (reply.id === job.id) finish(reply.result, true);
      };
      const onError = (err: Error & { code?: string }): void => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY')
          finish(
            failed(
              `${WORKER_MEMORY_CODE}: the expression needed more than the ${this.memoryMb} MB of memory an ad-hoc evaluation may use and was stopped`,
            ),
            false,
          );
        else {
          this.log(`expression worker failed: ${err.message}`);
          finish(failed('the expression stopped its worker unexpectedly; the server is unaffected'), false);
        }
      };
      const onExit = (code: number): void =>
        finish(failed(`the expression worker ended (code ${code}) without an answer`), false);
      const timer = setTimeout(
        () =>
          finish(
            failed(
              `${WORKER_TIME_CODE}: the expression ran past its ${limits.timeoutMs} ms time budget (MODELWORKS_CALC_EVAL_TIMEOUT_MS) within one step and was stopped`,
            ),
            false,
          ),
        limits.timeoutMs + this.graceMs,
      );
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  }
}

let processWide: ExpressionWorkers | undefined;

/** The process's expression workers (started on first use). */
export function expressionWorkers(): ExpressionWorkers {
  processWide ??= new ExpressionWorkers();
  return processWide;
}
