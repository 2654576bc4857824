/**
 * The entry of a comparison's worker thread (started by compare-runner.ts): parses the sample,
 * draws the model's output and compares them, off the server's event loop, and answers with one
 * message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { realPorts } from '../synth-io/index.js';
import { carryError, runCompareJob, type CompareJob } from './compare-job.js';
import type { CompareReply } from './compare-runner.js';

const job = workerData as CompareJob;
let customsLoaded = false;
let reply: CompareReply;
try {
  const report = await runCompareJob(job, {
    ...job.load,
    ports: realPorts(),
    // the server keeps the list of loaded custom components; it is told to load them itself
    onCustomsLoaded: (customs) => {
      if (customs.size > 0) customsLoaded = true;
    },
  });
  reply = { kind: 'ok', report, customsLoaded };
} catch (err) {
  const carried = carryError(err);
  reply = carried
    ? { kind: 'refused', error: carried }
    : { kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}
parentPort!.postMessage(reply);
