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
import { renderRangeBytes } from '../../synth/output/bytes.js';
import type {
  BatchReply,
  EncodeSetup,
  BatchTask,
  PartitionChunk,
  PartitionFailed,
  PartitionTask,
  WorkerLoaded,
  WorkerReady,
  WorkerSetup,
} from './protocol.js';
import { renderBatch } from './render-batch.js';
import { encodeRows } from './encode-rows.js';

/** Renders a whole partition, posting its bytes chunk by chunk (in shared memory: nothing copied). */
function renderPartition(prepared: PreparedModel, setup: WorkerSetup, task: PartitionTask): void {
  try {
    const run = new GraphRun(prepared, task.seed, task.from);
    const names = run.header();
    for (let from = task.from; from < task.to || from === task.from;) {
      const to = Math.min(task.to, from + task.chunkRows);
      const data = renderRangeBytes(run, from, to, setup.format, names, undefined, true);
      const chunk: PartitionChunk = { partition: task.partition, data, rows: to - from, last: to >= task.to };
      parentPort!.postMessage(chunk);
      if (to >= task.to) break;
      from = to;
    }
  } catch (err) {
    const failed: PartitionFailed = {
      partition: task.partition,
      error: err instanceof Error ? err.message : String(err),
    };
    parentPort!.postMessage(failed);
  }
}

parentPort!.once('message', (setup: WorkerSetup | EncodeSetup) => {
  if ('encode' in setup) return encodeRows(setup);
  const prepared = new PreparedModel(setup.model, setup.edition, setup.outside, setup.formats, setup.limits);
  if (setup.partitioned === true) {
    parentPort!.on('message', (task: PartitionTask) => renderPartition(prepared, setup, task));
    parentPort!.postMessage({ ready: true } satisfies WorkerReady);
    return;
  }
  const run = new GraphRun(prepared, setup.seed);
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
