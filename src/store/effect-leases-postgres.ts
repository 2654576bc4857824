/**
 * Effect runs and their leases in the PostgreSQL store's `effect_runs` table (effect-leases.ts).
 * A new run is claimed with `INSERT … ON CONFLICT … DO UPDATE … WHERE` the lease has expired (or is
 * ours); expired rows are taken over with `FOR UPDATE SKIP LOCKED`, so two processes scanning at
 * once take different rows. Times come from the database's clock, shared by every process.
 */
import type pg from 'pg';
import type { EffectLeases, EffectRunRow } from './effect-leases.js';

/** The schema step that adds the table (postgres-store.ts MIGRATIONS); repeatable, as tests that re-run earlier steps need. */
export const POSTGRES_EFFECT_RUNS_TABLE = `
  CREATE TABLE IF NOT EXISTS effect_runs (
    model_id text NOT NULL,
    slot text NOT NULL,
    job text NOT NULL,
    due_at bigint NOT NULL,
    owner text,
    expires_at bigint NOT NULL,
    PRIMARY KEY (model_id, slot)
  );
  CREATE INDEX IF NOT EXISTS effect_runs_by_expiry ON effect_runs (expires_at);
`;

/** Now, in epoch ms, by the database's clock. */
const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

interface Row {
  model_id: string;
  slot: string;
  job: string;
  due_at: string;
  owner: string | null;
  expires_at: string;
}

const fromRow = (r: Row): EffectRunRow => ({
  modelId: r.model_id,
  slot: r.slot,
  job: r.job,
  dueAt: Number(r.due_at),
  owner: r.owner,
  expiresAt: Number(r.expires_at),
});

export class PostgresEffectLeases implements EffectLeases {
  constructor(private readonly pool: pg.Pool) {}

  async claim(row: Omit<EffectRunRow, 'expiresAt'>, ttlMs: number): Promise<boolean> {
    const r = await this.pool.query(
      `INSERT INTO effect_runs AS e (model_id, slot, job, due_at, owner, expires_at)
       VALUES ($1, $2, $3, $4, $5, ${NOW_MS} + $6)
       ON CONFLICT (model_id, slot) DO UPDATE SET job = excluded.job, due_at = excluded.due_at,
         owner = excluded.owner, expires_at = excluded.expires_at
       WHERE e.expires_at < ${NOW_MS} OR e.owner = excluded.owner`,
      [row.modelId, row.slot, row.job, row.dueAt, row.owner, ttlMs],
    );
    return r.rowCount === 1;
  }

  async claimExpired(owner: string, ttlMs: number, limit: number): Promise<EffectRunRow[]> {
    const r = await this.pool.query<Row>(
      `UPDATE effect_runs e SET owner = $1, expires_at = ${NOW_MS} + $2
       FROM (SELECT model_id, slot FROM effect_runs WHERE expires_at < ${NOW_MS}
             ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) c
       WHERE e.model_id = c.model_id AND e.slot = c.slot
       RETURNING e.*`,
      [owner, ttlMs, limit],
    );
    return r.rows.map(fromRow);
  }

  async renew(owner: string, ttlMs: number): Promise<void> {
    await this.pool.query(`UPDATE effect_runs SET expires_at = ${NOW_MS} + $2 WHERE owner = $1`, [
      owner,
      ttlMs,
    ]);
  }

  async release(modelId: string, slot: string, owner: string): Promise<void> {
    await this.pool.query('DELETE FROM effect_runs WHERE model_id = $1 AND slot = $2 AND owner = $3', [
      modelId,
      slot,
      owner,
    ]);
  }

  async unlock(owner: string): Promise<void> {
    await this.pool.query('UPDATE effect_runs SET owner = NULL, expires_at = 0 WHERE owner = $1', [owner]);
  }

  async pending(modelId: string): Promise<EffectRunRow[]> {
    const r = await this.pool.query<Row>(
      'SELECT * FROM effect_runs WHERE model_id = $1 ORDER BY due_at, slot',
      [modelId],
    );
    return r.rows.map(fromRow);
  }
}
