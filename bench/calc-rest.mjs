// Mutations per second over HTTP on loopback, measured in one run:
// - REST (POST /models/{id}/mutations) against a `modelworks serve` child on the
//   memory store, as a ratio to a bare Fastify route in a second child (target ≥ 0.6). The bare
//   route runs on the same server settings (`serverOptions` of the app, the same log level and
//   stream), parses the same body with Fastify's JSON parser and answers JSON of the same size
//   (the REST answer's shape, serialised per request); it does no model work. Both are called by
//   the same keep-alive undici Client (bench/lib/http-bench.mjs), not fetch, whose own cost per
//   request exceeds the bare route's.
// - MCP at /mcp (SDK Client, Streamable HTTP, `mutate` tool) on the same `serve` child, and the
//   in-process CalcService.mutate on the memory store, for reference.
// Rounds alternate between the sides; each side's figure is its fastest round (the least disturbed
// by noise). Run with `npm run bench:calc-rest` (builds first). Knobs: BENCH_ROUNDS, BENCH_OPS.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, httpClient, startChild } from './lib/http-bench.mjs';

const TARGET = 0.6;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const OPS = Number(process.env.BENCH_OPS ?? 300);
const here = fileURLToPath(import.meta.url);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
/** What `modelworks serve` logs with by default (`--log-level warn`, on stderr). */
const SERVE_LOG = { level: 'warn', stream: process.stderr };

/** The baseline: one Fastify route, the app's server settings, no model work. */
async function bareServer() {
  const { default: Fastify } = await import('fastify');
  const { serverOptions } = await import('../dist/http/app.js');
  const answer = JSON.parse(process.env.BENCH_ANSWER ?? '{}');
  const app = Fastify(serverOptions(SERVE_LOG));
  app.post('/models/:id/mutations', async (req, res) =>
    res
      .code(200)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ ...answer, mutatedPaths: Object.keys(req.body) })),
  );
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stderr.write(`serving ${address}\n`);
  const stop = () => void app.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

const spec = (id) => ({
  id,
  version: '1',
  schema: {},
  derivations: [
    { path: '$.total', expr: 'price * qty' },
    { path: '$.withTax', expr: 'total * 1.2' },
  ],
});

async function main() {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { CalcService } = await import('../dist/service/calc-service.js');
  const { MemoryStore } = await import('../dist/store/memory-store.js');

  const children = [];
  const clients = [];
  try {
    const serve = await startChild([cli, 'serve', '--port', '0', '--store', 'memory']);
    children.push(serve.child);
    const post = (base, path, body) =>
      fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await post(serve.url, '/models', spec('bench-rest'));
    if (created.status !== 201) throw new Error(`create over REST: ${created.status}`);
    const first = await post(serve.url, '/models/bench-rest/mutations', { '$.price': 1, '$.qty': 2 });
    const answer = await first.text();
    if (first.status !== 200) throw new Error(`REST mutate: ${first.status} ${answer}`);

    const bare = await startChild([here, '--bare-server'], { BENCH_ANSWER: answer });
    children.push(bare.child);

    // in-process reference
    const service = new CalcService(new MemoryStore());
    await service.createModel(spec('bench'));

    // MCP over /mcp
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`)));
    await client.listTools();
    const made = await client.callTool({ name: 'create_model', arguments: { spec: spec('bench-mcp') } });
    if (made.isError) throw new Error(`create over MCP: ${made.content[0]?.text}`);

    let n = 0;
    const restCall = async (base, id) => {
      const client = httpClient(base);
      clients.push(client);
      return async () => {
        const res = await client.post(`/models/${id}/mutations`, { '$.price': ++n, '$.qty': 2 });
        if (res.status !== 200) throw new Error(`POST ${base}: ${res.status} ${res.body}`);
      };
    };
    const sides = {
      'bare Fastify route': await restCall(bare.url, 'bench-rest'),
      'REST POST /mutations': await restCall(serve.url, 'bench-rest'),
      'MCP mutate at /mcp': async () => {
        const res = await client.callTool({
          name: 'mutate',
          arguments: { id: 'bench-mcp', mutations: { '$.price': ++n, '$.qty': 2 } },
        });
        if (res.isError) throw new Error(`MCP mutate: ${res.content[0]?.text}`);
      },
      'in-process CalcService.mutate': async () => {
        await service.mutate('bench', { '$.price': ++n, '$.qty': 2 });
      },
    };
    const servers = { 'bare Fastify route': bare.child.pid, 'REST POST /mutations': serve.child.pid };
    const names = Object.keys(sides);
    const best = Object.fromEntries(names.map((k) => [k, Infinity]));
    const cpu = Object.fromEntries(names.map((k) => [k, 0]));
    for (const name of names) for (let i = 0; i < 100; i++) await sides[name](); // warm up
    for (let round = 0; round < ROUNDS; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) {
        const cpu0 = cpuSeconds(servers[name]);
        const t0 = performance.now();
        for (let i = 0; i < OPS; i++) await sides[name]();
        best[name] = Math.min(best[name], (performance.now() - t0) / OPS);
        cpu[name] += (cpuSeconds(servers[name]) ?? NaN) - (cpu0 ?? NaN);
      }
    }
    const perSec = (name) => 1000 / best[name];
    const bareRate = perSec('bare Fastify route');
    console.log(
      `calc over HTTP, loopback, ${ROUNDS} rounds × ${OPS} sequential mutations (fastest round), ${answer.length}-byte answers`,
    );
    for (const name of names) {
      // the server process's CPU time over all rounds (Linux), the part of a request a client cannot hide
      const serverCpu = (1e6 * cpu[name]) / (ROUNDS * OPS);
      console.log(
        `  ${name.padEnd(32)} ${perSec(name).toFixed(0).padStart(7)} mutations/s  ${(perSec(name) / bareRate).toFixed(3)} × bare Fastify${Number.isFinite(serverCpu) ? `  server CPU ${serverCpu.toFixed(0)} µs/request` : ''}`,
      );
    }
    const ratio = perSec('REST POST /mutations') / bareRate;
    console.log(
      `REST mutate ÷ bare Fastify route: ${ratio.toFixed(3)} (target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'})`,
    );
    await client.close();
    await service.close();
  } finally {
    for (const client of clients) client.close();
    for (const child of children) child.kill('SIGTERM');
  }
}

if (process.argv[2] === '--bare-server') await bareServer();
else await main();
