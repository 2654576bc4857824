/**
 * A row worker: builds the model's run once, from the first message (a WorkerSetup), then renders
 * the batches it is sent, each from the stream state it comes with. It never decides anything
 * about the output: the pool checks that each batch starts where the previous one ended before a
 * byte of it is used. Its modules load as soon as it starts, before the setup comes: a command can
 * start it while it loads the model itself (worker-start.ts).
 */
import { parentPort } from 'node:worker_threads';
// the row loop alone, not the load phase nor the model parsers: a third fewer modules to start with
import { GraphRun } from '../../synth/engine/graph-run.js';
import { PreparedModel } from '../../synth/engine/prepared.js';
import type { BatchReply, BatchTask, WorkerLoaded, WorkerReady, WorkerSetup } from './protocol.js';
import { renderBatch } from './render-batch.js';

parentPort!.once('message', (setup: WorkerSetup) => {
  const run = new GraphRun(
    new PreparedModel(setup.model, setup.edition, setup.outside, setup.formats, setup.limits),
    setup.seed,
  );
  const names = run.header();
  parentPort!.on('message', (task: BatchTask) => {
    let reply: BatchReply;
    try {
      const { format, rowBytes } = setup;
      const done = renderBatch(run, names, format, task.from, task.to, task.state, rowBytes, true);
      reply = { id: task.id, ...done };
    } catch (err) {
      // the pool renders this batch again itself, where the error is raised with its real type
      reply = { id: task.id, error: err instanceof Error ? err.message : String(err) };
    }
    // The batch is in shared memory: posting it copies nothing. Neither a copy (about 0.5 ms of
    // each thread per half megabyte) nor a transfer: transferring detaches this thread's buffer,
    // and once any buffer has been detached V8 checks for it on every typed-array access of
    // optimised code, and the rows cost this thread about 15% more (docs/synth-workers.md).
    parentPort!.postMessage(reply);
  });
  parentPort!.postMessage({ ready: true } satisfies WorkerReady);
});
parentPort!.postMessage({ loaded: true } satisfies WorkerLoaded);
