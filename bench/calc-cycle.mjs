// Benchmark: the cost of one reactive cycle against the cost of the expressions it must evaluate.
//
// Model: 100 inputs, 1,000 derivations; input k feeds exactly 10 of them (`in_k * (j+1) + k`).
// (a) one mutate() cycle that dirties 10 derivations ÷ evaluating those 10 compiled expressions
//     directly with plain jsonata against the same document (target ≤ 1.5);
// (b) a full recompute of all 1,000 derivations ÷ that incremental cycle (target ≥ 50).
// Rounds alternate candidate and baseline; we report the minimum per-op time of each and ratios.
import jsonata from 'jsonata';
import { compileModel, normalizeSpec, startRuntime } from '../dist/calc/index.js';

const INPUTS = 100;
const FANOUT = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const OPS = Number(process.env.BENCH_OPS ?? 400);

const properties = {};
const derivations = [];
for (let k = 0; k < INPUTS; k++) {
  properties[`in${k}`] = { type: 'number', default: k };
  for (let j = 0; j < FANOUT; j++)
    derivations.push({ path: `$.d${k}_${j}`, expr: `in${k} * ${j + 1} + ${k}` });
}
const { spec } = normalizeSpec({
  id: 'bench',
  version: '1.0.0',
  schema: { type: 'object', properties },
  derivations,
});
const model = await compileModel(spec);
const runtime = await startRuntime(model, { historyCapacity: 50 });

// Baseline: the same 10 expression texts compiled by plain jsonata, evaluated on a plain document.
const doc = await runtime.getState();
const target = 42;
const direct = derivations.filter((d) => d.path.startsWith(`$.d${target}_`)).map((d) => jsonata(d.expr));

async function timeIt(fn, ops) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await fn(i);
  return Number(process.hrtime.bigint() - t0) / ops / 1000; // µs per op
}

const cycle = (i) => runtime.mutate({ [`$.in${target}`]: i });
const baseline = async (i) => {
  doc[`in${target}`] = i;
  for (const e of direct) await e.evaluate(doc);
};
const full = () => runtime.recomputeAll();

// warm-up
await timeIt(cycle, OPS);
await timeIt(baseline, OPS);
await timeIt(full, 5);

const best = { cycle: Infinity, baseline: Infinity, full: Infinity };
for (let r = 0; r < ROUNDS; r++) {
  best.baseline = Math.min(best.baseline, await timeIt(baseline, OPS));
  best.cycle = Math.min(best.cycle, await timeIt(cycle, OPS));
  best.full = Math.min(best.full, await timeIt(full, 3));
}
const check = await runtime.mutate({ [`$.in${target}`]: 7 });
const fmt = (us) => `${us.toFixed(1)} µs`;
console.log(
  `calc-cycle: ${derivations.length} derivations, one input dirties ${check.derivedUpdated.length}`,
);
console.log(`  10 expressions evaluated directly (plain jsonata): ${fmt(best.baseline)}`);
console.log(`  one mutate() cycle:                                ${fmt(best.cycle)}`);
console.log(`  full recompute of all derivations:                 ${fmt(best.full)}`);
console.log(`(a) cycle / direct evaluation = ${(best.cycle / best.baseline).toFixed(2)}  (target <= 1.5)`);
console.log(`(b) full recompute / cycle     = ${(best.full / best.cycle).toFixed(1)}x (target >= 50x)`);
