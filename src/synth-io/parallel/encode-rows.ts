/**
 * A worker's side of the pipelined mode (pipeline.ts): it encodes to UTF-8 the batches of rows the
 * generation's thread sampled, and needs no model. Both worker entries use it: a row worker started
 * ahead (worker.ts) when the run it was started for turns out not to split, and the encoding worker
 * (encode-worker.ts), which loads these few modules alone.
 */
import { parentPort } from 'node:worker_threads';
import { renderRangeBytes } from '../../synth/output/bytes.js';
import type { EncodeReply, EncodeSetup, EncodeTask, WorkerReady } from './protocol.js';
import { ReplayedRows } from './row-batch.js';

/** Answers every EncodeTask from now on; says it is ready. */
export function encodeRows(setup: EncodeSetup): void {
  parentPort!.on('message', (task: EncodeTask) => {
    let reply: EncodeReply;
    try {
      const { rows } = task;
      // in shared memory: posting it copies nothing and detaches nothing (docs/synth-workers.md)
      const text = renderRangeBytes(
        new ReplayedRows(rows),
        rows.from,
        rows.to,
        setup.format,
        setup.names,
        undefined,
        true,
      );
      reply = { id: task.id, text };
    } catch (err) {
      // the generation encodes this batch again itself, where the error is raised with its real type
      reply = { id: task.id, error: err instanceof Error ? err.message : String(err) };
    }
    parentPort!.postMessage(reply);
  });
  parentPort!.postMessage({ ready: true } satisfies WorkerReady);
}
