// The two ways to spread a generation of examples/synth/support-queue.xml (Normal, Lognormal,
// Poisson: its rows take a varying number of draws, so they are not split), each against one
// thread, BENCH_SPLIT_ROUNDS rounds at two sizes (issue 40, acceptance 3):
//   pipelined    `--workers 2` against `--workers 1`: this thread samples, both threads encode
//                (target >= 1.3x with the same bytes)
//   partitioned  `--partitions 2 --workers 2` against `--workers 1` (target >= 1.7x)
// Each round runs the grind command whole (start-up included, rows to /dev/null) in each mode,
// then the generation alone in a fresh process (lib/split-child.mjs) to read each thread's CPU.
// Every run starts once the cores are idle (up to 20 s of waiting: lib/quiet.mjs). The figures
// are the medians of the rounds' own ratios (the box's speed drifts within seconds;
// docs/synth-workers.md), with their spread and the load average. Bytes: the pipelined output
// against one thread's, and the partitioned output on 2 threads against 1, by SHA-256.
// The CPU figures say what a quiet box would give: a run ends no sooner than its busiest thread,
// nor than its total CPU spread over the cores.
// Run alone: `node bench/lib/split-modes.mjs` (after `npm run build`); BENCH_ROWS sets the first size.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WAIT, awaitQuiet, quiet } from './quiet.mjs';

const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const model = fileURLToPath(new URL('../../examples/synth/support-queue.xml', import.meta.url));
const childPath = fileURLToPath(new URL('./split-child.mjs', import.meta.url));

const MODES = {
  one: { args: ['--workers', '1'], child: ['1'] },
  pipelined: { args: ['--workers', '2'], child: ['2'] },
  partitioned: { args: ['--partitions', '2', '--workers', '2'], child: ['2', '2'] },
};

/** Seconds of one whole grind to /dev/null. */
function command(rows, mode, devNull) {
  awaitQuiet();
  const args = [cli, 'synth', 'grind', model, '--count', String(rows), '--seed', '42', '--quiet'];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...args, ...MODES[mode].args], {
    stdio: ['ignore', devNull, 'pipe'],
  });
  if (r.status !== 0) throw new Error(`grind ${MODES[mode].args.join(' ')} failed: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

/** The generation alone in a fresh process: wall, CPU per thread, digest (lib/split-child.mjs). */
function child(rows, extra) {
  awaitQuiet();
  return JSON.parse(
    execFileSync(process.execPath, [childPath, String(rows), ...extra], { encoding: 'utf8' }),
  );
}

const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
/** The least wall time a quiet box could take for a run's CPU work. */
const floorOf = (r) => Math.max(r.main ?? 0, ...r.workers, r.cpu / availableParallelism());

/** Prints both modes against one thread at each size; returns the medians. */
export function benchSplitModes(sizes, rounds) {
  const devNull = openSync('/dev/null', 'w');
  const busyBefore = quiet.busyStarts;
  const results = [];
  for (const rows of sizes) {
    const loadAtStart = load();
    const wall = { one: [], pipelined: [], partitioned: [] };
    const gen = { one: [], pipelined: [], partitioned: [] };
    for (let round = 0; round < rounds; round++) {
      for (const mode of Object.keys(MODES)) wall[mode].push(command(rows, mode, devNull));
      for (const mode of Object.keys(MODES)) gen[mode].push(child(rows, MODES[mode].child));
    }
    // the bytes, once per mode (hashing is left out of the timed runs)
    const digest = (extra) => child(rows, extra, true).digest;
    const samePipelined = digest(MODES.one.child) === digest(MODES.pipelined.child);
    const samePartitioned = digest(['1', '2']) === digest(MODES.partitioned.child);
    const ratios = (mode, of) => gen.one.map((r, i) => of(r) / of(gen[mode][i]));
    const wallRatios = (mode) => wall.one.map((t, i) => t / wall[mode][i]);
    const pipelined = wallRatios('pipelined');
    const partitioned = wallRatios('partitioned');
    const secs = (xs) => `${median(xs).toFixed(2)} s (${spread(xs)})`;
    console.log(
      `  support-queue at ${rows} rows, ${rounds} rounds, load average ${loadAtStart} at the start and ${load()} at the end`,
    );
    console.log(
      `    the grind command, whole: workers=1 ${secs(wall.one)}, workers=2 ${secs(wall.pipelined)}, --partitions 2 --workers 2 ${secs(wall.partitioned)}`,
    );
    console.log(
      `    pipelined workers=2 vs 1: median ${median(pipelined).toFixed(2)}x (rounds ${spread(pipelined)}; target >= 1.3x) ${median(pipelined) >= 1.3 ? 'OK' : 'BELOW TARGET'}; bytes ${samePipelined ? 'identical' : 'DIFFER'}`,
    );
    console.log(
      `    partitioned K=N=2 vs one thread: median ${median(partitioned).toFixed(2)}x (rounds ${spread(partitioned)}; target >= 1.7x) ${median(partitioned) >= 1.7 ? 'OK' : 'BELOW TARGET'}; N=2 vs N=1 bytes ${samePartitioned ? 'identical' : 'DIFFER'}`,
    );
    const genWall = (mode) => ratios(mode, (r) => r.seconds);
    const floors = (mode) => ratios(mode, floorOf);
    console.log(
      `    the generation alone (fresh processes): pipelined ${median(genWall('pipelined')).toFixed(2)}x (${spread(genWall('pipelined'))}), partitioned ${median(genWall('partitioned')).toFixed(2)}x (${spread(genWall('partitioned'))}); ` +
        `from CPU, a quiet box: pipelined ${median(floors('pipelined')).toFixed(2)}x, partitioned ${median(floors('partitioned')).toFixed(2)}x`,
    );
    // each thread's CPU, medians of the rounds: what bounds each mode where the cores are free
    const cpu = (mode, of, digits = 2) => median(gen[mode].map(of)).toFixed(digits);
    // (below PARALLEL_MIN_ROWS a run stays on one thread: no pipeline figures)
    const p = (of) => cpu('pipelined', (r) => (r.pipeline ? of(r.pipeline) : NaN));
    console.log(
      `    CPU (s): one thread ${cpu('one', (r) => r.main)} (process ${cpu('one', (r) => r.cpu)}); ` +
        `pipelined: this thread ${cpu('pipelined', (r) => r.main)} (sampling ${p((x) => x.sampleCpu)}, encoding ${p((x) => x.encodeCpu)} for ${cpu('pipelined', (r) => r.pipeline?.encodedHere ?? NaN, 0)} of ${cpu('pipelined', (r) => r.pipeline?.batches ?? NaN, 0)} batches), ` +
        `worker ${cpu('pipelined', (r) => r.workers[0] ?? 0)}, process ${cpu('pipelined', (r) => r.cpu)}; ` +
        `partitioned: this thread ${cpu('partitioned', (r) => r.main)}, worker ${cpu('partitioned', (r) => r.workers[0] ?? 0)}, process ${cpu('partitioned', (r) => r.cpu)}`,
    );
    results.push({
      rows,
      pipelined: median(pipelined),
      partitioned: median(partitioned),
      samePipelined,
      samePartitioned,
    });
  }
  const busy = quiet.busyStarts - busyBefore;
  if (busy > 0)
    console.log(`  ${busy} runs started on a busy box (after ${WAIT} s of waiting for idle cores)`);
  closeSync(devNull);
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
  benchSplitModes([rows, 2 * rows], Number(process.env.BENCH_SPLIT_ROUNDS ?? 5));
}
