// Benchmark: simulate (issue 24, acceptance 2).
//
// The car-loan model over its uncertain price, deposit and rate (examples/calc). Two figures, in
// one run:
//   (a) runs/s of `simulate` ÷ the bare cycle rate: a loop of `runtime.mutate` writing the same
//       three inputs (values drawn beforehand) on the same model, reading nothing. Target ≥ 0.5: a
//       simulation adds little around the cycle (the draw, the output reads, the statistics).
//   (b) memory: heap used after a simulation of SMALL runs and of LARGE runs (after GC, with the
//       result still held). Target: flat (the statistics are streaming; the sample is bounded).
// Rounds alternate simulate and the bare loop; the median of the per-round ratios is reported.
// Knobs: BENCH_ROUNDS (5), BENCH_RUNS (runs per round, 20,000), BENCH_SMALL (10^4), BENCH_LARGE
// (10^6). Run with `node --expose-gc bench/simulate.mjs` after `npm run build`.
import { readFileSync } from 'node:fs';
import { compileModel, normalizeSpec, startRuntime } from '../dist/calc/index.js';
import { runSimulation } from '../dist/service/simulate/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 20_000);
const SMALL = Number(process.env.BENCH_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_LARGE ?? 1_000_000);
const TARGET = 0.5;

const spec = JSON.parse(readFileSync(new URL('../examples/calc/car-loan-calculator.json', import.meta.url)));
const inputs = JSON.parse(
  readFileSync(new URL('../examples/simulate/car-loan-uncertainty.json', import.meta.url)),
);
const outputs = ['$.monthlyPayment', '$.costOfCredit'];
const limits = { maxRuns: 100_000_000, timeLimitMs: 3_600_000 };
const models = { scratchCopy: () => Promise.reject(new Error('spec only')) };

function simulate(runs, seed) {
  return runSimulation(models, { spec, inputs, outputs, runs, seed }, limits);
}

/** The bare cycle: the same writes on the same model, values drawn beforehand. */
async function bareLoop(runs) {
  const { spec: normal } = normalizeSpec(spec);
  const runtime = await startRuntime(await compileModel(normal), { historyCapacity: 0 });
  const writes = Array.from({ length: runs }, (_, i) => ({
    '$.vehiclePrice': 24000 + ((i * 7919) % 5000) - 2500,
    '$.deposit': 2000 + ((i * 104729) % 6000),
    '$.annualRatePercent': 4.5 + ((i * 31) % 650) / 100,
  }));
  const t0 = performance.now();
  for (const w of writes) await runtime.mutate(w);
  return runs / ((performance.now() - t0) / 1000);
}

async function timedSimulate(runs, seed) {
  const t0 = performance.now();
  const result = await simulate(runs, seed);
  if (result.runs !== runs) throw new Error(`simulate ran ${result.runs} of ${runs}`);
  return runs / ((performance.now() - t0) / 1000);
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function heapAfter(fn) {
  return async () => {
    const held = await fn();
    globalThis.gc?.();
    globalThis.gc?.();
    const used = process.memoryUsage().heapUsed;
    return { used, held };
  };
}

await timedSimulate(2000, 1); // warm-up
await bareLoop(2000);
const ratios = [];
let bestSim = 0;
let bestBare = 0;
for (let r = 0; r < ROUNDS; r++) {
  const sim = await timedSimulate(RUNS, r + 1);
  const bare = await bareLoop(RUNS);
  bestSim = Math.max(bestSim, sim);
  bestBare = Math.max(bestBare, bare);
  ratios.push(sim / bare);
}
const ratio = median(ratios);
console.log(`simulate bench: car-loan model, 3 inputs, 2 outputs; ${ROUNDS} rounds × ${RUNS} runs`);
console.log(`  simulate          ${bestSim.toFixed(0).padStart(8)} runs/s (best round)`);
console.log(`  bare cycle loop   ${bestBare.toFixed(0).padStart(8)} cycles/s (best round)`);
console.log(
  `  (a) simulate ÷ bare cycle: ${ratio.toFixed(3)} (median of rounds; target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'})`,
);

if (!globalThis.gc) {
  console.log('  (b) memory: run with node --expose-gc to measure');
} else {
  const small = await heapAfter(() => simulate(SMALL, 1))();
  const large = await heapAfter(() => simulate(LARGE, 1))();
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  console.log(
    `  (b) heap after ${SMALL} runs ${mb(small.used)} MB, after ${LARGE} runs ${mb(large.used)} MB: ratio ${(large.used / small.used).toFixed(2)} (target: flat)`,
  );
}
