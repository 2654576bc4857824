// Benchmark: writes held to the whole JSON Schema (Ajv) vs the old per-field checker (issue 38).
//
// One model, `items: array of {price: number >= 0, qty: integer <= 10}` with
// `$.items[*].net = $parent.price * $parent.qty`, at 100 and 10,000 rows. Two writes, each timed
// both ways in the same run, rounds alternating, the best round kept:
//   - one field:  mutate({"$.items[N-1].price": v})
//   - whole row:  mutate({"$.items[N-1]": {price: v, qty: 2}})
// "old" = the old checker (the effective-schema fragment at the key, checked by `checkValue`) then
// `mutate(…, {skipValidation: true})`; "new" = `mutate(…)` (pre-checks + Ajv at every depth).
// Throughput is writes per CPU-second of this process. Target: new >= 0.8 x old throughput. Run: npm run bench:calc-write-schema
// Knobs: BENCH_ROUNDS (default 5), BENCH_OPS (writes per round, default 20,000: rounds of 500
// writes lasted ~10 ms, so one GC pause or JIT tier-up decided a round; ratios swung 0.44-1.35).
import { compileModel } from '../src/calc/program.ts';
import { ModelRuntime } from '../src/calc/runtime.ts';
import { checkValue, writeSchema } from '../src/calc/schema.ts';
import { normalizeSpec } from '../src/calc/spec.ts';
import { parseAddress } from '../src/calc/address.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const OPS = Number(process.env.BENCH_OPS ?? 20_000);

const raw = {
  id: 'bench/write-schema',
  schema: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            price: { type: 'number', minimum: 0 },
            qty: { type: 'integer', maximum: 10 },
            net: { type: 'number' },
          },
        },
      },
    },
  },
  derivations: [{ path: '$.items[*].net', expr: '$parent.price * $parent.qty' }],
};

async function runtimeWith(rows) {
  const model = await compileModel(normalizeSpec(raw).spec);
  const rt = new ModelRuntime(model);
  await rt.initialize({ recomputeAll: true });
  await rt.mutate({ '$.items': Array.from({ length: rows }, (_, i) => ({ price: i, qty: 1 })) });
  return rt;
}

/** The old validateMutations: each key's effective-schema fragment checked by checkValue. */
function oldCheck(rt, mutations) {
  for (const [address, value] of Object.entries(mutations)) {
    const parsed = parseAddress(address);
    const v = checkValue(writeSchema(rt.model.spec.schema, parsed.path, address, new Map()), value, address);
    if (v.length > 0) throw new Error(v[0].message);
  }
}

async function time(rt, make, old) {
  // CPU time, not wall time: on a shared machine other processes' load would swamp the difference
  const t0 = process.cpuUsage();
  for (let i = 0; i < OPS; i++) {
    const m = make(i);
    if (old) {
      oldCheck(rt, m);
      await rt.mutate(m, { skipValidation: true });
    } else await rt.mutate(m);
  }
  const used = process.cpuUsage(t0);
  return (OPS / ((used.user + used.system) / 1000)) * 1000;
}

const results = [];
for (const rows of [100, 10_000]) {
  const rt = await runtimeWith(rows);
  const last = rows - 1;
  const writes = {
    'one field': (i) => ({ [`$.items[${last}].price`]: i % 100 }),
    'whole row': (i) => ({ [`$.items[${last}]`]: { price: i % 100, qty: 2 } }),
  };
  for (const [name, make] of Object.entries(writes)) {
    let bestOld = 0;
    let bestNew = 0;
    await time(rt, make, true); // warm-up both paths
    await time(rt, make, false);
    for (let r = 0; r < ROUNDS; r++) {
      bestOld = Math.max(bestOld, await time(rt, make, true));
      bestNew = Math.max(bestNew, await time(rt, make, false));
    }
    results.push({
      rows,
      write: name,
      oldPerSec: Math.round(bestOld),
      newPerSec: Math.round(bestNew),
      ratio: +(bestNew / bestOld).toFixed(2),
    });
  }
}
console.table(results);
const worst = Math.min(...results.map((r) => r.ratio));
console.log(`worst new/old ratio ${worst} (target >= 0.8): ${worst >= 0.8 ? 'met' : 'NOT met'}`);
