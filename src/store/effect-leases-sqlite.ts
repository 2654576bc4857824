/**
 * Effect runs and their leases in the SQLite store's `effect_runs` table (effect-leases.ts). Each
 * statement is atomic on its own (SQLite takes the file's write lock for it), so two processes
 * claiming one row cannot both win: the upsert's WHERE lets only an expired or own lease be taken.
 * Times are epoch ms from this machine's clock: processes sharing a SQLite file share the machine.
 */
import type Database from 'better-sqlite3';
import type { EffectLeases, EffectRunRow } from './effect-leases.js';

/** The schema step that adds the table (sqlite-store.ts MIGRATIONS); repeatable, as tests that re-run earlier steps need. */
export const SQLITE_EFFECT_RUNS_TABLE = `
  CREATE TABLE IF NOT EXISTS effect_runs (
    model_id TEXT NOT NULL,
    slot TEXT NOT NULL,
    job TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    owner TEXT,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (model_id, slot)
  );
  CREATE INDEX IF NOT EXISTS effect_runs_by_expiry ON effect_runs (expires_at);
`;

interface Row {
  model_id: string;
  slot: string;
  job: string;
  due_at: number;
  owner: string | null;
  expires_at: number;
}

const fromRow = (r: Row): EffectRunRow => ({
  modelId: r.model_id,
  slot: r.slot,
  job: r.job,
  dueAt: Number(r.due_at),
  owner: r.owner,
  expiresAt: Number(r.expires_at),
});

export class SqliteEffectLeases implements EffectLeases {
  constructor(private readonly db: Database.Database) {}

  claim(row: Omit<EffectRunRow, 'expiresAt'>, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const r = this.db
      .prepare(
        `INSERT INTO effect_runs (model_id, slot, job, due_at, owner, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (model_id, slot) DO UPDATE SET job = excluded.job, due_at = excluded.due_at,
           owner = excluded.owner, expires_at = excluded.expires_at
         WHERE effect_runs.expires_at < ? OR effect_runs.owner = excluded.owner`,
      )
      .run(row.modelId, row.slot, row.job, row.dueAt, row.owner, now + ttlMs, now);
    return Promise.resolve(r.changes === 1);
  }

  claimExpired(owner: string, ttlMs: number, limit: number): Promise<EffectRunRow[]> {
    const now = Date.now();
    const rows = this.db
      .prepare(
        `UPDATE effect_runs SET owner = ?, expires_at = ?
         WHERE rowid IN (SELECT rowid FROM effect_runs WHERE expires_at < ? ORDER BY due_at LIMIT ?)
         RETURNING *`,
      )
      .all(owner, now + ttlMs, now, limit) as Row[];
    return Promise.resolve(rows.map(fromRow));
  }

  renew(owner: string, ttlMs: number): Promise<void> {
    this.db.prepare('UPDATE effect_runs SET expires_at = ? WHERE owner = ?').run(Date.now() + ttlMs, owner);
    return Promise.resolve();
  }

  release(modelId: string, slot: string, owner: string): Promise<void> {
    this.db
      .prepare('DELETE FROM effect_runs WHERE model_id = ? AND slot = ? AND owner = ?')
      .run(modelId, slot, owner);
    return Promise.resolve();
  }

  unlock(owner: string): Promise<void> {
    this.db.prepare('UPDATE effect_runs SET owner = NULL, expires_at = 0 WHERE owner = ?').run(owner);
    return Promise.resolve();
  }

  pending(modelId: string): Promise<EffectRunRow[]> {
    const rows = this.db
      .prepare('SELECT * FROM effect_runs WHERE model_id = ? ORDER BY due_at, slot')
      .all(modelId) as Row[];
    return Promise.resolve(rows.map(fromRow));
  }
}
