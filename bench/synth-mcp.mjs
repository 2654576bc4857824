// Synth over MCP: rows per second for generate + reading every page through read_generation, in
// embedded mode and in proxy mode (a `modelworks synth serve` child), against `modelworks synth
// grind` writing the same model, seed and count, measured in the same run. Every side is a real
// child process; the MCP sides are timed from the generate call to the last page (connection set
// up before), grind from spawn to exit. Rounds rotate which side goes first; each side's figure is
// its fastest round. The bench also checks that both modes reassemble grind's bytes exactly.
// Run with `npm run bench:synth-mcp` (builds first). Knobs: BENCH_ROWS, BENCH_ROUNDS.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEED = 20260;
const modelPath = fileURLToPath(new URL('../examples/synth/support-queue.xml', import.meta.url));
const modelText = readFileSync(modelPath, 'utf8');

const env = (extra = {}) => {
  const out = { ...process.env, MODELWORKS_STORE: 'memory', ...extra };
  return out;
};

function grind() {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, 'synth', 'grind', modelPath, '--seed', String(SEED), '--count', String(ROWS), '--quiet'],
      { cwd: root, maxBuffer: 1024 * 1024 * 1024 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

async function connect(extraEnv) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '--tools', 'synth'],
    cwd: root,
    env: env({ MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES: String(1024 * 1024 * 1024), ...extraEnv }),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args }, { timeout: 600_000 });
  if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
  return r.structuredContent;
}

/** generate, then every page; returns the reassembled text and the page count. */
async function generateAndReadAll(client) {
  const g = await call(client, 'generate', { modelText, count: ROWS, seed: SEED, previewLimit: 100 });
  const parts = [g.preview];
  let offset = g.rowCount;
  let pages = 0;
  while (offset < g.totalCount) {
    const page = await call(client, 'read_generation', {
      generationId: g.generationId,
      offset,
      limit: 100_000,
    });
    parts.push(page.data);
    offset += page.rowCount;
    pages++;
  }
  return { text: parts.join(''), pages };
}

function startService() {
  const child = spawn(
    process.execPath,
    [cli, 'synth', 'serve', '--port', '0', '--max-bytes', String(1024 * 1024 * 1024)],
    {
      cwd: root,
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
      const m = /listening at (http:\/\/\S+)/.exec(stderr);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`synth serve exited ${code}: ${stderr}`)));
  });
}

const service = await startService();
const embedded = await connect({ MODELWORKS_SYNTH_GENERATE_MODE: 'embedded' });
const proxy = await connect({
  MODELWORKS_SYNTH_GENERATE_MODE: 'proxy',
  MODELWORKS_SYNTH_SERVICE_URL: service.url,
});

const expected = await grind();
const sides = {
  grind: async () => {
    const out = await grind();
    if (out !== expected) throw new Error('grind is not deterministic?');
  },
  'MCP embedded': async () => {
    const { text, pages } = await generateAndReadAll(embedded);
    if (text !== expected) throw new Error('embedded pages differ from grind');
    return pages;
  },
  'MCP proxy': async () => {
    const { text, pages } = await generateAndReadAll(proxy);
    if (text !== expected) throw new Error('proxy pages differ from grind');
    return pages;
  },
};
// what grind's figure includes besides generating: starting node and loading the CLI
sides['(node + CLI start)'] = () =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [cli, '--version'], { cwd: root }, (err) => (err ? reject(err) : resolve())),
  );
const names = Object.keys(sides);
const best = Object.fromEntries(names.map((n) => [n, Infinity]));
const pagesOf = {};
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      const t0 = performance.now();
      const pages = await sides[name]();
      const ms = performance.now() - t0;
      if (pages !== undefined) pagesOf[name] = pages;
      best[name] = Math.min(best[name], ms);
    }
  }
} finally {
  await embedded.close();
  await proxy.close();
  service.child.kill('SIGTERM');
}

const mb = Buffer.byteLength(expected) / 1e6;
console.log(
  `synth over MCP: support-queue.xml, ${ROWS.toLocaleString('en')} rows (${mb.toFixed(1)} MB csv), fastest of ${ROUNDS} rounds`,
);
console.log('bytes: both modes reassemble exactly what grind writes');
const base = ROWS / (best.grind / 1000);
for (const name of names) {
  if (name.startsWith('(')) {
    const net = best.grind - best[name];
    console.log(`${name.padEnd(14)} ${(best[name] / 1000).toFixed(2)} s of grind's time is process start-up`);
    if (net > 0)
      console.log(
        `grind without start-up: ${(ROWS / (net / 1000)).toFixed(0)} rows/s; MCP embedded ${(best.grind > 0 ? net / best['MCP embedded'] : 0).toFixed(2)} x, proxy ${(net / best['MCP proxy']).toFixed(2)} x of that`,
      );
    continue;
  }
  const rate = ROWS / (best[name] / 1000);
  const pages = pagesOf[name] !== undefined ? `, ${pagesOf[name]} pages` : '';
  console.log(
    `${name.padEnd(14)} ${rate.toFixed(0).padStart(9)} rows/s  ${(best[name] / 1000).toFixed(2)} s  ${(rate / base).toFixed(2)} x grind${pages}`,
  );
}
