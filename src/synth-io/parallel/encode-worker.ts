/**
 * The encoding worker of the pipelined mode (pipeline.ts): the first message is an EncodeSetup,
 * every later one a batch of sampled rows to encode (encode-rows.ts). It loads the output
 * encoders alone, not the engine: it starts sooner than a row worker (worker.ts).
 */
import { parentPort } from 'node:worker_threads';
import { encodeRows } from './encode-rows.js';
import type { EncodeSetup, WorkerLoaded } from './protocol.js';

parentPort!.once('message', (setup: EncodeSetup) => encodeRows(setup));
parentPort!.postMessage({ loaded: true } satisfies WorkerLoaded);
