// Peak memory of one hostile synth `generate`: the MCP server (`modelworks mcp --tools synth`,
// embedded mode, driven by the SDK client over stdio) and the synth Service (`modelworks synth
// serve`, over HTTP), each a fresh child per case. For every case the bench prints the child's
// resident set before the call, its peak (VmHWM from /proc, so Linux only) and what the call
// answered. The cases are the shapes that used to grow a server far past its byte cap: one very
// wide row (Redimension with a huge dimension), many wide rows (the warm-up sample alone passed
// the cap), and one row repeating a long text value. A case's figure is the growth of the child's
// peak over its resident set just before the call.
//
// While the call runs, the bench pings the same child every 20 ms: on the MCP side an MCP `ping`
// on the caller's connection (a stdio server has one), on the Service side a separate
// `GET /health`. The slowest ping is how long the call held the child's event loop, which is what
// every other session of that process would wait.
//
// Run: npx tsc -p tsconfig.build.json && node bench/synth-wide-row.mjs
// Knobs: BENCH_CLI (another build's dist/cli/main.js, to measure before/after), BENCH_CASES
// (comma-separated case names), BENCH_SIDES (mcp,service), BENCH_MAX_COLUMNS (passed to the
// children as MODELWORKS_SYNTH_MAX_COLUMNS: the column limit raised so the wide row reaches the
// generation instead of being refused when the model loads).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const MiB = 1024 * 1024;

const normalTo = (attrs) =>
  `<dataset seed="7"><root node="W"/><nodes><Redimension name="W" ${attrs}><input name="N"/></Redimension><Normal name="N"/></nodes></dataset>`;

const CASES = {
  // one row of 50 million doubles (about 1 GB of CSV)
  'wide-row': { modelText: normalTo('dimension="50000000"'), count: 1 },
  // 10,000 columns a row: each row ~200 kB, the 1,000-row warm-up alone ~200 MB
  'wide-rows': { modelText: normalTo('dimension="10000"'), count: 100_000 },
  // one 100 kB text repeated in 4,000 columns: a 400 MB row made of one value (short enough for
  // the runtime to build it as one string)
  'repeated-text': {
    modelText: `<dataset seed="7"><root node="A"/><nodes><Arrange name="A" columns="${'0 '.repeat(4_000).trim()}"><input name="C"/></Arrange><Constant name="C" type="string" value="${'x'.repeat(100_000)}"/></nodes></dataset>`,
    count: 1,
  },
};

const selected = (process.env.BENCH_CASES ?? Object.keys(CASES).join(',')).split(',');
const sides = (process.env.BENCH_SIDES ?? 'mcp,service').split(',');

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

/** Samples the child's peak every 20 ms, so a child that dies mid-call still has a figure. */
function watch(pid) {
  let peak = 0;
  const sample = () => {
    try {
      const { hwm } = memory(pid);
      if (Number.isFinite(hwm)) peak = Math.max(peak, hwm); // a zombie has no memory lines
    } catch {
      // the child has exited; keep the last figure
    }
  };
  const timer = setInterval(sample, 20);
  return () => {
    sample();
    clearInterval(timer);
    return peak;
  };
}

const env = { ...process.env, MODELWORKS_STORE: 'memory' };
for (const k of Object.keys(env)) if (k.startsWith('MODELWORKS_SYNTH_')) delete env[k];
if (process.env.BENCH_MAX_COLUMNS) env.MODELWORKS_SYNTH_MAX_COLUMNS = process.env.BENCH_MAX_COLUMNS;

/**
 * Calls `ping` every 20 ms (each waiting for the one before) until stopped; the slowest answer in
 * milliseconds. A ping still unanswered when stopped counts with its time so far.
 */
function pinger(ping) {
  let slowest = 0;
  let stopped = false;
  let started = 0;
  const loop = (async () => {
    while (!stopped) {
      started = performance.now();
      try {
        await ping();
      } catch {
        // a dead child: the call's own answer says so
      }
      slowest = Math.max(slowest, performance.now() - started);
      started = 0;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    stopped = true;
    const pending = started ? performance.now() - started : 0;
    await Promise.race([loop, new Promise((r) => setTimeout(r, 1000))]);
    return Math.max(slowest, pending);
  };
}

function outcome(structured, isError) {
  if (!isError) return `ok: ${structured.count} row(s)`;
  return `${structured?.code ?? 'error'}: ${String(structured?.error ?? '').slice(0, 120)}`;
}

async function viaMcp(c) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', '--tools', 'synth'],
    cwd: root,
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-wide-row', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  try {
    // warm the code paths the hostile call uses, so the figure is the call's own growth
    await client.callTool({
      name: 'generate',
      arguments: { modelText: normalTo('dimension="2"'), count: 10 },
    });
    const before = memory(pid).rss;
    const peak = watch(pid);
    const pings = pinger(() => client.ping({ timeout: 600_000 }));
    const t0 = performance.now();
    let r;
    try {
      r = await client.callTool(
        { name: 'generate', arguments: { modelText: c.modelText, count: c.count, previewLimit: 1 } },
        { timeout: 600_000 },
      );
    } catch (err) {
      const ms = performance.now() - t0;
      return {
        before,
        peak: peak(),
        ms,
        ping: await pings(),
        answer: `no answer (server died?): ${err.message.slice(0, 80)}`,
      };
    }
    const ms = performance.now() - t0;
    const ping = await pings();
    const alive = await client.callTool({ name: 'list_components', arguments: { name: 'Normal' } }).then(
      () => 'alive',
      () => 'dead',
    );
    return {
      before,
      peak: peak(),
      ms,
      ping,
      answer: `${outcome(r.structuredContent, r.isError)} (${alive})`,
    };
  } finally {
    await client.close().catch(() => {});
  }
}

async function viaService(c) {
  const child = spawn(process.execPath, [cli, 'synth', 'serve', '--host', '127.0.0.1', '--port', '0'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (b) => {
      text += b.toString();
      const m = /listening at (http:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`synth serve exited: ${text}`)));
  });
  const post = async (path, body) => {
    const res = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  try {
    const warm = await post('/v1/models', { modelText: normalTo('dimension="2"') });
    await post('/v1/generate', { modelId: warm.body.modelId, count: 10 });
    const before = memory(child.pid).rss;
    const peak = watch(child.pid);
    const pings = pinger(() => fetch(url + '/health').then((r) => r.arrayBuffer()));
    const t0 = performance.now();
    const reg = await post('/v1/models', { modelText: c.modelText });
    let answer;
    if (reg.status !== 201)
      answer = `${reg.body.error?.code}: ${String(reg.body.error?.message).slice(0, 120)}`;
    else {
      const gen = await post('/v1/generate', {
        modelId: reg.body.modelId,
        count: c.count,
        previewLimit: 1,
      }).catch((err) => ({ status: 0, body: { error: { code: 'no answer', message: err.message } } }));
      answer =
        gen.status === 200
          ? `ok: ${gen.body.count} row(s)`
          : `${gen.body.error?.code}: ${String(gen.body.error?.message).slice(0, 120)}`;
    }
    const ms = performance.now() - t0;
    const ping = await pings();
    const health = await fetch(url + '/health').then(
      (r) => (r.ok ? 'alive' : 'unhealthy'),
      () => 'dead',
    );
    return { before, peak: peak(), ms, ping, answer: `${answer} (${health})` };
  } finally {
    child.kill('SIGTERM');
  }
}

const mib = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`;
console.log(`cli: ${cli}  column limit: ${env.MODELWORKS_SYNTH_MAX_COLUMNS ?? 'default'}`);
for (const name of selected) {
  const c = CASES[name];
  if (!c) throw new Error(`unknown case ${name}`);
  for (const side of sides) {
    const run = side === 'mcp' ? viaMcp : viaService;
    const { before, peak, ms, ping, answer } = await run(c);
    console.log(
      `${name.padEnd(14)} ${side.padEnd(8)} rss before ${mib(before).padStart(9)}  peak ${mib(peak).padStart(9)}  growth ${mib(peak - before).padStart(9)}  ${(ms / 1000).toFixed(2).padStart(7)} s  slowest ping ${ping.toFixed(0).padStart(6)} ms  ${answer}`,
    );
  }
}
