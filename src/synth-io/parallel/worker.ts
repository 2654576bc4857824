/**
 * A row worker: builds the model's run once, then renders the batches it is sent, each from the
 * stream state it comes with. It never decides anything about the output: the pool checks that
 * each batch starts where the previous one ended before a byte of it is used.
 */
import { parentPort, workerData } from 'node:worker_threads';
// the row loop alone, not the load phase nor the model parsers: a third fewer modules to start with
import { GraphRun } from '../../synth/engine/graph-run.js';
import { PreparedModel } from '../../synth/engine/prepared.js';
import type { BatchReply, BatchTask, WorkerReady, WorkerSetup } from './protocol.js';
import { renderBatch } from './render-batch.js';

const setup = workerData as WorkerSetup;
const run = new GraphRun(
  new PreparedModel(setup.model, setup.edition, setup.outside, setup.formats, setup.limits),
  setup.seed,
);
const names = run.header();

parentPort!.on('message', (task: BatchTask) => {
  let reply: BatchReply;
  try {
    const done = renderBatch(run, names, setup.format, task.from, task.to, task.state, setup.rowBytes);
    reply = { id: task.id, ...done };
  } catch (err) {
    // the pool renders this batch again itself, where the error is raised with its real type
    reply = { id: task.id, error: err instanceof Error ? err.message : String(err) };
  }
  // Copied, not transferred: transferring detaches this thread's buffer, and once any buffer has
  // been detached V8 checks for it on every typed-array access of optimised code (and throws away
  // the code optimised without that check). The rows then cost this thread about 15% more;
  // copying half a megabyte costs well under a millisecond (docs/synth-workers.md).
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true } satisfies WorkerReady);
