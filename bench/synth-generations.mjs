// Later generations of a model in one process against its first (issue 40): a long-lived server
// builds a fresh graph for every request, and with row functions that close over their graph V8
// stops inlining from the second graph on. Each round runs a fresh child process that generates
// the same model GENERATIONS times, each time as a server does (parse, load, validate, a new run,
// produceGeneration on one thread, CSV), and reports each generation's time. Models: the 3d6
// ability scores (bench/lib/dice-model.mjs) and examples/synth/support-queue.xml, each in its
// own child; then a third child alternating the two, as a server serving both would.
// Two measures, each in its own children: `server`, the whole request as above, and `rows`, each
// graph's rows alone (load, validate, run.next() in a loop, no rendering: where the graph's own
// calls show).
// Times are CPU milliseconds of the child (process.cpuUsage), which this shared box's load moves
// far less than wall time. Printed: per generation the median over the rounds, and the median of
// the rounds' own later/first ratios (the mean of generations 2..n over the first); target <= 1.10.
//
// Run: npx tsc -p tsconfig.build.json && node bench/synth-generations.mjs
// Knobs: BENCH_ROWS (300000), BENCH_GENERATIONS (5), BENCH_ROUNDS (5), BENCH_MODELS
// (comma-separated from dice,support-queue,mixed), BENCH_DIST (another build's dist folder, to
// measure before/after).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DICE_MODEL } from './lib/dice-model.mjs';

const here = fileURLToPath(import.meta.url);
const dist = process.env.BENCH_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 300_000);
const GENERATIONS = Number(process.env.BENCH_GENERATIONS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SUPPORT_QUEUE = readFileSync(
  fileURLToPath(new URL('../examples/synth/support-queue.xml', import.meta.url)),
  'utf8',
);
const MODELS = { dice: DICE_MODEL, 'support-queue': SUPPORT_QUEUE };

/**
 * In the child: `GENERATIONS` generations of each named model in turn, each a fresh load and
 * graph; their CPU times in ms. `server`: the request a server runs (load, validate, run,
 * produceGeneration on one thread, CSV); `rows`: the same graph's rows alone (run.next()).
 */
async function child(mode, names) {
  const lib = (path) => import(pathToFileURL(`${dist}/${path}`).href);
  const { loadSynthModel, parseModel, SynthRun, validateModel } = await lib('synth/index.js');
  const { produceGeneration } = await lib('service/synth-generation.js');
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let g = 0; g < GENERATIONS; g++) {
    for (const name of names) {
      const t0 = process.cpuUsage();
      const prepared = await loadSynthModel(parseModel(MODELS[name]), {});
      if (!validateModel(prepared).valid) throw new Error(`${name} does not validate`);
      const run = new SynthRun(prepared, 42n);
      if (mode === 'rows') for (let r = 0; r < ROWS; r++) run.next();
      else {
        const gen = await produceGeneration({
          id: `g${g}`,
          modelId: name,
          run,
          seed: 42n,
          seedSource: 'request',
          count: ROWS,
          format: 'csv',
          maxBytes: 2 ** 32 - 1,
          maxBytesSetting: 'bench',
          workers: 1,
        });
        if (gen.count !== ROWS) throw new Error('short generation');
      }
      const c = process.cpuUsage(t0);
      times[name].push((c.user + c.system) / 1000);
    }
  }
  process.stdout.write(JSON.stringify(times));
}

const median = (xs) => {
  const s = xs.toSorted((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const laterOverFirst = (ts) => ts.slice(1).reduce((a, b) => a + b, 0) / (ts.length - 1) / ts[0];

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4].split(','));
} else {
  const scenarios = {
    dice: ['dice'],
    'support-queue': ['support-queue'],
    mixed: ['dice', 'support-queue'],
  };
  const chosen = (process.env.BENCH_MODELS ?? Object.keys(scenarios).join(',')).split(',');
  console.log(`dist: ${dist}  ${ROWS} rows, ${GENERATIONS} generations, ${ROUNDS} rounds`);
  for (const scenario of chosen) {
    const names = scenarios[scenario];
    if (!names) throw new Error(`unknown model ${scenario}`);
    for (const mode of ['server', 'rows']) {
      const rounds = [];
      for (let r = 0; r < ROUNDS; r++) {
        const out = spawnSync(process.execPath, [here, '--child', mode, names.join(',')], {
          encoding: 'utf8',
          env: process.env,
        });
        if (out.status !== 0) throw new Error(`child failed: ${out.stderr}`);
        rounds.push(JSON.parse(out.stdout));
      }
      for (const name of names) {
        const per = Array.from({ length: GENERATIONS }, (_, g) => median(rounds.map((t) => t[name][g])));
        const ratios = rounds.map((t) => laterOverFirst(t[name]));
        const label = `${name} ${mode}${scenario === 'mixed' ? ' (mixed)' : ''}`;
        console.log(
          `${label.padEnd(30)} CPU ms per generation ${per.map((t) => t.toFixed(0).padStart(5)).join(' ')}` +
            `   later/first ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        );
      }
    }
  }
}
