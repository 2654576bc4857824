// What the young-generation collector costs per MCP call, and why: each case runs in a child
// under `node --trace-gc-nvp` (V8's line per collection: pause, bytes promoted, bytes allocated)
// and this script sums the scavenges of the measured loop. The servers are driven in-process
// (bench/lib/gc-child.mjs), the SDK's echo tool beside our mutate and our unchanged write; four
// library cases show the mechanism on its own: a failing zod safeParse beside a passing one, and an
// AbortController with its signal read beside one without.
//
// A scavenge's cost follows what survives it. Garbage that dies young costs nothing; an object that
// something in the old generation still points to at the moment of a scavenge is copied out
// (promoted), even when that old object is itself dead. Read "promoted KB per call" as the tax.
// Run with `npm run bench:mcp-gc` (builds first). Knobs: BENCH_GC_CALLS (per case), BENCH_DIST.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CALLS = Number(process.env.BENCH_GC_CALLS ?? 30_000);
const child = fileURLToPath(new URL('./lib/gc-child.mjs', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

const CASES = [
  ['echo', 'SDK echo tool (McpServer, zod input schema)'],
  ['unchanged', 'our mutate answered unchanged (no cycle, no record)'],
  ['mutate', 'our mutate: a cycle and its audit record'],
  ['zod-fail', 'zod safeParse that fails (request against a response schema)'],
  ['zod-pass', 'zod safeParse that passes'],
  ['abort-signal', 'new AbortController() and its signal read'],
  ['abort-controller', 'new AbortController(), signal never read'],
];

/** The scavenges of one case's measured loop, summed from V8's name=value lines. */
function measure(which) {
  const run = spawnSync(process.execPath, ['--trace-gc-nvp', child, which, String(CALLS)], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${which} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const lines = run.stdout.split('\n');
  const start = lines.indexOf('gc-bench: measure');
  const end = lines.findIndex((line) => line.startsWith('gc-bench: done'));
  if (start < 0 || end < start) throw new Error(`${which}: the child printed no markers`);
  const ms = Number(lines[end].split(' ')[3]);
  const sum = { count: 0, pause: 0, promoted: 0, allocated: 0 };
  for (const line of lines.slice(start + 1, end)) {
    if (!/\bgc=s\b/.test(line)) continue; // scavenges only (major GCs are rare here and reported by V8 apart)
    const field = (name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    sum.count++;
    sum.pause += field('pause');
    sum.promoted += field('promoted');
    sum.allocated += field('allocated');
  }
  return { ...sum, ms };
}

const rows = CASES.map(([which, label]) => [label, measure(which)]);
const width = Math.max(...rows.map(([label]) => label.length));
const fixed = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
console.log(
  `young-generation collections over ${CALLS.toLocaleString('en-US')} calls per case, node ${process.version}`,
);
console.log(
  `${'case'.padEnd(width)}  µs/call  scavenges  ms each  allocated KB/call  promoted KB/call  GC µs/call`,
);
for (const [label, s] of rows) {
  console.log(
    `${label.padEnd(width)}  ${fixed((s.ms * 1000) / CALLS, 1).padStart(7)}  ${String(s.count).padStart(9)}` +
      `  ${fixed(s.pause / s.count, 2).padStart(7)}  ${fixed(s.allocated / 1024 / CALLS, 1).padStart(17)}` +
      `  ${fixed(s.promoted / 1024 / CALLS, 2).padStart(16)}  ${fixed((s.pause * 1000) / CALLS, 1).padStart(10)}`,
  );
}
