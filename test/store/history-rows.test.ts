/**
 * History rows: a durable store keeps the history ring (`get_state` with `at`) as a row per cycle
 * beside its audit record. A store written when states carried the whole ring is upgraded by
 * schema step 3, which moves each ring into the rows of the cycles it describes: after the upgrade,
 * and after further writes and restarts, every point in time answers as before, and the audit seal
 * still holds.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { historyFromRows } from '../../src/calc/index.js';
import { recordHash } from '../../src/service/audit.js';
import { CalcService } from '../../src/service/calc-service.js';
import { stateHashOf } from '../../src/store/audit-chain.js';
import { makeCheckpoint } from '../../src/store/audit-checkpoint.js';
import { AuditKey, defaultAuditKeyFile } from '../../src/store/audit-key.js';
import { auditContent, auditFromRow } from '../../src/store/row-codec.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  TEST_AUDIT_KEY,
  tempDbPath,
  withPg,
} from './helpers.js';

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

interface Backend {
  open(): Promise<Store>;
  query: Query;
  key: AuditKey;
  /** Marks schema step 3 as not yet run. */
  forgetStep3(): Promise<void>;
}

function sqliteBackend(): Backend {
  const path = tempDbPath();
  const query: Query = (sql, params) => {
    const db = new Database(path);
    try {
      const stmt = db.prepare(sql.replace(/\$\d+/g, '?'));
      if (stmt.reader) return Promise.resolve(stmt.all(...params) as Record<string, unknown>[]);
      stmt.run(...params);
      return Promise.resolve([]);
    } finally {
      db.close();
    }
  };
  return {
    open: () => Promise.resolve(SqliteStore.open(path)),
    query,
    get key() {
      return AuditKey.fromFile(defaultAuditKeyFile());
    },
    forgetStep3: () => query('PRAGMA user_version = 2', []).then(() => undefined),
  };
}

function postgresBackend(): Backend {
  const schema = freshSchema();
  const query: Query = (sql, params) =>
    withPg(schema, async (c) => (await c.query(sql, params)).rows as Record<string, unknown>[]);
  return {
    open: () => openPostgres(schema),
    query,
    key: TEST_AUDIT_KEY,
    forgetStep3: () => query('DELETE FROM schema_migrations WHERE version = 3', []).then(() => undefined),
  };
}

async function withService<T>(b: Backend, fn: (s: CalcService) => Promise<T>): Promise<T> {
  const service = new CalcService(await b.open());
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

/** Every point in time the model answers, with its answer. */
async function timeline(s: CalcService, id: string): Promise<[string, unknown][]> {
  const at = await s.getHistory(id);
  return Promise.all(at.map(async (t) => [t, await s.getState(id, { at: t })] as [string, unknown]));
}

/** Turns the model into what the code before history rows wrote: the ring inside the state. */
async function asBeforeHistoryRows(b: Backend, id: string): Promise<void> {
  const rows = await b.query('SELECT history_row FROM audit WHERE model_id = $1 ORDER BY sequence', [id]);
  const ring = historyFromRows(rows.map((r) => r.history_row as string | null));
  const model = (
    await b.query('SELECT state, next_sequence, last_hash, audit_checkpoint FROM models WHERE id = $1', [id])
  )[0]!;
  const legacy = JSON.stringify({ ...JSON.parse(model.state as string), history: ring });
  const stateHash = stateHashOf(legacy);
  // the newest record sealed that text, ring included, and the checkpoint vouches for it
  const sequence = Number(model.next_sequence) - 1;
  const row = (
    await b.query('SELECT record, prev_hash, hash FROM audit WHERE model_id = $1 AND sequence = $2', [
      id,
      sequence,
    ])
  )[0]!;
  const record = auditFromRow(id, {
    sequence,
    record: row.record as string,
    prev_hash: row.prev_hash as string,
    hash: row.hash as string,
  });
  record.stateHash = stateHash;
  record.hash = recordHash(record.prevHash!, record);
  await b.query('UPDATE audit SET record = $1, hash = $2 WHERE model_id = $3 AND sequence = $4', [
    auditContent(record),
    record.hash,
    id,
    sequence,
  ]);
  const since = (JSON.parse(model.audit_checkpoint as string) as { since: number }).since;
  const head = { nextSequence: sequence + 1, lastHash: record.hash, stateHash };
  const checkpoint = makeCheckpoint(b.key, id, head, since).text;
  await b.query('UPDATE models SET state = $1, audit_checkpoint = $2, last_hash = $3 WHERE id = $4', [
    legacy,
    checkpoint,
    record.hash,
    id,
  ]);
  await b.query('ALTER TABLE audit DROP COLUMN history_row', []);
  await b.forgetStep3();
}

describe.each([
  ['sqlite', sqliteBackend, undefined],
  ['postgres', postgresBackend, POSTGRES_URL ? undefined : POSTGRES_SKIP_REASON],
] as const)('history rows in a %s store', (_kind, make, skip) => {
  it.skipIf(skip !== undefined)(
    'are written per cycle, and the upgrade moves a ring kept in the state into them',
    async () => {
      const b = make();
      const before = await withService(b, async (s) => {
        await s.createModel(counterSpec('m'));
        await s.mutate('m', { '$.counters.c': 5 });
        // an evolution starts history afresh: the cycles before it are not in the ring
        await s.evolveSpec('m', { expectedVersion: '1.0.0', newVersion: '1.1.0' });
        for (let i = 1; i <= 6; i++) await s.mutate('m', { '$.counters.a': i * 10 });
        return timeline(s, 'm');
      });
      expect(before.length).toBe(6);
      // each cycle left its row; the state text holds no ring
      const rows = await b.query('SELECT history_row FROM audit WHERE model_id = $1', ['m']);
      expect(rows.filter((r) => typeof r.history_row === 'string').length).toBe(7);
      const stored = (await b.query('SELECT state FROM models WHERE id = $1', ['m']))[0]!;
      expect(JSON.parse(stored.state as string)).not.toHaveProperty('history');

      await asBeforeHistoryRows(b, 'm');
      await withService(b, async (s) => {
        expect(await timeline(s, 'm')).toEqual(before); // the ring the state carried
        expect(await s.verifyAudit('m')).toMatchObject({ valid: true });
        await s.mutate('m', { '$.counters.b': 1 });
      });
      // after a write and a restart, the ring comes from the rows: the moved ones and the new one
      await withService(b, async (s) => {
        const after = await timeline(s, 'm');
        expect(after.slice(0, -1)).toEqual(before);
        expect(after.length).toBe(7);
        expect(await s.verifyAudit('m')).toMatchObject({ valid: true });
      });
    },
  );
});
