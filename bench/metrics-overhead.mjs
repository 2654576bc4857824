// What Prometheus metrics cost a REST write (issue 28, acceptance 4), measured in one run: two
// `modelworks serve` children on the memory store, one with metrics on (the default) and one with
// MODELWORKS_METRICS=0, each driven by the same keep-alive undici Client
// with POST /models/{id}/mutations. Rounds alternate between the two; each side's figure is its
// fastest round (the least disturbed by noise), and each round's pair gives a ratio too, whose
// median is less swayed by load that comes and goes on a shared machine. Prints both rates and
// on/off (target ≥ 0.95), then scrapes the metrics child to show it counted every write. Build
// first (`npm run build`).
// Knobs: BENCH_ROUNDS, BENCH_OPS.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, httpClient, startChild } from './lib/http-bench.mjs';

const TARGET = 0.95;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const OPS = Number(process.env.BENCH_OPS ?? 400);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

function startServe(env) {
  return startChild([cli, 'serve', '--port', '0', '--store', 'memory'], {
    MODELWORKS_RATE_LIMIT_MAX: '',
    ...env,
  });
}

const spec = {
  id: 'bench-metrics',
  version: '1',
  schema: {},
  derivations: [
    { path: '$.total', expr: 'price * qty' },
    { path: '$.withTax', expr: 'total * 1.2' },
  ],
};

async function side(name, env) {
  const serve = await startServe(env);
  const created = await fetch(`${serve.url}/models`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  if (created.status !== 201) throw new Error(`${name}: create ${created.status}`);
  const client = httpClient(serve.url);
  let n = 0;
  return {
    name,
    serve,
    best: 0,
    /** CPU seconds the server spent in the measured rounds, and the writes they made. */
    cpu: 0,
    measured: 0,
    async round() {
      const cpuBefore = cpuSeconds(serve.child.pid);
      const started = performance.now();
      for (let i = 0; i < OPS; i++) {
        const res = await client.post('/models/bench-metrics/mutations', { '$.price': ++n, '$.qty': 2 });
        if (res.status !== 200) throw new Error(`${name}: mutate ${res.status} ${res.body}`);
      }
      const seconds = (performance.now() - started) / 1000;
      const cpuAfter = cpuSeconds(serve.child.pid);
      if (cpuBefore !== undefined && cpuAfter !== undefined) {
        this.cpu += cpuAfter - cpuBefore;
        this.measured += OPS;
      }
      return OPS / seconds;
    },
    writes: () => n,
    close() {
      client.close();
      serve.child.kill('SIGTERM');
    },
  };
}

async function main() {
  const sides = [];
  try {
    const on = await side('metrics on', {});
    sides.push(on);
    const off = await side('metrics off', { MODELWORKS_METRICS: '0' });
    sides.push(off);
    await on.round(); // warm both up (JIT, the model's first cycles)
    await off.round();
    for (const s of sides) s.cpu = s.measured = 0;
    const pairs = [];
    for (let r = 0; r < ROUNDS; r++) {
      // alternate which side goes first, so neither always runs on a warmer machine
      const rate = new Map();
      for (const s of r % 2 === 0 ? [on, off] : [off, on]) {
        rate.set(s, await s.round());
        s.best = Math.max(s.best, rate.get(s));
      }
      pairs.push(rate.get(on) / rate.get(off));
    }
    pairs.sort((a, b) => a - b);
    const median = pairs[Math.floor(pairs.length / 2)];
    const ratio = on.best / off.best;
    const verdict = (x) => (x >= TARGET ? 'ok' : 'BELOW TARGET');
    console.log(`REST mutate, metrics on:  ${on.best.toFixed(0)} /s`);
    console.log(`REST mutate, metrics off: ${off.best.toFixed(0)} /s`);
    console.log(`on / off, fastest rounds: ${ratio.toFixed(3)} (target ≥ ${TARGET}) ${verdict(ratio)}`);
    console.log(`on / off, median of ${ROUNDS} paired rounds: ${median.toFixed(3)} ${verdict(median)}`);
    if (on.measured > 0 && off.measured > 0) {
      // server CPU per write: the least swayed by other load on the machine (it counts only work done)
      const perWrite = (s) => (s.cpu / s.measured) * 1e6;
      console.log(
        `server CPU per write: on ${perWrite(on).toFixed(0)} µs, off ${perWrite(off).toFixed(0)} µs, off / on ${(perWrite(off) / perWrite(on)).toFixed(3)} ${verdict(perWrite(off) / perWrite(on))}`,
      );
    }
    const text = await (await fetch(`${on.serve.url}/metrics`)).text();
    const committed = /^modelworks_calc_cycles_total\{outcome="committed"\} (\d+)$/m.exec(text)?.[1];
    console.log(`metrics child counted ${committed} committed cycles for ${on.writes()} writes`);
    if (Number(committed) !== on.writes()) process.exitCode = 1;
  } finally {
    for (const s of sides) s.close();
  }
}

await main();
