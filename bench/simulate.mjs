// Benchmark: simulate (issue 24, acceptance 2), at two model sizes.
//
// The car-loan model over its uncertain price, deposit and rate (examples/simulate), and a larger
// model: the same with a chain of BENCH_EXTRA (40) more derived fields fed by the inputs, so each
// cycle does more work. For each, in one run:
//   (a) runs/s of `simulate` ÷ the bare cycle rate: a loop of `runtime.mutate` writing the same
//       three inputs (values drawn beforehand) on the same model, reading nothing. Target ≥ 0.5: a
//       simulation adds little around the cycle (the draw, the output reads, the statistics); the
//       larger the model, the closer to 1 the ratio should come.
//   (b) memory: heap used after a simulation of SMALL runs and of LARGE runs (after GC, with the
//       result still held), on the small model. Target: flat (streaming statistics, bounded sample).
// Rounds alternate simulate and the bare loop; the median of the per-round ratios is reported.
// Knobs: BENCH_ROUNDS (5), BENCH_RUNS (runs per round, 20,000), BENCH_EXTRA (40), BENCH_SMALL
// (10^4), BENCH_LARGE (10^6). Run with `node --expose-gc bench/simulate.mjs` after `npm run build`.
import { readFileSync } from 'node:fs';
import { compileModel, normalizeSpec, startRuntime } from '../dist/calc/index.js';
import { runSimulation } from '../dist/service/simulate/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 20_000);
const EXTRA = Number(process.env.BENCH_EXTRA ?? 40);
const SMALL = Number(process.env.BENCH_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_LARGE ?? 1_000_000);
const TARGET = 0.5;

const carLoan = JSON.parse(
  readFileSync(new URL('../examples/calc/car-loan-calculator.json', import.meta.url)),
);
const inputs = JSON.parse(
  readFileSync(new URL('../examples/simulate/car-loan-uncertainty.json', import.meta.url)),
);
const limits = { maxRuns: 100_000_000, timeLimitMs: 3_600_000 };
const models = { scratchCopy: () => Promise.reject(new Error('spec only')) };

/** The car-loan model with a chain of `extra` derived fields, each fed by the previous and the rate. */
function larger(extra) {
  const spec = structuredClone(carLoan);
  spec.id = 'car-loan-larger';
  for (let i = 0; i < extra; i++) {
    spec.schema.properties[`x${i}`] = { type: 'number', readOnly: true };
    const prev = i === 0 ? 'monthlyPayment' : `x${i - 1}`;
    spec.derivations.push({ path: `$.x${i}`, expr: `$round(${prev} * 1.001 + annualRatePercent, 4)` });
  }
  return spec;
}

const MODELS = [
  { name: 'car-loan (small)', spec: carLoan, outputs: ['$.monthlyPayment', '$.costOfCredit'] },
  {
    name: `car-loan + ${EXTRA} derived (larger)`,
    spec: larger(EXTRA),
    outputs: ['$.monthlyPayment', '$.costOfCredit', `$.x${EXTRA - 1}`],
  },
];

function simulate(model, runs, seed) {
  return runSimulation(models, { spec: model.spec, inputs, outputs: model.outputs, runs, seed }, limits);
}

/** The bare cycle: the same writes on the same model, values drawn beforehand. */
async function bareLoop(model, runs) {
  const { spec: normal } = normalizeSpec(model.spec);
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

async function timedSimulate(model, runs, seed) {
  const t0 = performance.now();
  const result = await simulate(model, runs, seed);
  if (result.runs !== runs) throw new Error(`simulate ran ${result.runs} of ${runs}`);
  if (result.failedRuns > 0)
    throw new Error(`${result.failedRuns} runs failed: ${JSON.stringify(result.failures)}`);
  return runs / ((performance.now() - t0) / 1000);
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[s.length >> 1];
}

async function heapAfter(fn) {
  const held = await fn();
  globalThis.gc();
  globalThis.gc();
  return { used: process.memoryUsage().heapUsed, held };
}

console.log(`simulate bench: 3 inputs; ${ROUNDS} rounds × ${RUNS} runs per model`);
const figures = [];
for (const model of MODELS) {
  await timedSimulate(model, 1000, 1); // warm-up
  await bareLoop(model, 1000);
  const ratios = [];
  let bestSim = 0;
  let bestBare = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const sim = await timedSimulate(model, RUNS, r + 1);
    const bare = await bareLoop(model, RUNS);
    bestSim = Math.max(bestSim, sim);
    bestBare = Math.max(bestBare, bare);
    ratios.push(sim / bare);
  }
  const ratio = median(ratios);
  figures.push({ model: model.name, bestSim, bestBare, ratio });
  console.log(`  ${model.name}, ${model.outputs.length} outputs`);
  console.log(`    simulate          ${bestSim.toFixed(0).padStart(8)} runs/s (best round)`);
  console.log(`    bare cycle loop   ${bestBare.toFixed(0).padStart(8)} cycles/s (best round)`);
  console.log(
    `    (a) simulate ÷ bare cycle: ${ratio.toFixed(3)} (median of rounds; target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'})`,
  );
}
const [small, large] = figures;
console.log(
  `  cost growth: the larger model's cycle is ${(small.bestBare / large.bestBare).toFixed(2)}× the small one's; simulate's run ${(small.bestSim / large.bestSim).toFixed(2)}×`,
);

if (!globalThis.gc) {
  console.log('  (b) memory: run with node --expose-gc to measure');
} else {
  const a = await heapAfter(() => simulate(MODELS[0], SMALL, 1));
  const b = await heapAfter(() => simulate(MODELS[0], LARGE, 1));
  const mb = (n) => (n / 1024 / 1024).toFixed(1);
  console.log(
    `  (b) heap after ${SMALL} runs ${mb(a.used)} MB, after ${LARGE} runs ${mb(b.used)} MB: ratio ${(b.used / a.used).toFixed(2)} (target: flat)`,
  );
}
