// Benchmark: committed cycles per second through CalcService.mutate, per store backend, against
// the floor of each durable backend.
//
// One model (four counters and a derived total); each op is one mutate() that commits its new
// state, its hash-chained audit record and the model's keyed audit checkpoint. Backends: memory,
// sqlite on a temp file (WAL; synchronous=FULL, the default, and =NORMAL) and postgres
// (MODELWORKS_BENCH_POSTGRES_URL, else MODELWORKS_TEST_POSTGRES_URL; skipped with the reason when
// unset or unreachable).
//
// The floor of a durable backend is a bare driver loop (better-sqlite3, pg) that writes the same
// bytes the store wrote for its newest cycle (state text, record text, history row, hashes,
// checkpoint text, read back from the store after the warm-up; the state's counter changed each
// cycle, as the store's does, see `stateTexts`) in the same transaction shape: one compare-and-set
// UPDATE of the model row and one INSERT of the audit row, in one BEGIN IMMEDIATE transaction
// (SQLite, same journal mode and synchronous setting, a file in the same folder) or in one
// statement (PostgreSQL, the same server), with statements prepared once. It computes nothing:
// no cycle, no serialisation, no hash, no MAC. The ratio to the floor is what the store and the
// engine's cycle cost on top of the write itself.
//
// After a warm-up, ROUNDS rounds run every backend once each, in alternating order, so a store and
// its floor run back to back and JIT warm-up and machine noise fall on all alike (the disk's sync
// time drifts a lot on a shared machine); each round is OPS sequential mutations. We report each
// backend's best round (cycles/s) and, against the floor, the median of the per-round ratios.
// The whole audit seal of every model is verified at the end.
//
// A second part (BENCH_MODELS models, default 8, one sequential writer each, all at once) shows
// what group commit does for concurrent cycles on different models; its floor is the same bare
// loop writing those cycles one transaction each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { CalcService } from '../dist/service/calc-service.js';
import { AuditKey } from '../dist/store/audit-key.js';
import { MemoryStore } from '../dist/store/memory-store.js';
import { PostgresStore } from '../dist/store/postgres-store.js';
import { SqliteStore } from '../dist/store/sqlite-store.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const OPS = Number(process.env.BENCH_OPS ?? 100);
const MODELS = Number(process.env.BENCH_MODELS ?? 8);
const WARMUP = 200;
const TARGET = 0.7;
const PG_URL = process.env.MODELWORKS_BENCH_POSTGRES_URL ?? process.env.MODELWORKS_TEST_POSTGRES_URL;
const PG_SCHEMA = `bench_${process.pid}`;
const PG_FLOOR_SCHEMA = `bench_floor_${process.pid}`;

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
const pgAuditKey = AuditKey.ephemeral();
/** { name, run(ops) → cycles/s, best, check?(), close?() } or { name, skipped } */
const backends = [];
const cleanups = [];

function rate(ops, t0) {
  return ops / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function serviceBackend(name, openStore, ids = ['bench']) {
  const service = new CalcService(await openStore());
  cleanups.push(() => service.close());
  for (const id of ids) await service.createModel({ ...SPEC, id });
  const v = new Map(ids.map((id) => [id, 0]));
  const writer = async (id, ops) => {
    for (let i = 0; i < ops; i++) {
      const next = v.get(id) + 1;
      v.set(id, next);
      await service.mutate(id, { '$.counters.a': next });
    }
  };
  return {
    name,
    service,
    best: 0,
    async run(ops) {
      const t0 = process.hrtime.bigint();
      await Promise.all(ids.map((id) => writer(id, ops)));
      return rate(ops * ids.length, t0);
    },
    async check() {
      for (const id of ids) {
        const check = await service.verifyAudit(id);
        if (!check.valid) throw new Error(`${name}: audit seal of ${id} broken: ${check.detail}`);
      }
    },
  };
}

/** The bytes a SQLite store wrote for its newest cycle of `id`. */
function sqliteBytes(file, id = 'bench') {
  const db = new Database(file, { readonly: true });
  try {
    const model = db.prepare('SELECT state, audit_checkpoint FROM models WHERE id = ?').get(id);
    const audit = db
      .prepare(
        'SELECT record, prev_hash, hash, history_row FROM audit WHERE model_id = ? ORDER BY sequence DESC LIMIT 1',
      )
      .get(id);
    return { state: model.state, checkpoint: model.audit_checkpoint, ...audit };
  } finally {
    db.close();
  }
}

/**
 * The state texts the floor writes in turn: the store's own, with the written counter changed
 * each cycle as the store's is, so each cycle's text differs from the last, as the store's does
 * (writing one text over and over could flatter the floor).
 */
function stateTexts(state) {
  const parsed = JSON.parse(state);
  const a = parsed.base.counters.a;
  return Array.from({ length: 50 }, (_, k) =>
    JSON.stringify({ ...parsed, base: { ...parsed.base, counters: { ...parsed.base.counters, a: a + k } } }),
  );
}

/** A bare better-sqlite3 loop writing `bytes` as one cycle per transaction. */
async function sqliteFloor(name, file, synchronous, bytes, cycles = 1) {
  // the same schema, made by the store itself; then the store is gone and the driver writes alone
  const setup = new CalcService(SqliteStore.open(file, { synchronous }));
  await setup.createModel(SPEC);
  await setup.close();
  const db = new Database(file);
  cleanups.push(() => db.close());
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  const update = db.prepare(
    `UPDATE models SET state = ?, revision = revision + 1, next_sequence = next_sequence + 1, last_hash = ?,
       audit_checkpoint = ? WHERE id = ? AND revision = ?`,
  );
  const insert = db.prepare(
    'INSERT INTO audit (model_id, sequence, record, prev_hash, hash, history_row) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const states = stateTexts(bytes.state);
  let revision = 0;
  const write = db.transaction(() => {
    const state = states[revision % states.length];
    if (update.run(state, bytes.hash, bytes.checkpoint, 'bench', revision).changes !== 1)
      throw new Error('floor: compare-and-set missed');
    insert.run('bench', revision, bytes.record, bytes.prev_hash, bytes.hash, bytes.history_row);
    revision++;
  });
  return {
    name,
    best: 0,
    run(ops) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < ops * cycles; i++) write.immediate();
      return Promise.resolve(rate(ops * cycles, t0));
    },
  };
}

/** The bytes a PostgreSQL store wrote for its newest cycle of `id`. */
async function postgresBytes(client, id = 'bench') {
  const model = (
    await client.query(`SELECT state, audit_checkpoint FROM ${PG_SCHEMA}.models WHERE id = $1`, [id])
  ).rows[0];
  const audit = (
    await client.query(
      `SELECT record, prev_hash, hash, history_row FROM ${PG_SCHEMA}.audit WHERE model_id = $1 ORDER BY sequence DESC LIMIT 1`,
      [id],
    )
  ).rows[0];
  return { state: model.state, checkpoint: model.audit_checkpoint, ...audit };
}

/** A bare pg loop: the compare-and-set UPDATE and the audit INSERT as one prepared statement. */
async function postgresFloor(bytes) {
  const setup = new CalcService(
    await PostgresStore.open(PG_URL, { schema: PG_FLOOR_SCHEMA, auditKey: pgAuditKey }),
  );
  await setup.createModel(SPEC);
  await setup.close();
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${PG_FLOOR_SCHEMA}` });
  await client.connect();
  cleanups.push(() => client.end());
  const states = stateTexts(bytes.state);
  let revision = 0;
  const text = `WITH moved AS (
      UPDATE models SET state = $1, revision = revision + 1, next_sequence = next_sequence + 1,
        last_hash = $2, audit_checkpoint = $3
      WHERE id = $4 AND revision = $5 RETURNING id
    )
    INSERT INTO audit (model_id, sequence, record, prev_hash, hash, history_row)
    SELECT id, $5, $6, $7, $2, $8 FROM moved`;
  return {
    name: 'postgres floor',
    best: 0,
    async run(ops) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < ops; i++) {
        const r = await client.query({
          name: 'floor',
          text,
          values: [
            states[revision % states.length],
            bytes.hash,
            bytes.checkpoint,
            'bench',
            revision,
            bytes.record,
            bytes.prev_hash,
            bytes.history_row,
          ],
        });
        if (r.rowCount !== 1) throw new Error('floor: compare-and-set missed');
        revision++;
      }
      return rate(ops, t0);
    },
  };
}

async function attempt(name, make) {
  try {
    const b = await make();
    backends.push(b);
    return b;
  } catch (err) {
    backends.push({ name, skipped: `skipped: ${err.message}` });
    return undefined;
  }
}

/** Runs every backend once per round, in alternating order; keeps each round's rate. */
async function rounds(list, ops) {
  for (const b of list) await b.run(WARMUP);
  for (const b of list) b.rates = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const b of r % 2 === 0 ? list : [...list].reverse()) b.rates.push(await b.run(ops));
  }
  for (const b of list) b.best = Math.max(...b.rates);
}

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `b` against `floor`: the median of their per-round ratios (each pair ran back to back). */
function pairedRatio(b, floor) {
  return median(b.rates.map((rate, r) => rate / floor.rates[r]));
}

function line(name, value, note = '') {
  console.log(`  ${name.padEnd(34)} ${value}${note}`);
}

try {
  // ---------------------------------------------------------------- one writer, one model
  const memory = await attempt('memory', () => serviceBackend('memory', () => new MemoryStore()));
  const full = await attempt('sqlite (FULL)', () =>
    serviceBackend('sqlite (FULL)', () => SqliteStore.open(join(dir, 'full.db'))),
  );
  const normal = await attempt('sqlite (synchronous=NORMAL)', () =>
    serviceBackend('sqlite (synchronous=NORMAL)', () =>
      SqliteStore.open(join(dir, 'normal.db'), { synchronous: 'normal' }),
    ),
  );
  let postgres;
  if (PG_URL) {
    postgres = await attempt('postgres', () =>
      serviceBackend('postgres', () =>
        PostgresStore.open(PG_URL, { schema: PG_SCHEMA, auditKey: pgAuditKey }),
      ),
    );
  } else {
    backends.push({
      name: 'postgres',
      skipped: 'skipped: set MODELWORKS_BENCH_POSTGRES_URL or MODELWORKS_TEST_POSTGRES_URL',
    });
  }
  // the stores' own bytes (past the 50-cycle history ring, so the state text is at full size)
  const services = [memory, full, normal, postgres].filter(Boolean);
  for (const b of services) await b.run(WARMUP);
  const floors = new Map();
  if (full)
    floors.set(
      full,
      await sqliteFloor(
        'sqlite floor (FULL)',
        join(dir, 'floor-full.db'),
        'full',
        sqliteBytes(join(dir, 'full.db')),
      ),
    );
  if (normal)
    floors.set(
      normal,
      await sqliteFloor(
        'sqlite floor (NORMAL)',
        join(dir, 'floor-normal.db'),
        'normal',
        sqliteBytes(join(dir, 'normal.db')),
      ),
    );
  if (postgres) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    const bytes = await postgresBytes(c).finally(() => c.end());
    floors.set(postgres, await postgresFloor(bytes));
  }
  const live = [...services, ...floors.values()];
  await rounds(live, OPS);
  for (const b of services) await b.check();

  const bytes = full && sqliteBytes(join(dir, 'full.db'));
  console.log(
    `store bench: committed cycles/s through CalcService.mutate, one writer, best of ${ROUNDS} rounds × ${OPS} (after ${WARMUP} warm-up); × floor: median of the per-round ratios`,
  );
  if (bytes)
    console.log(
      `  bytes per cycle: state ${bytes.state.length}, record ${bytes.record.length}, history row ${bytes.history_row?.length ?? 0}, checkpoint ${bytes.checkpoint.length}, hashes 2 × 64`,
    );
  const mem = memory?.best;
  for (const b of backends) {
    if (b.skipped) {
      line(b.name, b.skipped);
      continue;
    }
    if ([...floors.values()].includes(b)) continue;
    const floor = floors.get(b);
    let note = mem && b !== memory ? `   ${(b.best / mem).toFixed(3)} × memory` : '';
    if (floor) {
      const ratio = pairedRatio(b, floor);
      const target = b === full ? `  (target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'})` : '';
      note += `   ${ratio.toFixed(3)} × floor (${floor.best.toFixed(0)}/s)${target}`;
    }
    line(b.name, `${b.best.toFixed(0).padStart(7)} cycles/s`, note);
  }

  // ---------------------------------------------------------------- several models at once
  if (MODELS > 1) {
    const ids = Array.from({ length: MODELS }, (_, i) => `bench${i}`);
    const many = await serviceBackend(
      `sqlite (FULL), ${MODELS} models`,
      () => SqliteStore.open(join(dir, 'many.db')),
      ids,
    );
    await many.run(WARMUP / MODELS);
    const floor = await sqliteFloor(
      'sqlite floor (FULL), 1 cycle per transaction',
      join(dir, 'floor-many.db'),
      'full',
      sqliteBytes(join(dir, 'many.db'), ids[0]),
      MODELS,
    );
    const list = [many, floor];
    const perModel = Math.max(1, Math.round(OPS / MODELS));
    await rounds(list, perModel);
    await many.check();
    console.log(
      `\n${MODELS} models, one sequential writer each, all at once (group commit): best of ${ROUNDS} rounds × ${perModel * MODELS}`,
    );
    line(
      many.name,
      `${many.best.toFixed(0).padStart(7)} cycles/s`,
      `   ${pairedRatio(many, floor).toFixed(3)} × ${floor.name} (${floor.best.toFixed(0)}/s)`,
    );
  }
} finally {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
  if (PG_URL) {
    try {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
      await c.query(`DROP SCHEMA IF EXISTS ${PG_FLOOR_SCHEMA} CASCADE`);
      await c.end();
    } catch {
      // unreachable: nothing was made there
    }
  }
}
