/**
 * fit_model's work off the event loop (issue 47): the fit runs in a worker thread with a heap
 * limit, stopped by its wall-time budget or the caller's cancellation, a few at a time behind a
 * gate (MODELWORKS_FIT_WORKERS running, MODELWORKS_FIT_QUEUE waiting, then BUSY). The old fit
 * gave the event loop back between columns, but parsing an 8 MB sample and a column of 200,000
 * rows each held it for seconds.
 */
import type { Worker } from 'node:worker_threads';
import { FitError, type FitOptions, type FitResult } from '../synth/fit/index.js';
import type { ModelFormat } from '../synth/index.js';
import { startModuleWorker } from './module-worker.js';
import { SynthServiceError } from './synth-errors.js';
import { gateLimitsFromEnv, WorkGate, type GateSettings } from './work-gate.js';

/** What a fit worker is given. */
export interface FitJob {
  text: string;
  options: FitOptions;
  format: ModelFormat;
}

/** What a fit worker answers. */
export type FitReply =
  | { kind: 'ok'; modelText: string; report: FitResult['report'] }
  | { kind: 'refused'; code: FitError['code']; message: string }
  | { kind: 'failed'; message: string };

/** The heap of one fit's worker, MB: an 8 MB sample of 200,000 rows fits with room to spare. */
export const FIT_WORKER_MEMORY_MB = 1024;

export const FIT_GATE_SETTINGS: GateSettings = {
  runningEnv: 'MODELWORKS_FIT_WORKERS',
  queueEnv: 'MODELWORKS_FIT_QUEUE',
  defaults: { running: 1, queue: 4 },
};

let gate: WorkGate | undefined;

/** The process's one gate for fits and sample comparisons (settings read on first use). */
export function fitGate(): WorkGate {
  gate ??= new WorkGate(
    'fits or comparisons',
    gateLimitsFromEnv(FIT_GATE_SETTINGS),
    FIT_GATE_SETTINGS,
    (message, details) => new SynthServiceError('BUSY', message, details),
  );
  return gate;
}

/** Starts the fit worker on `job` with the fit's heap limit. */
function startWorker(job: FitJob): Worker {
  return startModuleWorker('fit-worker', {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: FIT_WORKER_MEMORY_MB, stackSizeMb: 4 },
    stdout: true,
    stderr: false,
  });
}

export interface FitRunControl {
  signal: AbortSignal;
  /** The wall-time budget of the fit once it runs. */
  timeMs: number;
  /** Where the details of unexpected failures go (stderr by default: stdout may be the MCP channel). */
  log?: (message: string) => void;
}

/**
 * Fits `job` in a worker. @throws FitError (FIT_INPUT, FIT_LIMIT for time or memory, CANCELLED),
 * SynthServiceError (BUSY when the gate is full, INTERNAL)
 */
export function fitInWorker(
  job: FitJob,
  control: FitRunControl,
): Promise<{ modelText: string; report: FitResult['report'] }> {
  const log = control.log ?? ((m: string) => process.stderr.write(`modelworks: ${m}\n`));
  const cancelled = () => new FitError('CANCELLED', 'the request was cancelled; the fit was stopped');
  return fitGate()
    .run(() => runWorker(job, control, log), control.signal)
    .catch((err: unknown) => {
      if (control.signal.aborted && !(err instanceof FitError)) throw cancelled();
      throw err;
    });
}

function runWorker(
  job: FitJob,
  control: FitRunControl,
  log: (message: string) => void,
): Promise<{ modelText: string; report: FitResult['report'] }> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(job);
    let outcome: { ok: { modelText: string; report: FitResult['report'] } } | { err: Error } | undefined;
    const settle = (o: NonNullable<typeof outcome>): void => {
      outcome ??= o;
    };
    worker.stdout.on('data', (chunk: Buffer) => log(`fit worker: ${chunk.toString('utf8').trimEnd()}`));
    const timer = setTimeout(() => {
      settle({
        err: new FitError(
          'FIT_LIMIT',
          `the fit passed its ${control.timeMs / 1000} s budget and was stopped; fit fewer rows or columns`,
        ),
      });
      void worker.terminate();
    }, control.timeMs);
    const onAbort = (): void => {
      settle({ err: new FitError('CANCELLED', 'the request was cancelled; the fit was stopped') });
      void worker.terminate();
    };
    control.signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: FitReply) => {
      if (reply.kind === 'ok') settle({ ok: { modelText: reply.modelText, report: reply.report } });
      else if (reply.kind === 'refused') settle({ err: new FitError(reply.code, reply.message) });
      else {
        log(`fit worker failed: ${reply.message}`);
        settle({ err: new SynthServiceError('INTERNAL', 'internal error: the sample could not be fitted') });
      }
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY')
        settle({
          err: new FitError(
            'FIT_LIMIT',
            `the fit needed more than its ${FIT_WORKER_MEMORY_MB} MB of memory and was stopped; fit fewer rows or columns`,
          ),
        });
      else {
        log(`fit worker failed: ${err.stack ?? err.message}`);
        settle({ err: new SynthServiceError('INTERNAL', 'internal error: the sample could not be fitted') });
      }
    });
    worker.on('exit', (code) => {
      clearTimeout(timer);
      control.signal.removeEventListener('abort', onAbort);
      if (!outcome) {
        log(`fit worker exited (code ${code}) without an answer`);
        settle({ err: new SynthServiceError('INTERNAL', 'internal error: the sample could not be fitted') });
      }
      if ('ok' in outcome!) resolve(outcome.ok);
      else reject(outcome!.err);
    });
  });
}
