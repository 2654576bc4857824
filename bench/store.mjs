// Benchmark: committed cycles per second through CalcService.mutate, per store backend.
//
// One model (four counters and a derived total); each op is one mutate() that commits its new
// state and its hash-chained audit record. Backends: memory (the baseline), sqlite on a temp file
// (WAL; synchronous=FULL, the default, and =NORMAL for comparison) and postgres
// (MODELWORKS_BENCH_POSTGRES_URL, else MODELWORKS_TEST_POSTGRES_URL; skipped with the reason when
// unset or unreachable). After a warm-up, rounds alternate between backends (so JIT warm-up and
// machine noise fall on all alike); each round is OPS sequential mutations; we report each
// backend's best round and its ratio to memory. Each cycle also hashes its state and renews the
// model's keyed audit checkpoint; the whole audit seal is verified at the end. The SQLite files
// get their audit key file in the run's temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CalcService } from '../dist/service/calc-service.js';
import { AuditKey } from '../dist/store/audit-key.js';
import { MemoryStore } from '../dist/store/memory-store.js';
import { PostgresStore } from '../dist/store/postgres-store.js';
import { SqliteStore } from '../dist/store/sqlite-store.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const OPS = Number(process.env.BENCH_OPS ?? 300);
const WARMUP = 200;
const PG_URL = process.env.MODELWORKS_BENCH_POSTGRES_URL ?? process.env.MODELWORKS_TEST_POSTGRES_URL;
const PG_SCHEMA = `bench_${process.pid}`;

const SPEC = {
  id: 'bench',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      counters: {
        type: 'object',
        properties: Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, { type: 'integer', default: 0 }])),
      },
      total: { type: 'integer', readOnly: true },
    },
  },
  derivations: [{ path: '$.total', expr: 'counters.a + counters.b + counters.c + counters.d' }],
};

const dir = mkdtempSync(join(tmpdir(), 'mw-bench-store-'));
/** name → { service, v, best } or { skipped } */
const backends = [];
async function add(name, openStore) {
  try {
    const service = new CalcService(await openStore());
    await service.createModel(SPEC);
    backends.push({ name, service, v: 0, best: 0 });
  } catch (err) {
    backends.push({ name, skipped: `skipped: ${err.message}` });
  }
}

async function round(b, ops) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await b.service.mutate('bench', { '$.counters.a': ++b.v });
  return ops / (Number(process.hrtime.bigint() - t0) / 1e9);
}

try {
  await add('memory', () => new MemoryStore());
  await add('sqlite', () => SqliteStore.open(join(dir, 'full.db')));
  await add('sqlite (synchronous=NORMAL)', () =>
    SqliteStore.open(join(dir, 'normal.db'), { synchronous: 'normal' }),
  );
  // a key for this run: the schema is dropped at the end (the default would be a file in $HOME)
  if (PG_URL)
    await add('postgres', () =>
      PostgresStore.open(PG_URL, { schema: PG_SCHEMA, auditKey: AuditKey.ephemeral() }),
    );
  else
    backends.push({
      name: 'postgres',
      skipped: 'skipped: set MODELWORKS_BENCH_POSTGRES_URL or MODELWORKS_TEST_POSTGRES_URL',
    });

  const live = backends.filter((b) => b.service);
  for (const b of live) await round(b, WARMUP);
  for (let r = 0; r < ROUNDS; r++) for (const b of live) b.best = Math.max(b.best, await round(b, OPS));
  for (const b of live) {
    const check = await b.service.verifyAudit('bench');
    if (!check.valid) throw new Error(`${b.name}: audit chain broken: ${check.detail}`);
  }

  const memory = backends[0].best;
  console.log(
    `store bench: committed cycles/s through CalcService.mutate, best of ${ROUNDS} rounds × ${OPS} (after ${WARMUP} warm-up)`,
  );
  for (const b of backends) {
    if (b.skipped) console.log(`  ${b.name.padEnd(28)} ${b.skipped}`);
    else
      console.log(
        `  ${b.name.padEnd(28)} ${b.best.toFixed(0).padStart(7)} cycles/s   ratio to memory ${(b.best / memory).toFixed(3)}`,
      );
  }
} finally {
  for (const b of backends) await b.service?.close();
  rmSync(dir, { recursive: true, force: true });
  if (PG_URL && backends.some((b) => b.name === 'postgres' && b.service)) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
    await c.end();
  }
}
