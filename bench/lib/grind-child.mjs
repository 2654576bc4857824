// One run of bench/synth-grind.mjs's workers comparison, in a process of its own, in the order the
// grind command takes: the row workers are started first (src/cli/synth-commands.ts), then the
// engine is loaded and the model read, then the rows are generated. Only the generation is timed;
// the workers load while this thread loads the engine, as in a grind.
//
// Run: node bench/lib/grind-child.mjs ROWS WORKERS  -> one line of JSON on stdout
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { processCpu, threadsCpu } from './cpu.mjs';
import { DICE_MODEL } from './dice-model.mjs';

const [rows, workers] = process.argv.slice(2).map(Number);
const { reserveWorkers } = await import('../../dist/synth-io/parallel/worker-start.js');
const reserve = reserveWorkers(rows, workers);
const { generateChunks } = await import('../../dist/synth-io/parallel/index.js');
const { parseModel } = await import('../../dist/synth/model/io.js');
const { prepareModel } = await import('../../dist/synth/engine/prepare.js');
const prepared = prepareModel(parseModel(DICE_MODEL));

const t0 = process.hrtime.bigint();
const [c0, t0cpu] = [processCpu(), threadsCpu()];
let seen = t0cpu; // the workers end with the run: their CPU is read while they still exist
const hash = createHash('sha256');
let bytes = 0;
let readAt = 0;
const options = { count: rows, format: 'csv', header: true, workers, reserve };
for await (const { data, rows: done } of generateChunks(prepared, 42n, options)) {
  bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  hash.update(data);
  // /proc costs ~0.2 ms a read: at most every 100 ms, and at the last rows (before the workers
  // end), so that one thread's 1,000 small chunks do not pay more of it than two threads' batches
  if (done === rows || performance.now() - readAt > 100) {
    seen = threadsCpu();
    readAt = performance.now();
  }
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = processCpu() - c0;
let busiest = seen.size === 0 ? null : 0; // null without /proc
for (const [tid, c] of seen) busiest = Math.max(busiest, c - (t0cpu.get(tid) ?? 0));
// the least wall time an idle box could take for the same CPU work: not before its busiest
// thread is done, nor before all of it is spread over the cores
const idle = busiest === null ? null : Math.max(busiest, cpu / availableParallelism());
process.stdout.write(JSON.stringify({ seconds, cpu, busiest, idle, bytes, digest: hash.digest('hex') }));
process.exit(0);
