// Benchmark: what composition costs as the store fills up (issue 41's surfaces, docs/composition.md).
//
// Two operations read every stored model: the link topology check, run when a spec with a link
// is created or evolved (calc-composition.ts `checkLinks`), and the composition graph
// (`compositionGraph`, GET /composition/graph and the `composition_graph` tool). This bench fills
// a SQLite store with N models (one aggregate `agg`; every tenth other model links to it, the rest
// are plain) and times, at two sizes so growth shows:
//   - create: one more model with a link (the topology check reads all N specs);
//   - graph: the composition graph of all N models;
// each twice: "cold" in a fresh CalcService on the same file (every runtime loaded from the store,
// as after a restart) and "warm" right after (runtimes held). Figures are wall time, the median of
// BENCH_ROUNDS rounds (the thread's CPU clock ticks too coarsely for the warm reads).
// Linear growth gives a ratio near the size ratio (10); the per-model cost is printed too.
//
//   npx tsc -p tsconfig.build.json && node bench/composition.mjs
//   BENCH_SIZES=100,1000 BENCH_ROUNDS=5
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CalcService } from '../dist/service/calc-service.js';
import { SqliteStore } from '../dist/store/sqlite-store.js';

const SIZES = (process.env.BENCH_SIZES ?? '100,1000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const AGG = {
  id: 'agg',
  version: '1.0.0',
  schema: { type: 'object', properties: { children: { type: 'object' } } },
  derivations: [{ path: '$.total', expr: '$sum(children.*.subtotal)' }],
};

/** A model of a few fields; `linked` ones push their subtotal into agg. */
function model(id, linked) {
  const spec = {
    id,
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        price: { type: 'number', default: 2 },
        qty: { type: 'number', default: 3 },
        io: { type: 'object' },
      },
    },
    derivations: [{ path: '$.subtotal', expr: 'price * qty' }],
  };
  if (linked)
    spec.effects = [
      {
        id: 'push',
        executor: 'server',
        trigger: 'subtotal > 0',
        dedupeKey: 'subtotal',
        statusPath: '$.io.push',
        target: { ref: 'agg', path: `$.children.${id.replaceAll('-', '_')}.subtotal` },
        body: 'subtotal',
      },
    ];
  return spec;
}

async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(size) {
  const dir = mkdtempSync(join(tmpdir(), 'mw-bench-composition-'));
  const file = join(dir, 'models.db');
  try {
    const filler = new CalcService(SqliteStore.open(file));
    await filler.createModel(AGG);
    // room for the rounds' models: at most `size` stored at any time (the server holds 1,000 at most)
    for (let i = 1; i < size - ROUNDS - 1; i++) await filler.createModel(model(`m-${i}`, i % 10 === 0));
    await filler.close();
    const figures = { createCold: [], createWarm: [], graphCold: [], graphWarm: [] };
    let edges = 0;
    for (let r = 0; r < ROUNDS; r++) {
      // cold: a new service on the same file, nothing loaded (as after a restart)
      const service = new CalcService(SqliteStore.open(file));
      figures.createCold.push((await timed(() => service.createModel(model(`new-${r}`, true)))).ms);
      figures.graphWarm.push(0); // placeholder replaced below (keeps the arrays aligned per round)
      const warmCreate = await timed(() => service.createModel(model(`warm-${r}`, true)));
      figures.createWarm.push(warmCreate.ms);
      await service.deleteModel(`warm-${r}`);
      await service.close();
      const fresh = new CalcService(SqliteStore.open(file));
      const cold = await timed(() => fresh.compositionGraph());
      figures.graphCold.push(cold.ms);
      const warm = await timed(() => fresh.compositionGraph());
      figures.graphWarm[r] = warm.ms;
      edges = warm.value.linkEdges.length;
      if (warm.value.nodes.length !== cold.value.nodes.length) throw new Error('graph changed between reads');
      await fresh.close();
    }
    return { size, edges, ...Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (const size of SIZES) {
  const r = await measure(size);
  results.push(r);
  const per = (ms) => `${ms.toFixed(1)} ms (${((ms / r.size) * 1000).toFixed(0)} µs per model)`;
  console.log(`${r.size} models, ${r.edges} link edges`);
  console.log(`  create with a link, cold: ${per(r.createCold)}`);
  console.log(`  create with a link, warm: ${per(r.createWarm)}`);
  console.log(`  composition graph, cold:  ${per(r.graphCold)}`);
  console.log(`  composition graph, warm:  ${per(r.graphWarm)}`);
}
if (results.length === 2) {
  const [small, large] = results;
  const ratio = (k) => (small[k] > 0 ? (large[k] / small[k]).toFixed(2) : 'n/a');
  console.log(
    `growth ${large.size} ÷ ${small.size} models (linear = ${(large.size / small.size).toFixed(1)}):`,
  );
  for (const k of ['createCold', 'createWarm', 'graphCold', 'graphWarm']) console.log(`  ${k}: ${ratio(k)}`);
}
