// Soak: does a long-running server's memory stay flat under a steady mixed load (issue 47)?
//
// Starts `modelworks serve` on 127.0.0.1 (any free port) with a SQLite store in a temporary folder
// and an audit key given in the environment (nothing read from or written to the user's files),
// then drives its MCP endpoint (/mcp, SDK Client over Streamable HTTP) for --minutes with a mixed
// load at a steady model count: mutate, get_state, validate_spec, dry_run, evolve_spec, and
// delete_model followed by create_model of the same id (so the count never moves). Each worker
// owns its own models, so no two calls race for one revision and any error is a real one.
//
// Every --sample-seconds it reads the server's resident set (VmRSS in /proc/<pid>/status) and at
// the end prints the RSS slope after the warm-up (least squares, MB/min), p50/p99 latency per
// operation and the error count; the last line is the same as JSON. Linux only (/proc).
//
// Run with `npm run bench:soak` (builds first), or `node bench/soak.mjs --minutes 5`.
// Knobs: --minutes (2), --models (24), --workers (4), --sample-seconds (5),
// --warmup-minutes (a quarter of the run, at most 5: the heap grows into its working size first).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startChild } from './lib/http-bench.mjs';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    models: { type: 'string', default: '24' },
    workers: { type: 'string', default: '4' },
    'sample-seconds': { type: 'string', default: '5' },
    'warmup-minutes': { type: 'string' },
    cli: { type: 'string' },
  },
});
const positive = (name, max) => {
  const v = Number(args[name]);
  if (!Number.isFinite(v) || v <= 0 || v > max) {
    process.stderr.write(`soak: --${name} must be a number in (0, ${max}]\n`);
    process.exit(2);
  }
  return v;
};
// bounded: a soak is a few hours at most, a few hundred models, a few workers
const MINUTES = positive('minutes', 24 * 60);
const MODELS = Math.floor(positive('models', 1000));
const WORKERS = Math.min(Math.floor(positive('workers', 64)), MODELS);
const SAMPLE_MS = positive('sample-seconds', 600) * 1000;
const WARMUP_MIN =
  args['warmup-minutes'] === undefined ? Math.min(5, MINUTES / 4) : positive('warmup-minutes', MINUTES);
const cli = args.cli ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** A small reactive model; `n` varies its constant so specs differ a little from model to model. */
const spec = (id, n) => ({
  id,
  version: '1',
  schema: {
    type: 'object',
    properties: {
      price: { type: 'number', minimum: 0 },
      qty: { type: 'integer', minimum: 0 },
      lines: { type: 'array', items: { type: 'object', properties: { amount: { type: 'number' } } } },
    },
  },
  derivations: [
    { path: '$.total', expr: 'price * qty' },
    { path: '$.withTax', expr: `total * ${1 + (n % 10) / 100}` },
    { path: '$.linesSum', expr: '$sum(lines.amount)' },
  ],
});

/** The operations and how often each is picked (out of the sum of the weights). */
const MIX = [
  ['mutate', 40],
  ['get_state', 20],
  ['validate_spec', 10],
  ['dry_run', 10],
  ['evolve_spec', 8],
  ['recycle', 12], // delete_model then create_model: timed as two operations
];
const WEIGHT = MIX.reduce((s, [, w]) => s + w, 0);

/** Deterministic per worker, so two runs load the server alike. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

function rssMb(pid) {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'modelworks-soak-'));
  const server = await startChild(
    [cli, 'serve', '--host', '127.0.0.1', '--port', '0', '--store', `sqlite:${join(dir, 'soak.db')}`],
    { MODELWORKS_AUDIT_KEY: 'modelworks soak bench: a throwaway key of 32+ characters' },
  );
  const { child } = server;
  const stopServer = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  process.once('SIGINT', () => {
    stopServer();
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    if (new URL(server.url).hostname !== '127.0.0.1') throw new Error(`not loopback: ${server.url}`);
    const latencies = new Map(MIX.flatMap(([op]) => (op === 'recycle' ? [] : [[op, []]])));
    latencies.set('delete_model', []);
    latencies.set('create_model', []);
    const errors = new Map();
    let calls = 0;

    const clients = [];
    for (let w = 0; w < WORKERS; w++) {
      const client = new Client({ name: 'modelworks-soak', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)));
      clients.push(client);
    }
    /** One timed tool call; a tool error or a thrown one is counted, never fatal. */
    const call = async (client, name, toolArgs) => {
      const t0 = performance.now();
      let failed;
      try {
        const r = await client.callTool({ name, arguments: toolArgs });
        if (r.isError) failed = r.content?.[0]?.text ?? 'tool error';
      } catch (err) {
        failed = err instanceof Error ? err.message : String(err);
      }
      latencies.get(name).push(performance.now() - t0);
      calls++;
      if (failed !== undefined) {
        const key = `${name}: ${String(failed).slice(0, 120)}`;
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
      return failed === undefined;
    };

    // the steady population, each model owned by one worker
    const owned = Array.from({ length: WORKERS }, () => []);
    for (let i = 0; i < MODELS; i++) {
      const id = `soak-${i}`;
      await call(clients[i % WORKERS], 'create_model', { spec: spec(id, i) });
      owned[i % WORKERS].push({ id, n: i, evolutions: 0 });
    }

    const started = performance.now();
    const end = started + MINUTES * 60_000;
    const samples = [];
    const sample = () => samples.push({ x: (performance.now() - started) / 60_000, y: rssMb(child.pid) });
    sample();
    const sampler = setInterval(sample, SAMPLE_MS);
    const progress = setInterval(() => {
      const last = samples.at(-1);
      process.stderr.write(
        `soak: ${((performance.now() - started) / 60_000).toFixed(1)} min, ${calls} calls, RSS ${last.y.toFixed(1)} MB\n`,
      );
    }, 30_000);

    const worker = async (w) => {
      const client = clients[w];
      const mine = owned[w];
      const random = rng(w + 1);
      let k = 0;
      while (performance.now() < end) {
        const model = mine[k++ % mine.length];
        let pick = random() * WEIGHT;
        const [op] = MIX.find(([, weight]) => (pick -= weight) < 0) ?? MIX[0];
        const value = Math.round(random() * 1000);
        switch (op) {
          case 'mutate':
            await call(client, 'mutate', {
              id: model.id,
              mutations: {
                '$.price': value / 10,
                '$.qty': value % 17,
                '$.lines': Array.from({ length: value % 8 }, (_, i) => ({ amount: i * value })),
              },
            });
            break;
          case 'get_state':
            await call(client, 'get_state', { id: model.id });
            break;
          case 'validate_spec':
            await call(client, 'validate_spec', { spec: spec(`candidate-${w}`, value) });
            break;
          case 'dry_run':
            await call(client, 'dry_run', {
              spec: spec(`candidate-${w}`, value),
              mutations: { '$.price': value, '$.qty': 3 },
            });
            break;
          case 'evolve_spec':
            model.evolutions++;
            await call(client, 'evolve_spec', {
              id: model.id,
              evolution: {
                upsertDerivations: [{ path: '$.extra', expr: `withTax + ${model.evolutions}` }],
              },
            });
            break;
          case 'recycle':
            await call(client, 'delete_model', { id: model.id });
            model.evolutions = 0;
            await call(client, 'create_model', { spec: spec(model.id, value) });
            break;
        }
      }
    };
    await Promise.all(clients.map((_, w) => worker(w)));
    clearInterval(sampler);
    clearInterval(progress);
    sample();
    const minutes = (performance.now() - started) / 60_000;
    for (const c of clients) await c.close().catch(() => undefined);

    const after = samples.filter((s) => s.x >= WARMUP_MIN);
    const ops = [...latencies].map(([op, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      return { op, count: list.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
    });
    const errorCount = [...errors.values()].reduce((s, n) => s + n, 0);
    const result = {
      minutes: Number(minutes.toFixed(2)),
      models: MODELS,
      workers: WORKERS,
      calls,
      callsPerSecond: Number((calls / (minutes * 60)).toFixed(1)),
      warmupMinutes: WARMUP_MIN,
      rssStartMb: Number(samples[0].y.toFixed(1)),
      rssAfterWarmupMb: Number((after[0]?.y ?? NaN).toFixed(1)),
      rssEndMb: Number(samples.at(-1).y.toFixed(1)),
      rssPeakMb: Number(Math.max(...samples.map((s) => s.y)).toFixed(1)),
      rssSlopeMbPerMin: Number(slope(after).toFixed(2)),
      samplesAfterWarmup: after.length,
      errors: errorCount,
      latencyMs: Object.fromEntries(
        ops.map((o) => [
          o.op,
          { count: o.count, p50: Number(o.p50.toFixed(2)), p99: Number(o.p99.toFixed(2)) },
        ]),
      ),
    };
    const line = (s) => process.stdout.write(`${s}\n`);
    line(
      `soak: ${result.minutes} min, ${MODELS} models, ${WORKERS} workers, ${calls} calls (${result.callsPerSecond}/s), ${errorCount} errors`,
    );
    line(
      `RSS: start ${result.rssStartMb} MB, after warm-up (${WARMUP_MIN} min) ${result.rssAfterWarmupMb} MB, end ${result.rssEndMb} MB, peak ${result.rssPeakMb} MB`,
    );
    line(
      `RSS slope after warm-up: ${result.rssSlopeMbPerMin} MB/min (least squares, ${after.length} samples)`,
    );
    line('operation        count     p50 ms    p99 ms');
    for (const o of ops)
      line(
        `${o.op.padEnd(15)} ${String(o.count).padStart(6)} ${o.p50.toFixed(2).padStart(10)} ${o.p99.toFixed(2).padStart(9)}`,
      );
    for (const [what, n] of errors) line(`error x${n}: ${what}`);
    line(JSON.stringify(result));
  } finally {
    stopServer();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`soak: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
