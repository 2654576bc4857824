// Links across processes (issue 41, acceptance 1): two `modelworks serve` processes share one store
// (SQLite file; PostgreSQL when MODELWORKS_TEST_POSTGRES_URL is set) and a leaf's write-link into
// `agg` runs exactly once per write, whichever process takes it. Then a third process is killed
// with SIGKILL mid-link — right after the target committed the link's cycle, before the source
// heard back (its observer kills it there) — and the serve processes that re-drive the run do not
// write the target again: one `link` record per run in agg's trail, the fold-back applied, the
// chains intact. Then branching, quarantine, approval and the graph on that store, each step made
// in one process and read in the other. Needs a build (dist/cli/main.js). Waits poll with a bound; nothing sleeps.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CalcClient } from '../../src/remote/calc-client.js';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { cli } from '../mcp/helpers/peers.js';
import {
  freshPostgresUrl,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  TEST_AUDIT_KEY_TEXT,
} from '../store/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = join(import.meta.dirname, '../..');
const LEASE_MS = '600';
const ENV = {
  ...process.env,
  MODELWORKS_API_KEY: '',
  MODELWORKS_AUDIT_KEY: TEST_AUDIT_KEY_TEXT,
  MODELWORKS_EFFECT_LEASE_MS: LEASE_MS,
};

const AGG = {
  id: 'agg',
  version: '1.0.0',
  schema: { type: 'object', properties: { children: { type: 'object' } } },
  derivations: [{ path: '$.total', expr: '$sum(children.*.subtotal)' }],
};
const LEAF = {
  id: 'leaf',
  version: '1.0.0',
  schema: { type: 'object', properties: { subtotal: { type: 'number' }, io: { type: 'object' } } },
  effects: [
    {
      id: 'push',
      executor: 'server',
      trigger: 'subtotal > 0',
      dedupeKey: 'subtotal',
      statusPath: '$.io.push',
      target: { ref: 'agg', path: '$.children.leaf.subtotal' },
      body: 'subtotal',
      response: { set: { '$.io.ackTotal': '$response.total' } },
    },
  ],
};

/** A process that writes `subtotal` and is killed by its own observer once agg commits a cycle. */
const CRASHER = `
import { CalcService } from './src/service/calc-service.ts';
import { effectSettingsFromEnv, startEffects } from './src/service/effects/index.ts';
import { openStore } from './src/store/open-store.ts';
const observer = {
  cycle(id, outcome) { if (id === 'agg' && outcome === 'committed') process.kill(process.pid, 'SIGKILL'); },
  storeCommit() {},
  retry() {},
};
const calc = new CalcService(await openStore(process.env.STORE), { observer });
startEffects(calc, effectSettingsFromEnv(), (m) => process.stderr.write(m + '\\n'));
await calc.mutate('leaf', { '$.subtotal': Number(process.env.SUBTOTAL) });
`;

const dir = mkdtempSync(join(tmpdir(), 'mw-composition-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function serve(store: string): Promise<AnnouncedChild> {
  return startAnnounced({
    args: [cli, 'serve', '--port', '0', '--store', store],
    env: ENV,
    announce: /serving (http:\/\/\S+)/,
    what: 'modelworks serve',
  });
}

/** Runs the crashing writer to its death; resolves with the signal that ended it. */
function crash(store: string, subtotal: number): Promise<NodeJS.Signals | null> {
  const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CRASHER], {
    cwd: ROOT,
    env: { ...ENV, STORE: store, SUBTOTAL: String(subtotal) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(c);
  return new Promise((resolve) => c.once('exit', (_code, signal) => resolve(signal)));
}

/** agg's link records, oldest first. */
async function linkRecords(client: CalcClient): Promise<Json[]> {
  const trail = (await client.getAudit('agg', { limit: 10_000 })) as Json[];
  return trail.filter((r) => r.source === 'link').reverse();
}

async function run(store: string): Promise<void> {
  const servers = await Promise.all([serve(store), serve(store)]);
  const [a, b] = servers.map((s) => new CalcClient({ url: s.match[1]! })) as [CalcClient, CalcClient];
  try {
    await a.createModel(AGG);
    await b.createModel(LEAF);
    const leaf = async (client: CalcClient) => (await client.readState('leaf')).state as Json;

    // writes through either process: each link runs once, in the process that committed the write
    const subtotals = [100, 250, 175, 300];
    for (const [i, subtotal] of subtotals.entries()) {
      const client = i % 2 === 0 ? a : b;
      await client.mutate('leaf', { '$.subtotal': subtotal });
      await expect
        .poll(async () => (await leaf(client)).io?.push, { timeout: 20_000, interval: 50 })
        .toMatchObject({ phase: 'applied', key: subtotal });
      expect((await leaf(client)).io.ackTotal).toBe(subtotal);
    }
    let records = await linkRecords(a);
    expect(records.map((r) => r.mutations['$.children.leaf.subtotal'])).toEqual(subtotals);
    for (const r of records) expect(r.origin).toMatchObject({ model: 'leaf', link: 'push' });
    expect(new Set(records.map((r) => r.origin.run)).size).toBe(subtotals.length);

    // killed mid-link: the target committed, the source never heard; a serve process re-drives
    expect(await crash(store, 640)).toBe('SIGKILL');
    await expect
      .poll(async () => (await leaf(a)).io?.push, { timeout: 30_000, interval: 100 })
      .toMatchObject({ phase: 'applied', key: 640 });
    expect((await leaf(b)).io.ackTotal).toBe(640);
    records = await linkRecords(b);
    expect(records.map((r) => r.mutations['$.children.leaf.subtotal'])).toEqual([...subtotals, 640]);
    expect(((await b.readState('agg')).state as Json).total).toBe(640);
    for (const id of ['agg', 'leaf'])
      expect(await a.verifyAudit(id)).toMatchObject({ valid: true, firstBrokenSequence: null });

    // branching, quarantine, approval and the graph on the same store, across the two processes:
    // another owner's branch of the leaf, made in one process, approved in the other
    await a.createModel({ ...LEAF, id: 'acme/leaf' });
    await b.createModel({
      id: 'globex/leaf',
      version: '2.0.0',
      schema: {},
      template: { ref: 'acme/leaf@^1.0.0' },
    });
    expect(await a.getLineage('globex/leaf')).toMatchObject([
      { ref: 'acme/leaf', version: '1.0.0', repo: 'local' },
    ]);
    expect(await a.pendingEffects('globex/leaf')).toMatchObject([{ effectId: 'push', fromOwner: 'acme' }]);
    await b.approveEffect('globex/leaf', 'push');
    expect(await a.pendingEffects('globex/leaf')).toEqual([]);
    const [approval] = (await a.getAudit('globex/leaf', { limit: 1 })) as Json[];
    expect(approval).toMatchObject({ source: 'approval', origin: { effectId: 'push' } });
    expect(await b.verifyAudit('globex/leaf')).toMatchObject({ valid: true });
    const graph = await a.compositionGraph();
    expect(graph.lineageEdges).toEqual([{ branch: 'globex/leaf', template: 'acme/leaf' }]);
    expect(graph.linkEdges).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          from: 'leaf',
          to: 'agg',
          effectId: 'push',
          kind: 'write',
          last: expect.objectContaining({ phase: 'applied' }),
        }),
        expect.objectContaining({ from: 'globex/leaf', to: 'agg', effectId: 'push', last: null }),
      ]),
    );
  } finally {
    await Promise.all([a.close(), b.close()]);
    await Promise.all(servers.map((s) => s.stop()));
  }
}

describe('composition across processes sharing one store', () => {
  it('SQLite: a link runs once per write and once when its process is killed mid-link; branch, approve, graph', async () => {
    await run(`sqlite:${join(dir, 'composition.db')}`);
  }, 120_000);

  it.skipIf(!POSTGRES_URL)(
    `PostgreSQL: the same${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const url = await freshPostgresUrl();
      await run(url);
    },
    120_000,
  );
});
