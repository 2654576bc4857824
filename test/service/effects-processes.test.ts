/**
 * Effect runs across real processes (issue 23, acceptance 2 and 3): a child process that runs the
 * effect runner on a shared store is killed with SIGKILL while its request is out; the runs it left
 * are re-driven by the next processes — two at once, on one SQLite file and on one PostgreSQL
 * database — and the receiving server answers exactly one request per dedupe key. Waits poll the
 * store and the receiver with a bound; nothing sleeps.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { openStore } from '../../src/store/open-store.js';

const PG_URL = process.env.MODELWORKS_TEST_POSTGRES_URL;
const AUDIT_KEY = 'effects process tests: a key of at least 32 characters';
const ROOT = join(import.meta.dirname, '../..');

/** The child: a calc service and effect runner on the store; writes the JSON lines it reads from stdin. */
const CHILD = `
import { createInterface } from 'node:readline';
import { CalcService } from './src/service/calc-service.ts';
import { effectSettingsFromEnv, startEffects } from './src/service/effects/index.ts';
import { openStore } from './src/store/open-store.ts';
const calc = new CalcService(await openStore(process.env.STORE));
startEffects(calc, effectSettingsFromEnv(), (m) => process.stderr.write(m + '\\n'));
for await (const line of createInterface({ input: process.stdin })) {
  const { id, mutations } = JSON.parse(line);
  await calc.mutate(id, mutations);
  process.stdout.write('written\\n');
}
`;

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const c of cleanups.splice(0).reverse()) await c();
});

function child(store: string, origin: string): ChildProcess {
  const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: ROOT,
    env: {
      ...process.env,
      STORE: store,
      MODELWORKS_AUDIT_KEY: AUDIT_KEY,
      MODELWORKS_EFFECT_EGRESS_ALLOWLIST: origin,
      MODELWORKS_EFFECT_LEASE_MS: '600',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(c);
  return c;
}

/** Sends one write to a child and resolves once it is committed. */
function write(c: ChildProcess, id: string, mutations: Record<string, unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    c.stdout!.once('data', () => resolve());
    c.once('exit', (code) => reject(new Error(`the child exited (${code}) before writing`)));
    c.stdin!.write(JSON.stringify({ id, mutations }) + '\n');
  });
}

/** A receiver that holds the first request of each key unanswered (the sender dies meanwhile) and answers later ones. */
async function receiver() {
  const requests = new Map<string, number>();
  const answered = new Map<string, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const key = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    const n = (requests.get(key) ?? 0) + 1;
    requests.set(key, n);
    req.resume();
    if (n === 1) return; // held: never answered
    res.on('finish', () => answered.set(key, (answered.get(key) ?? 0) + 1));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ticket: `T-${key}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${port}`, requests, answered };
}

const spec = (origin: string) => ({
  id: 'approval',
  version: '1.0.0',
  schema: { type: 'object' },
  effects: [
    {
      id: 'notify',
      executor: 'server',
      trigger: 'approved = true',
      dedupeKey: 'quoteId',
      statusPath: '$.status',
      requests: `[quotes.{"method": "POST", "url": "${origin}/hook/" & id, "dedupeKey": id, "statusPath": "$.statuses." & id}]`,
      response: { set: {} },
      policy: { timeoutMs: 30000 },
    },
  ],
});

const KEYS = ['q1', 'q2', 'q3', 'q4', 'q5'];

let pgDatabase: string | undefined;
afterAll(async () => {
  if (!PG_URL || !pgDatabase) return;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
  await c.end();
});

async function sqliteStore(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mw-effects-proc-'));
  cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  return Promise.resolve(`sqlite:${join(dir, 'store.db')}`);
}

async function postgresStore(): Promise<string> {
  pgDatabase = `mw_effects_${process.pid}`;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${pgDatabase} WITH (FORCE)`);
  await c.query(`CREATE DATABASE ${pgDatabase}`);
  await c.end();
  const url = new URL(PG_URL!);
  url.pathname = `/${pgDatabase}`;
  return url.toString();
}

describe.each([
  ['SQLite', sqliteStore, true],
  ['PostgreSQL', postgresStore, Boolean(PG_URL)],
])('effect runs on one %s store across processes', (_name, makeStore, enabled) => {
  it.skipIf(!enabled)(
    'a run in flight when its process is killed completes once, re-driven by one of two processes',
    async () => {
      const store = await makeStore();
      const recv = await receiver();
      const calc = new CalcService(
        await openStore(store, { ...process.env, MODELWORKS_AUDIT_KEY: AUDIT_KEY }),
      );
      cleanups.push(() => calc.close());
      await calc.createModel(spec(recv.origin));

      const first = child(store, recv.origin);
      await write(first, 'approval', { '$.quotes': KEYS.map((id) => ({ id })), '$.approved': true });
      // every request is out (and held) before the process dies
      await expect.poll(() => KEYS.every((k) => recv.requests.get(k) === 1), { timeout: 20_000 }).toBe(true);
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));

      // two processes start together; between them each left run is taken up exactly once
      child(store, recv.origin);
      child(store, recv.origin);
      const phases = async () => {
        const s = (await calc.getState('approval')) as { statuses?: Record<string, { phase: string }> };
        return KEYS.map((k) => s.statuses?.[k]?.phase);
      };
      await expect.poll(phases, { timeout: 30_000, interval: 100 }).toEqual(KEYS.map(() => 'applied'));
      expect(Object.fromEntries(recv.answered)).toEqual(Object.fromEntries(KEYS.map((k) => [k, 1])));
      expect(Object.fromEntries(recv.requests)).toEqual(Object.fromEntries(KEYS.map((k) => [k, 2])));
      const applied = (await calc.getAudit('approval')).flatMap((r) =>
        Object.entries(r.mutations).filter(([, v]) => (v as { phase?: string } | null)?.phase === 'applied'),
      );
      expect(applied.map(([path]) => path).sort()).toEqual(KEYS.map((k) => `$.statuses.${k}`).sort());
    },
    90_000,
  );
});
