// The byte bound whatever the column limit (issue 40, point 5): with MODELWORKS_SYNTH_MAX_COLUMNS
// raised to 100 million, one 50-million-column row used to grow the MCP server by ~3 GB over
// ~100 s (the Service ~300 s) and hold its event loop all that time. Now the graph's rows are
// charged against the generation's byte cap before anything is allocated: the request is refused
// with TOO_LARGE at once, while a second client pinging every 20 ms is never kept waiting more than
// 100 ms. Real servers (the built CLI) in child processes with a small heap: the MCP server over
// Streamable HTTP with two sessions, and `synth serve`.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { connectHttp, type Peer } from '../mcp/helpers/peers.js';
import { childEnv, cli, root, startService, type Json, type ServiceChild } from '../synth-mcp/helpers.js';

const MiB = 1024 * 1024;
const WIDE = `dataset.seed = 7\ndataset.root = W\nW = Redimension(N, dimension=50000000)\nN = Normal()\n`;
const SMALL = WIDE.replace('50000000', '3');
/** 4,000 columns of one 100 kB text: a 400 MB row, refused mid-way at the Service's 256 MiB cap. */
const LONG = `<dataset seed="7"><root node="A"/><nodes><Arrange name="A" columns="${'0 '.repeat(4000).trim()}"><input name="C"/></Arrange><Constant name="C" type="string" value="${'x'.repeat(100_000)}"/></nodes></dataset>`;
const RAISED = { MODELWORKS_SYNTH_MAX_COLUMNS: '100000000' };
/** A heap far too small for the old behaviour (50 million column names alone were ~2 GB). */
const SMALL_HEAP = '--max-old-space-size=160';

function peakOf(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/**
 * Pings every 20 ms (each after the last answered) until stopped; resolves with the slowest, in
 * ms, counting a ping still unanswered when stopped with its time so far.
 */
function pinger(ping: () => Promise<unknown>): () => Promise<number> {
  let slowest = 0;
  let started = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      started = performance.now();
      await ping();
      slowest = Math.max(slowest, performance.now() - started);
      started = 0;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    stopped = true;
    const pending = started === 0 ? 0 : performance.now() - started;
    await Promise.race([loop, new Promise((r) => setTimeout(r, 2000))]);
    return Math.max(slowest, pending);
  };
}

/** Runs `call` while `ping` runs every 20 ms; its result, how long it took and the slowest ping. */
async function underPings<T>(
  ping: () => Promise<unknown>,
  call: () => Promise<T>,
): Promise<{ result: T; ms: number; slowestPing: number }> {
  // a few pings first, so the figure is the call's and not the first request's
  for (let i = 0; i < 5; i++) await ping();
  const stop = pinger(ping);
  await new Promise((r) => setTimeout(r, 60));
  const t0 = performance.now();
  const result = await call();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 60));
  return { result, ms, slowestPing: await stop() };
}

describe.skipIf(!existsSync('/proc/self/status'))('a wide row with the column limit raised', () => {
  let mcp: AnnouncedChild;
  let caller: Peer;
  let other: Peer;
  let service: ServiceChild;

  beforeAll(async () => {
    mcp = await startAnnounced({
      args: [SMALL_HEAP, cli, 'mcp', '--http', '--tools', 'synth', '--host', '127.0.0.1', '--port', '0'],
      env: childEnv(RAISED),
      cwd: root,
      announce: /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/,
      what: 'modelworks mcp --http',
    });
    caller = await connectHttp(mcp.match[1]!);
    other = await connectHttp(mcp.match[1]!);
    service = await startService(['--port', '0'], { ...RAISED, NODE_OPTIONS: SMALL_HEAP });
  }, 120_000);
  afterAll(async () => {
    await caller?.close();
    await other?.close();
    await mcp?.stop();
    await service?.stop();
  });

  it('the MCP server refuses it at once with TOO_LARGE; another session keeps its answers', async () => {
    const pid = mcp.child.pid!;
    expect((await caller.call('generate', { modelText: SMALL, count: 10 })).isError).toBeFalsy();
    const before = peakOf(pid);
    const { result, ms, slowestPing } = await underPings(
      () => other.client.ping(),
      () => caller.call('generate', { modelText: WIDE, count: 1 }),
    );
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'TOO_LARGE' });
    expect(String(result.structuredContent!.error)).toContain('MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES');
    expect(ms).toBeLessThan(1000);
    expect(slowestPing).toBeLessThan(100);
    expect(peakOf(pid) - before).toBeLessThan(64 * MiB);
    // and the same server still generates
    expect((await other.call('generate', { modelText: SMALL, count: 10 })).isError).toBeFalsy();
  });

  it('the synth Service refuses it at once, and a row refused mid-way never stalls /health', async () => {
    const post = async (path: string, body: unknown): Promise<{ status: number; body: Json }> => {
      const res = await fetch(service.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const health = () => fetch(`${service.url}/health`).then((r) => r.arrayBuffer());
    const pid = service.child.pid!;
    const warm = await post('/v1/models', { modelText: SMALL });
    expect((await post('/v1/generate', { modelId: warm.body.modelId, count: 10 })).status).toBe(200);
    const before = peakOf(pid);
    const wide = await underPings(health, () => post('/v1/models', { modelText: WIDE }));
    expect(wide.result.status).toBe(413);
    expect(wide.result.body.error.code).toBe('TOO_LARGE');
    expect(wide.result.body.error.message).toContain('MODELWORKS_SYNTH_SERVICE_MAX_BYTES');
    expect(wide.ms).toBeLessThan(1000);
    expect(wide.slowestPing).toBeLessThan(100);

    // the long-row path once within the cap first (12 columns, a 1.2 MB row), so the figure is
    // the refusal's and not the path's first compilation
    const fits = await post('/v1/models', {
      modelText: LONG.replace(/columns="[^"]*"/, `columns="${'0 '.repeat(12).trim()}"`),
    });
    expect((await post('/v1/generate', { modelId: fits.body.modelId, count: 2 })).status).toBe(200);
    const long = await post('/v1/models', { modelText: LONG });
    expect(long.status).toBe(201);
    const refused = await underPings(health, () =>
      post('/v1/generate', { modelId: long.body.modelId, count: 1 }),
    );
    expect(refused.result.status).toBe(413);
    expect(refused.result.body.error.code).toBe('TOO_LARGE');
    expect(refused.slowestPing).toBeLessThan(100);
    // the row's text was cut at the cap: the server grew by about the cap, not the 400 MB row
    expect(peakOf(pid) - before).toBeLessThan(2 * 256 * MiB);
  });
});
