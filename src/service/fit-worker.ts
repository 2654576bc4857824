/**
 * The entry of a fit's worker thread (started by fit-runner.ts): fits the sample it was given,
 * writes the model text and answers with one message. The fit's CPU time is spent here, off the
 * server's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FitError, fitCsv } from '../synth/fit/index.js';
import { writeModel } from '../synth/index.js';
import type { FitJob, FitReply } from './fit-runner.js';

const job = workerData as FitJob;
let reply: FitReply;
try {
  const { model, report } = fitCsv(job.text, job.options);
  reply = { kind: 'ok', modelText: writeModel(model, job.format), report };
} catch (err) {
  reply =
    err instanceof FitError
      ? { kind: 'refused', code: err.code, message: err.message }
      : { kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}
parentPort!.postMessage(reply);
