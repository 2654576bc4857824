// One generation of examples/synth/support-queue.xml (CSV) in a process of its own, started as the
// grind command starts (row workers first, then the engine and the model), for lib/split-modes.mjs:
//   node bench/lib/split-child.mjs ROWS WORKERS [PARTITIONS]  -> one line of JSON on stdout
// With BENCH_DIGEST=1 it also gives the output's SHA-256 (its CPU, on this thread, is left out of
// the timed runs: it is not a grind's work).
// Without PARTITIONS, the single stream: one thread (WORKERS=1) or the pipelined mode (its rows take
// a varying number of draws, so they are not split). With PARTITIONS, the partitioned mode.
// Only the generation is timed. Besides wall and CPU time it gives each thread's CPU (this thread,
// the workers: the busiest other threads, and V8's and libuv's helpers) and, for the pipelined
// mode, how this thread's CPU went: sampling against encoding (its own clock: this thread's CPU).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processCpu, threadCpuMs, threadsCpu } from './cpu.mjs';

const [rows, workers, partitions] = process.argv.slice(2).map(Number);
const { reserveWorkers } = await import('../../dist/synth-io/parallel/worker-start.js');
const reserve = reserveWorkers(rows, workers);
const { generateChunks } = await import('../../dist/synth-io/parallel/index.js');
const { generatePartitioned } = await import('../../dist/synth-io/parallel/partitioned.js');
const { parseModel } = await import('../../dist/synth/model/io.js');
const { prepareModel } = await import('../../dist/synth/engine/prepare.js');
const modelPath = fileURLToPath(new URL('../../examples/synth/support-queue.xml', import.meta.url));
const prepared = prepareModel(parseModel(readFileSync(modelPath, 'utf8')));

const t0 = process.hrtime.bigint();
const [c0, t0cpu] = [processCpu(), threadsCpu()];
let seen = t0cpu; // the workers end with the run: their CPU is read while they still exist
const hash = process.env.BENCH_DIGEST === '1' ? createHash('sha256') : undefined;
let bytes = 0;
let readAt = 0;
const stats = {};
const common = { count: rows, format: 'csv', header: true, workers, reserve };
const chunks = Number.isFinite(partitions)
  ? generatePartitioned(prepared, 42n, { ...common, partitions })
  : generateChunks(prepared, 42n, { ...common, stats, clock: threadCpuMs });
for await (const { data, rows: done } of chunks) {
  bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  hash?.update(data);
  // /proc costs ~0.2 ms a read: at most every 100 ms, and at the last rows (before the workers end)
  if (done === rows || performance.now() - readAt > 100) {
    seen = threadsCpu();
    readAt = performance.now();
  }
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = processCpu() - c0;
const used = [...seen].map(([tid, c]) => ({ tid, cpu: c - (t0cpu.get(tid) ?? 0) }));
const main = used.find((t) => t.tid === String(process.pid))?.cpu ?? null;
const others = used.filter((t) => t.tid !== String(process.pid)).sort((a, b) => b.cpu - a.cpu);
const workerCpu = others.slice(0, Math.max(0, workers - 1)).map((t) => t.cpu);
const helpers = others.slice(Math.max(0, workers - 1)).reduce((sum, t) => sum + t.cpu, 0);
const pipeline = stats.pipeline && {
  batches: stats.pipeline.batches,
  encodedHere: stats.pipeline.encodedHere,
  sampleCpu: stats.pipeline.sampleMs / 1000,
  encodeCpu: stats.pipeline.encodeMs / 1000,
};
process.stdout.write(
  JSON.stringify({
    seconds,
    cpu,
    main,
    workers: workerCpu,
    helpers,
    pipeline,
    bytes,
    digest: hash?.digest('hex'),
  }),
);
process.exit(0);
