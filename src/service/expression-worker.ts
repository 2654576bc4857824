/**
 * The entry of an expression worker thread (started by expression-workers.ts): evaluates each
 * expression it is sent, under the limits sent with it, and answers with one message per job. The
 * thread is kept for the next job; a job that runs out of memory or time ends it instead.
 */
import { parentPort } from 'node:worker_threads';
import { configureExpressionLimits, evalExpression } from '../calc/index.js';
import type { ExpressionJob, ExpressionReply } from './expression-workers.js';

/** The limits last applied: applying them clears the compile cache, so only when they change. */
let applied = '';

parentPort!.on('message', (job: ExpressionJob) => {
  void (async () => {
    const limits = JSON.stringify(job.limits);
    if (limits !== applied) {
      configureExpressionLimits(job.limits);
      applied = limits;
    }
    const result = await evalExpression(job.expr, job.input, job.library, job.constants);
    const reply: ExpressionReply = { id: job.id, result };
    parentPort!.postMessage(reply);
  })();
});
