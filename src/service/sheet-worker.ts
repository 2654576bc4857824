/**
 * The entry of a conversion's worker thread (started by sheet-workers.ts): converts the workbook it
 * was given and answers with one message. A result that must fit a size is measured first, and
 * only its size is sent back when it does not fit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { configureExpressionLimits } from '../calc/index.js';
import type { ConvertProgress } from '../sheet/index.js';
import { prettyJsonLength } from './json-size.js';
import { convertSpreadsheetBytes } from './sheet-service.js';
import type { SheetJob, SheetReply } from './sheet-workers.js';

const job = workerData as SheetJob;
if (job.expressionLimits) configureExpressionLimits(job.expressionLimits);
const onProgress = job.progress
  ? (progress: ConvertProgress): void =>
      parentPort!.postMessage({ kind: 'progress', progress } satisfies SheetReply)
  : undefined;
const result = await convertSpreadsheetBytes(
  job.bytes,
  job.filename,
  job.modelId,
  job.limits,
  undefined,
  onProgress,
);
const resultChars = job.maxResultChars === undefined ? 0 : prettyJsonLength(result);
const reply: SheetReply =
  job.maxResultChars !== undefined && resultChars > job.maxResultChars
    ? { kind: 'too-large', resultChars }
    : { kind: 'result', result };
parentPort!.postMessage(reply);
