// Issue 47, part 1: expressions that used to end the server. Each runs against the built CLI
// (`dist/cli/main.js`; build first) in a child with a 256 MB heap, so a runaway allocation would
// kill that child, not the test runner. The child must answer every ping sent while the expression
// runs within 1 s, answer the expression with a structured error, and stay up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { cli, root, serverEnv, type CallResult } from '../mcp/helpers/peers.js';
import { TEST_AUDIT_KEY_TEXT } from '../store/helpers.js';

const HEAP = '--max-old-space-size=256';
const PING_EVERY_MS = 100;
const RESPONSIVE_MS = 1000;
/**
 * A time budget far past what these tests take, so that only the allocation budget can stop the
 * expressions (with the 2 s default, a slow machine stops some of them on time first).
 */
const BUDGETS = { MODELWORKS_CALC_EVAL_TIMEOUT_MS: '60000' };

const clients: Client[] = [];
const servers: AnnouncedChild[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
const dir = mkdtempSync(join(tmpdir(), 'mw-expression-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs `work` while pinging every PING_EVERY_MS; the slowest ping's time. A ping that does not come
 * back at all (the process died) fails the test.
 */
async function slowestPingDuring<T>(
  ping: () => Promise<unknown>,
  work: Promise<T>,
): Promise<{ result: T; slowestMs: number }> {
  let done = false;
  let slowestMs = 0;
  const pinger = (async () => {
    while (!done) {
      const t0 = Date.now();
      await ping();
      slowestMs = Math.max(slowestMs, Date.now() - t0);
      await new Promise((r) => setTimeout(r, PING_EVERY_MS));
    }
  })();
  try {
    return { result: await work, slowestMs };
  } finally {
    done = true;
    await pinger;
  }
}

async function mcpServer(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HEAP, cli, 'mcp'],
    env: { ...(serverEnv as Record<string, string>), ...BUDGETS },
    cwd: root,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'expression-crash', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('eval_expression over MCP stdio (256 MB heap)', { timeout: 120_000 }, () => {
  it.each([
    ['a 200-million-character $pad', '$length($pad("", 200000000, "y"))'],
    ['a 100-million-character $pad (blocked the loop 7 s)', '$pad("", 1e8, "y")'],
    [
      'string doubling by recursion',
      '($f := function($s,$n){$n=0 ? $s : $f($s & $s, $n-1)}; $length($f("y", 40)))',
    ],
    ['a $join of a million mapped $pads', '$length($join([1..1000000].($pad("", 200, "y"))))'],
  ])('%s: a structured error, pings answered within 1 s, still up', async (_name, expr) => {
    const client = await mcpServer();
    const call = client.callTool(
      { name: 'eval_expression', arguments: { expr } },
      {
        timeout: 100_000,
      },
    ) as Promise<CallResult>;
    const { result, slowestMs } = await slowestPingDuring(() => client.ping(), call);
    expect(result.structuredContent).toMatchObject({ ok: false });
    expect(String(result.structuredContent!.message)).toMatch(/^EVAL_ALLOCATION_BUDGET: /);
    expect(slowestMs).toBeLessThan(RESPONSIVE_MS);
    const t0 = Date.now();
    await client.ping();
    expect(Date.now() - t0).toBeLessThan(RESPONSIVE_MS);
  });
});

const MODEL = {
  id: 'runaway',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0 }, size: {}, double: {} },
  },
  defaultValues: [{ path: '$', expr: '{"n": 1}' }],
  derivations: [
    { path: '$.size', expr: '$length($join([1..n].($pad("", 200, "y"))))' },
    { path: '$.double', expr: 'n * 2' },
  ],
};

async function serve(store: string): Promise<{ url: string; server: AnnouncedChild }> {
  const server = await startAnnounced({
    args: [HEAP, cli, 'serve', '--port', '0', '--store', store],
    env: { ...process.env, ...BUDGETS, MODELWORKS_API_KEY: '', MODELWORKS_AUDIT_KEY: TEST_AUDIT_KEY_TEXT },
    announce: /serving (http:\/\/\S+)/,
    what: 'modelworks serve',
  });
  servers.push(server);
  return { url: server.match[1]!, server };
}

async function health(url: string): Promise<number> {
  const t0 = Date.now();
  const res = await fetch(`${url}/health`);
  expect(res.status).toBe(200);
  return Date.now() - t0;
}

describe(
  'a stored derivation that allocates without bound (modelworks serve, SQLite)',
  { timeout: 120_000 },
  () => {
    it('one mutation trips the budget: the field is null, the server answers; after a restart too', async () => {
      const store = `sqlite:${join(dir, 'models.db')}`;
      const first = await serve(store);
      const created = await fetch(`${first.url}/models`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(MODEL),
      });
      expect(created.status).toBe(201);
      const mutation = fetch(`${first.url}/models/runaway/mutations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ '$.n': 1_000_000 }),
      });
      const { result: mutated, slowestMs } = await slowestPingDuring(() => health(first.url), mutation);
      expect(mutated.status).toBe(200);
      expect(slowestMs).toBeLessThan(RESPONSIVE_MS);
      const state = (await (await fetch(`${first.url}/models/runaway/state`)).json()) as Record<
        string,
        unknown
      >;
      expect(state).toMatchObject({ n: 1_000_000, double: 2_000_000 });
      expect(state.size ?? null).toBeNull();
      const explained = await (await fetch(`${first.url}/models/runaway/explain/size`)).text();
      expect(explained).toMatch(/EVAL_ALLOCATION_BUDGET/);

      // restart on the same store: the model loads, the field is in error again, no crash loop
      expect(await first.server.stop()).not.toBeNull();
      const second = await serve(store);
      expect(await health(second.url)).toBeLessThan(RESPONSIVE_MS);
      const again = await fetch(`${second.url}/models/runaway/state`);
      expect(again.status).toBe(200);
      const reloaded = (await again.json()) as Record<string, unknown>;
      expect(reloaded).toMatchObject({ n: 1_000_000, double: 2_000_000 });
      expect(reloaded.size ?? null).toBeNull();
      expect(await health(second.url)).toBeLessThan(RESPONSIVE_MS);
    });
  },
);
