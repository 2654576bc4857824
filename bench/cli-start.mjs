// Start-up time of the `modelworks` command against the start-up of Node itself, timed in one run:
// `modelworks --version` (target ≤ 3× `node -e 0`), with `modelworks --help` and a usage error
// (`modelworks synth grind` without --count) for reference. Each round runs every side once, in an
// order that rotates from round to round, so a disturbance hits the sides alike; a side's figure is
// its fastest run (the least disturbed), the median is printed next to it.
//
// Run: npx tsc -p tsconfig.build.json && node bench/cli-start.mjs (or `npm run bench:cli-start`)
// Knobs: BENCH_ROUNDS (default 20), BENCH_CLI (another build's dist/cli/main.js, to compare).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const TARGET = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const cli = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** Each side: its arguments and the exit code it must end with. */
const SIDES = {
  'node -e 0': { args: ['-e', '0'], exit: 0 },
  'modelworks --version': { args: [cli, '--version'], exit: 0 },
  'modelworks --help': { args: [cli, '--help'], exit: 0 },
  'modelworks synth grind (usage error)': { args: [cli, 'synth', 'grind', 'x.xml'], exit: 2 },
};

function runOnce(name) {
  const { args, exit } = SIDES[name];
  const t0 = performance.now();
  const out = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (out.status !== exit) throw new Error(`${name} exited ${out.status} (expected ${exit}): ${out.stderr}`);
  return ms;
}

const names = Object.keys(SIDES);
const times = Object.fromEntries(names.map((n) => [n, []]));
for (const name of names) runOnce(name); // warm the file cache
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length];
    times[name].push(runOnce(name));
  }
}

const min = (xs) => Math.min(...xs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = min(times['node -e 0']);
const baseMedian = median(times['node -e 0']);
console.log(`CLI start-up, ${ROUNDS} rounds (fastest run; median in brackets), ${cli}`);
for (const name of names) {
  const t = times[name];
  console.log(
    `  ${name.padEnd(38)} ${min(t).toFixed(0).padStart(5)} ms (${median(t).toFixed(0).padStart(5)})  ${(min(t) / base).toFixed(2)} × node -e 0 (${(median(t) / baseMedian).toFixed(2)})`,
  );
}
const ratio = min(times['modelworks --version']) / base;
console.log(
  `modelworks --version ÷ node -e 0: ${ratio.toFixed(2)} (target ≤ ${TARGET}: ${ratio <= TARGET ? 'met' : 'NOT met'})`,
);
