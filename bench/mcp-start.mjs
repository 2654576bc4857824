// Spawn to answered `initialize` of `modelworks mcp` (stdio, in-memory store) against `node -e 0`
// (issue 45, target ≤ 3×). Each round spawns both, in alternating order; a side's figure is its
// fastest round, the median is printed next to it. The same rounds also time the first tools/list
// (sent after `initialized`): the tools load on demand, so that is where their cost now shows.
// With BENCH_IMPORTS=1, one more spawn counts the ES module files loaded before `initialize` is
// answered (and before tools/list is), and the modules they hold by package or source folder
// (bench/import-log-hook.mjs): with the bundle (npm run build) a file is a chunk, which stands for
// the modules its meta.json lists (scripts/bundle-cli.mjs); CommonJS files a package require()s
// inside itself are not seen by the hook in either build.
// Run: npm run build && node bench/mcp-start.mjs. Knobs: BENCH_ROUNDS (default 10),
// BENCH_CLI (another build's dist/cli/main.js), BENCH_BASELINE (an older build's dist/cli/main.js:
// spawned in the same rounds, in turn with ours, so both ratios share one load), BENCH_IMPORTS=1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const cli = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const baseline = process.env.BENCH_BASELINE;
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

const send = (child, message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

/**
 * One spawn: ms to the answered initialize and to the answered tools/list (sent after
 * `initialized`); `onInitialize`/`onList` run at those moments (the import count reads its log then).
 */
function initializeOnce({ nodeArgs = [], env = process.env, onInitialize, onList, main = cli } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, main, 'mcp', '--store', 'memory'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env,
    });
    let out = '';
    let initialized;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (initialized === undefined && out.includes('"id":1')) {
        initialized = performance.now() - t0;
        onInitialize?.();
        send(child, { method: 'notifications/initialized' });
        send(child, { id: 2, method: 'tools/list' });
      }
      if (out.includes('"id":2')) {
        const listed = performance.now() - t0;
        onList?.();
        child.kill();
        resolve({ initialized, listed });
      }
    });
    child.on('exit', (code) =>
      out.includes('"id":2') ? undefined : reject(new Error(`exited ${code}: ${out}`)),
    );
    send(child, JSON.parse(INIT));
  });
}

function nodeOnce() {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t0;
}

const runs = { node: [], mcp: [], list: [], baseMcp: [], baseList: [] };
const mcpOnce = async () => {
  const { initialized, listed } = await initializeOnce();
  runs.mcp.push(initialized);
  runs.list.push(listed);
};
const baselineOnce = async () => {
  const { initialized, listed } = await initializeOnce({ main: baseline });
  runs.baseMcp.push(initialized);
  runs.baseList.push(listed);
};
const nodeRound = async () => runs.node.push(nodeOnce());
for (let r = 0; r < ROUNDS; r++) {
  // each side goes first as often as last (a spawn right after another one is slower)
  const sides = [nodeRound, mcpOnce, ...(baseline ? [baselineOnce] : [])];
  const order = r % 2 === 0 ? sides : sides.reverse();
  for (let i = 0; i < (r >> 1) % sides.length; i++) order.push(order.shift());
  for (const side of order) await side();
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
console.log(
  `  then answered tools/list:           ${min(runs.list).toFixed(0)} ms (${median(runs.list).toFixed(0)}) from spawn`,
);
console.log(`  ratio ${(min(runs.mcp) / min(runs.node)).toFixed(2)} (target <= 3)`);
if (baseline) {
  console.log(`  baseline ${baseline}:`);
  console.log(
    `    answered initialize:              ${min(runs.baseMcp).toFixed(0)} ms (${median(runs.baseMcp).toFixed(0)})`,
  );
  console.log(
    `    then answered tools/list:         ${min(runs.baseList).toFixed(0)} ms (${median(runs.baseList).toFixed(0)}) from spawn`,
  );
  console.log(`    ratio ${(min(runs.baseMcp) / min(runs.node)).toFixed(2)}`);
}

if (process.env.BENCH_IMPORTS === '1') {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-start-'));
  const log = join(dir, 'imports.txt');
  const read = () => readFileSync(log, 'utf8').trim().split('\n');
  let atInitialize = [];
  let atList = [];
  await initializeOnce({
    nodeArgs: ['--import', fileURLToPath(new URL('./import-log-hook.mjs', import.meta.url))],
    env: { ...process.env, BENCH_IMPORTS_LOG: log },
    onInitialize: () => (atInitialize = read()),
    onList: () => (atList = read()),
  });
  rmSync(dir, { recursive: true, force: true });
  // a bundle chunk's modules, from the meta.json beside it (esbuild's metafile)
  const metas = new Map();
  const chunkModules = (url) => {
    if (!url.startsWith('file:')) return undefined;
    const folder = dirname(fileURLToPath(url));
    if (!metas.has(folder)) {
      const path = join(folder, 'meta.json');
      metas.set(folder, existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined);
    }
    const meta = metas.get(folder);
    if (!meta) return undefined;
    const key = Object.keys(meta.outputs).find((out) => url.endsWith(`/${out}`));
    return key ? Object.keys(meta.outputs[key].inputs) : undefined;
  };
  const modulesOf = (urls) => urls.flatMap((url) => chunkModules(url) ?? [url]);
  // a package under node_modules, or a folder of our sources (dist/<folder>/… or src/<folder>/…)
  const groupOf = (path) =>
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ??
    /(?:\/dist[^/]*|^src)\/([^/]+)\//.exec(path)?.[1] ??
    'other';
  const groups = (urls) => {
    const counts = new Map();
    for (const path of modulesOf(urls)) counts.set(groupOf(path), (counts.get(groupOf(path)) ?? 0) + 1);
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([name, n]) => `${n} ${name}`)
      .join(', ');
  };
  const chunks = (urls) => urls.filter((url) => chunkModules(url) !== undefined).length;
  const count = (urls) =>
    `${urls.length} files (${chunks(urls)} bundle chunks) holding ${modulesOf(urls).length} modules`;
  console.log(
    `  ES module files loaded before initialize was answered: ${count(atInitialize)} (${groups(atInitialize)})`,
  );
  console.log(`  before tools/list was answered: ${count(atList)} (${groups(atList)})`);
}
