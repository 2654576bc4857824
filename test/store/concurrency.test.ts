/**
 * Several writers on one store (issue 4, acceptance 5): four clients, each incrementing its own
 * counter 50 times (200 cycles), spread over two CalcServices — first two in this process on two
 * store connections, then two separate processes. A lost update at the store (a cycle committed on
 * top of a state it did not start from) would show in the derived total; the audit sequence must
 * run 0..199 without gaps or forks and the chain must verify.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { verifyChain } from '../../src/service/audit.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  TEST_AUDIT_KEY_TEXT,
  tempDbPath,
} from './helpers.js';

const INCREMENTS = 50;
const WORKER = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

/** Counts compare-and-set refusals, to show the race really happened. */
function counting(store: Store, counter: { lost: number }): Store {
  const commit = store.commitCycle.bind(store);
  store.commitCycle = async (...args) => {
    const ok = await commit(...args);
    if (!ok) counter.lost++;
    return ok;
  };
  return store;
}

async function client(service: CalcService, field: string): Promise<void> {
  for (let i = 1; i <= INCREMENTS; i++) {
    for (let retries = 0; ; retries++) {
      try {
        await service.mutate('shared', { [`$.counters.${field}`]: i });
        break;
      } catch (err) {
        // BUSY: every attempt lost its compare-and-set, nothing was written; a client retries
        if (!(err instanceof CalcError && err.code === 'BUSY') || retries > 100) throw err;
      }
    }
  }
}

async function checkFinal(open: () => Promise<Store>): Promise<void> {
  const service = new CalcService(await open());
  try {
    expect(await service.getState('shared')).toEqual({
      counters: { a: INCREMENTS, b: INCREMENTS, c: INCREMENTS, d: INCREMENTS },
      total: 4 * INCREMENTS,
    });
    const trail = await service.store.auditRecords('shared');
    expect(trail.map((r) => r.sequence)).toEqual([...Array(4 * INCREMENTS).keys()]);
    expect(verifyChain(trail)).toMatchObject({ valid: true, recordsChecked: 4 * INCREMENTS });
    expect(await service.store.head('shared')).toMatchObject({ nextSequence: 4 * INCREMENTS });
    // each client's writes appear in its own order: 1, 2, … 50
    for (const f of ['a', 'b', 'c', 'd']) {
      const key = `$.counters.${f}`;
      const mine = trail.filter((r) => key in r.mutations).map((r) => r.mutations[key]);
      expect(mine).toEqual([...Array(INCREMENTS).keys()].map((i) => i + 1));
    }
  } finally {
    await service.close();
  }
}

async function inProcess(open: () => Promise<Store>): Promise<number> {
  const counter = { lost: 0 };
  const one = new CalcService(counting(await open(), counter));
  const two = new CalcService(counting(await open(), counter));
  await one.createModel(counterSpec('shared'));
  await Promise.all([client(one, 'a'), client(one, 'b'), client(two, 'c'), client(two, 'd')]);
  await one.close();
  await two.close();
  await checkFinal(open);
  return counter.lost;
}

function runWorker(config: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}: ${err}`)),
    );
  });
}

async function twoProcesses(open: () => Promise<Store>, store: unknown): Promise<void> {
  const setup = new CalcService(await open());
  await setup.createModel(counterSpec('shared'));
  await setup.close();
  const base = { store, modelId: 'shared', mode: 'count', increments: INCREMENTS };
  const outs = await Promise.all([
    runWorker({ ...base, fields: ['a', 'b'] }),
    runWorker({ ...base, fields: ['c', 'd'] }),
  ]);
  for (const o of outs) expect(o).toContain('"done":true');
  console.log(
    `[${(store as { kind: string }).kind} two processes] workers: ${outs.map((o) => o.trim()).join(' ')}`,
  );
  await checkFinal(open);
}

describe('four clients, two services, one store', () => {
  it('sqlite, two services in one process: exact total, no gaps', async () => {
    const path = tempDbPath();
    const lost = await inProcess(() => Promise.resolve(SqliteStore.open(path)));
    console.log(`[sqlite in-process] compare-and-set refusals retried: ${lost}`);
  });

  it('sqlite, two processes: exact total, no gaps', async () => {
    const path = tempDbPath();
    await twoProcesses(() => Promise.resolve(SqliteStore.open(path)), { kind: 'sqlite', path });
  }, 60_000);

  describe.skipIf(!POSTGRES_URL)(
    `postgres${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    () => {
      it('two services in one process: exact total, no gaps', async () => {
        const schema = freshSchema();
        const lost = await inProcess(() => openPostgres(schema));
        console.log(`[postgres in-process] compare-and-set refusals retried: ${lost}`);
      });

      it('two processes: exact total, no gaps', async () => {
        const schema = freshSchema();
        await twoProcesses(() => openPostgres(schema), {
          kind: 'postgres',
          url: POSTGRES_URL,
          schema,
          auditKey: TEST_AUDIT_KEY_TEXT,
        });
      }, 60_000);
    },
  );
});
