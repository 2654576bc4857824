// Mutations per second over HTTP on loopback, as ratios to the in-process service call measured in
// the same run: REST (POST /models/{id}/mutations, keep-alive fetch) and MCP at /mcp (SDK Client,
// Streamable HTTP, `mutate` tool), both against a `modelworks serve` child on the memory store;
// the baseline is CalcService.mutate in this process, on the memory store too. Rounds alternate
// between the sides; each side's figure is its fastest round (the least disturbed by noise).
// Run with `npm run bench:calc-rest` (builds first). Knobs: BENCH_ROUNDS, BENCH_OPS.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CalcService } from '../dist/service/calc-service.js';
import { MemoryStore } from '../dist/store/memory-store.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const OPS = Number(process.env.BENCH_OPS ?? 300);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

const spec = (id) => ({
  id,
  version: '1',
  schema: {},
  derivations: [
    { path: '$.total', expr: 'price * qty' },
    { path: '$.withTax', expr: 'total * 1.2' },
  ],
});

function startServe() {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--store', 'memory'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MODELWORKS_API_KEY: '' },
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /serving (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

const { url, child } = await startServe();
try {
  // in-process baseline
  const service = new CalcService(new MemoryStore());
  await service.createModel(spec('bench'));

  // REST
  const post = (path, body) =>
    fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const created = await post('/models', spec('bench-rest'));
  if (created.status !== 201) throw new Error(`create over REST: ${created.status}`);

  // MCP over /mcp
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  await client.listTools();
  const made = await client.callTool({ name: 'create_model', arguments: { spec: spec('bench-mcp') } });
  if (made.isError) throw new Error(`create over MCP: ${made.content[0]?.text}`);

  let n = 0;
  const sides = {
    'in-process CalcService.mutate': async () => {
      await service.mutate('bench', { '$.price': ++n, '$.qty': 2 });
    },
    'REST POST /mutations': async () => {
      const res = await post('/models/bench-rest/mutations', { '$.price': ++n, '$.qty': 2 });
      if (res.status !== 200) throw new Error(`REST mutate: ${res.status}`);
      await res.arrayBuffer();
    },
    'MCP mutate at /mcp': async () => {
      const res = await client.callTool({
        name: 'mutate',
        arguments: { id: 'bench-mcp', mutations: { '$.price': ++n, '$.qty': 2 } },
      });
      if (res.isError) throw new Error(`MCP mutate: ${res.content[0]?.text}`);
    },
  };
  const names = Object.keys(sides);
  const best = Object.fromEntries(names.map((k) => [k, Infinity]));
  for (const name of names) for (let i = 0; i < 50; i++) await sides[name](); // warm up
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const t0 = performance.now();
      for (let i = 0; i < OPS; i++) await sides[name]();
      best[name] = Math.min(best[name], (performance.now() - t0) / OPS);
    }
  }
  const base = 1000 / best[names[0]];
  console.log(`calc over HTTP, loopback, ${ROUNDS} rounds × ${OPS} sequential mutations (fastest round)`);
  for (const name of names) {
    const perSec = 1000 / best[name];
    console.log(
      `  ${name.padEnd(32)} ${perSec.toFixed(0).padStart(7)} mutations/s  ${(perSec / base).toFixed(3)} × in-process`,
    );
  }
  await client.close();
  await service.close();
} finally {
  child.kill('SIGTERM');
}
