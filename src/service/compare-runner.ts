/**
 * compare_sample's work off the event loop (issue 47): parsing a sample of up to 4 MiB, drawing
 * as many rows of the model and comparing them held the server's event loop for seconds, so every
 * other client waited. The comparison now runs in a worker thread with a heap limit, stopped by
 * its time budget or the caller's cancellation, behind the fits' gate (fitGate).
 */
import type { Worker } from 'node:worker_threads';
import { CompareError } from '../synth/compare/index.js';
import { loadSynthModel, parseModel } from '../synth/index.js';
import {
  bad,
  type CarriedError,
  type CompareJob,
  COMPARE_LIMITS,
  carryError,
  checkSampleText,
  ignoreArg,
  optionsArg,
  rebuildError,
  wantsGeneration,
} from './compare-job.js';
import { fitGate } from './fit-runner.js';
import { startModuleWorker } from './module-worker.js';
import type { SynthService } from './synth-service.js';

/** What a comparison's worker answers. */
export type CompareReply =
  | { kind: 'ok'; report: Record<string, unknown>; customsLoaded: boolean }
  | { kind: 'refused'; error: CarriedError }
  | { kind: 'failed'; message: string };

/** The heap of one comparison's worker, MB: a 4 MiB sample and as many generated rows fit with room. */
export const COMPARE_WORKER_MEMORY_MB = 1024;

const cancelled = (): CompareError => new CompareError('COMPARE_LIMIT', 'the comparison was cancelled');

/** A held csv generation's rows as text, or the error reading it gives (raised in the worker's order). */
function readGeneration(service: SynthService, id: string): CompareJob['generation'] {
  try {
    if (!id.startsWith('e-'))
      throw bad('generationId must be an e-… id of this server (generate in embedded mode)');
    const info = service.generationInfo(id);
    if (info.format !== 'csv') throw bad(`generation ${id} is ${info.format}; compare reads csv generations`);
    let text = '';
    for (let offset = 0; offset < info.count;) {
      const page = service.readGeneration(id, { offset, limit: 10_000, maxChars: Number.MAX_SAFE_INTEGER });
      text += page.data;
      offset += page.rowCount;
    }
    return { text };
  } catch (err) {
    const carried = carryError(err);
    if (!carried) throw err;
    return { error: carried };
  }
}

/**
 * Compares a sample (the compare_sample tool's raw arguments) in a worker. @throws CompareError
 * (COMPARE_INPUT, COMPARE_LIMIT for size, time, memory or cancellation), SynthServiceError
 * (BAD_REQUEST, BUSY when the gate is full, ...), a coded model error, or an uncoded Error for an
 * internal failure (its detail for the log)
 */
export async function compareInWorker(
  service: SynthService,
  a: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const args = {
    sampleCsv: a.sampleCsv,
    options: a.options,
    modelText: a.modelText,
    generationId: a.generationId,
    seed: a.seed,
    ignore: a.ignore,
  };
  return fitGate()
    .run(async () => {
      // the cheap refusals first, as before, without starting a thread
      optionsArg(args.options);
      ignoreArg(args.ignore);
      checkSampleText(args.sampleCsv);
      const {
        onCustomsLoaded: _told,
        ports: _ports,
        components: _components,
        ...load
      } = service.loadOptions();
      const job: CompareJob = {
        args,
        load,
        ...(wantsGeneration(args) ? { generation: readGeneration(service, args.generationId) } : {}),
      };
      const reply = await runWorker(job, signal);
      // a model that bound custom components: the server loads it too, so list_components shows them
      if (reply.customsLoaded && typeof args.modelText === 'string')
        await loadSynthModel(parseModel(args.modelText), service.loadOptions());
      return reply.report;
    }, signal)
    .catch((err: unknown) => {
      if (signal.aborted && !(err instanceof CompareError)) throw cancelled();
      throw err;
    });
}

function runWorker(
  job: CompareJob,
  signal: AbortSignal,
): Promise<{ report: Record<string, unknown>; customsLoaded: boolean }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(cancelled());
    const worker: Worker = startModuleWorker('compare-worker', {
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: COMPARE_WORKER_MEMORY_MB, stackSizeMb: 4 },
      stdout: true,
      stderr: false,
    });
    type Outcome = { ok: { report: Record<string, unknown>; customsLoaded: boolean } } | { err: Error };
    let outcome: Outcome | undefined;
    const settle = (o: Outcome): void => {
      outcome ??= o;
    };
    const internal = (detail: string): Error => new Error(`compare worker: ${detail}`);
    worker.stdout.on('data', (chunk: Buffer) =>
      process.stderr.write(`modelworks: compare worker: ${chunk.toString('utf8').trimEnd()}\n`),
    );
    const timer = setTimeout(() => {
      settle({
        err: new CompareError(
          'COMPARE_LIMIT',
          `the comparison passed its ${COMPARE_LIMITS.timeMs / 1000} s budget; use a smaller sample`,
        ),
      });
      void worker.terminate();
    }, COMPARE_LIMITS.timeMs);
    const onAbort = (): void => {
      settle({ err: cancelled() });
      void worker.terminate();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (reply: CompareReply) => {
      if (reply.kind === 'ok') settle({ ok: { report: reply.report, customsLoaded: reply.customsLoaded } });
      else if (reply.kind === 'refused') settle({ err: rebuildError(reply.error) });
      else settle({ err: internal(reply.message) });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY')
        settle({
          err: new CompareError(
            'COMPARE_LIMIT',
            `the comparison needed more than its ${COMPARE_WORKER_MEMORY_MB} MB of memory and was stopped; use a smaller sample`,
          ),
        });
      else settle({ err: internal(err.stack ?? err.message) });
    });
    worker.on('exit', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      settle({ err: internal(`exited (code ${code}) without an answer`) });
      if ('ok' in outcome!) resolve(outcome.ok);
      else reject(outcome!.err);
    });
  });
}
