// The two ways to spread a generation of examples/synth/support-queue.xml (Normal, Lognormal,
// Poisson: its rows take a varying number of draws), each against one thread, by running the
// grind command whole (start-up included, rows to /dev/null), alternating, BENCH_SPLIT_ROUNDS
// rounds at two sizes (issue 40):
//   single stream  `--workers 2` against `--workers 1` (target >= 1.3x with the same bytes)
//   partitioned    `--partitions 2 --workers 2` against `--workers 1` (target >= 1.7x)
// The figure is the median of the rounds' own ratios (the box's speed drifts within seconds;
// docs/synth-workers.md), printed with the spread. The bytes are compared by SHA-256 once per
// size: workers=2 against workers=1, and the partitioned output on 2 threads against 1.
// Run alone: `node bench/lib/split-modes.mjs` (after `npm run build`); BENCH_ROWS sets the first size.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const model = fileURLToPath(new URL('../../examples/synth/support-queue.xml', import.meta.url));

function grindArgs(rows, extra) {
  return [cli, 'synth', 'grind', model, '--count', String(rows), '--seed', '42', '--quiet', ...extra];
}

/** Seconds of one whole grind to /dev/null. */
function timed(rows, extra, devNull) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, grindArgs(rows, extra), { stdio: ['ignore', devNull, 'pipe'] });
  if (r.status !== 0) throw new Error(`grind ${extra.join(' ')} failed: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

/** SHA-256 of a grind's output. */
function digest(rows, extra) {
  const r = spawnSync(process.execPath, grindArgs(rows, extra), { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`grind ${extra.join(' ')} failed: ${r.stderr}`);
  return createHash('sha256').update(r.stdout).digest('hex');
}

const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Prints both ratios at each size; returns them. */
export function benchSplitModes(sizes, rounds) {
  const devNull = openSync('/dev/null', 'w');
  const results = [];
  for (const rows of sizes) {
    const single = [];
    const parts = [];
    const runs = { one: [], two: [], part: [] };
    for (let round = 0; round < rounds; round++) {
      const one = timed(rows, ['--workers', '1'], devNull);
      const two = timed(rows, ['--workers', '2'], devNull);
      const part = timed(rows, ['--partitions', '2', '--workers', '2'], devNull);
      runs.one.push(one);
      runs.two.push(two);
      runs.part.push(part);
      single.push(one / two);
      parts.push(one / part);
    }
    const sameSingle = digest(rows, ['--workers', '1']) === digest(rows, ['--workers', '2']);
    const samePart =
      digest(rows, ['--partitions', '2', '--workers', '1']) ===
      digest(rows, ['--partitions', '2', '--workers', '2']);
    const spread = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
    const secs = (xs) => `${median(xs).toFixed(2)} s (${spread(xs)})`;
    console.log(
      `  support-queue at ${rows} rows, ${rounds} rounds: workers=1 ${secs(runs.one)}, workers=2 ${secs(runs.two)}, --partitions 2 --workers 2 ${secs(runs.part)}`,
    );
    console.log(
      `    single stream workers=2 vs 1: median ${median(single).toFixed(2)}x (rounds ${spread(single)}; target >= 1.3x) ${median(single) >= 1.3 ? 'OK' : 'BELOW TARGET'}; bytes ${sameSingle ? 'identical' : 'DIFFER'}`,
    );
    console.log(
      `    partitioned K=N=2 vs one thread: median ${median(parts).toFixed(2)}x (rounds ${spread(parts)}; target >= 1.7x) ${median(parts) >= 1.7 ? 'OK' : 'BELOW TARGET'}; N=2 vs N=1 bytes ${samePart ? 'identical' : 'DIFFER'}`,
    );
    results.push({ rows, single: median(single), partitioned: median(parts), sameSingle, samePart });
  }
  closeSync(devNull);
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  benchSplitModes([rows, 2 * rows], Number(process.env.BENCH_SPLIT_ROUNDS ?? 5));
}
