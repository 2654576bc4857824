// What a small mutate costs in-process with the caches warm and cold. Our MCP server (in-memory
// store) is driven over a direct transport (bench/lib/direct-mcp.mjs): no stdio, no other process.
// Each call is timed alone, in three conditions: back to back; after the thread sleeps 100 µs (as
// a stdio server does while the client reads its answer); after walking 8 MB of other data (as the
// client, the kernel and the rest of the box do to the caches between two requests). The cycle's
// cost is mutate − unchanged write (the same tool, answered `unchanged` with no cycle and no record).
// First, the JIT: medians per block of 500 calls on a fresh server, until the code is optimised.
// Run with `npm run bench:mcp-cold` (builds first). Knobs: BENCH_COLD_CALLS (per condition), BENCH_DIST.
import { calcServer, demoSpec, directClient, echoServer } from './lib/direct-mcp.mjs';

const CALLS = Number(process.env.BENCH_COLD_CALLS ?? 5000);
const WARM_UP = 6000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ms) => (ms * 1000).toFixed(1).padStart(6);

const echo = await directClient(await echoServer());
const calc = await directClient(await calcServer());
await calc('create_model', { spec: demoSpec('demo') });
await calc('create_model', { spec: demoSpec('still') });
const STILL = { id: 'still', mutations: { '$.price': 7, '$.qty': 3 } };
await calc('mutate', STILL);
let n = 0;
const calls = {
  'SDK echo tool': () => echo('echo', { text: `hello ${n++}` }),
  'unchanged write': async () => {
    const result = await calc('mutate', STILL);
    if (result.structuredContent?.unchanged !== true) throw new Error('unchanged write: a cycle ran');
  },
  mutate: () => calc('mutate', { id: 'demo', mutations: { '$.price': n++ % 100, '$.qty': 3 } }),
};

// between two calls the event loop turns once (the memory store seals the record then, as it
// does between two stdio requests); the time of that turn is not counted
const turn = () => new Promise((settle) => setImmediate(settle));

/** Milliseconds of each of `count` calls of `op`, each after `before()`. */
async function timed(op, count, before = () => {}) {
  const times = [];
  for (let i = 0; i < count; i++) {
    before();
    const started = performance.now();
    await op();
    times.push(performance.now() - started);
    await turn();
  }
  return times;
}

const warming = await timed(calls.mutate, WARM_UP);
const blocks = [];
for (let b = 0; b < warming.length; b += 500) blocks.push(median(warming.slice(b, b + 500)));
console.log(
  `mutate on a fresh server, median µs per block of 500 calls: ${blocks.map((x) => Math.round(x * 1000)).join(' ')}`,
);
for (const op of Object.values(calls)) await timed(op, WARM_UP / 2);

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const other = new Float64Array(1 << 20); // 8 MB: four times this box's L2 per core (2 MB)
const conditions = {
  'back to back': () => {},
  'after 100 µs asleep': () => Atomics.wait(sleeper, 0, 0, 0.1),
  'after walking 8 MB': () => {
    for (let i = 0; i < other.length; i += 8) other[i] += 1; // one touch per 64-byte line
  },
};
console.log(
  `\nmedian µs per call over ${CALLS.toLocaleString('en-US')} calls (our server and the SDK echo, in-process)`,
);
console.log(
  `${'condition'.padEnd(20)}  ${Object.keys(calls)
    .map((k) => k.padStart(16))
    .join('')}  cycle (mutate − unchanged)`,
);
for (const [name, before] of Object.entries(conditions)) {
  const medians = {};
  for (const [op, call] of Object.entries(calls)) medians[op] = median(await timed(call, CALLS, before));
  console.log(
    `${name.padEnd(20)}  ${Object.values(medians)
      .map((m) => us(m).padStart(16))
      .join('')}  ${us(medians.mutate - medians['unchanged write'])}`,
  );
}
