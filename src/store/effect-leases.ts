/**
 * Effect runs as the store keeps them (issue 23): one row per running effect instance (a model and
 * a slot: the effect's id and status path), holding what re-drives it (the job as JSON text, when a
 * timer is due) and its lease (the process that runs it and until when). A lease is taken
 * atomically, so when several processes share a store exactly one runs each instance; the owner
 * renews it while it runs; a crashed owner's lease expires and another process takes the row over.
 * The row is deleted when the run settles. Durable stores keep rows in their `effect_runs` table
 * (effect-leases-sqlite.ts, effect-leases-postgres.ts); the memory store keeps them in a Map.
 */

export interface EffectRunRow {
  modelId: string;
  slot: string;
  /** The runner's job, as JSON text. */
  job: string;
  /** Epoch ms when the run is due (a timer's fire time; the start for other executors). */
  dueAt: number;
  owner: string | null;
  /** Epoch ms the lease holds until. */
  expiresAt: number;
}

export interface EffectLeases {
  /**
   * Takes the slot for `owner` (inserting the row, or taking over one whose lease expired or that
   * `owner` already holds) with this job and due time. False when another owner's lease is live.
   */
  claim(row: Omit<EffectRunRow, 'expiresAt'>, ttlMs: number): Promise<boolean>;
  /** Takes up to `limit` rows whose lease expired, for `owner`; returns them (oldest due first). */
  claimExpired(owner: string, ttlMs: number, limit: number): Promise<EffectRunRow[]>;
  /** Extends every lease `owner` holds by `ttlMs` from now. */
  renew(owner: string, ttlMs: number): Promise<void>;
  /** Deletes a settled run's row, if `owner` still holds it. */
  release(modelId: string, slot: string, owner: string): Promise<void>;
  /** Lets go of every row `owner` holds (a clean stop): another process or a restart takes them at once. */
  unlock(owner: string): Promise<void>;
  /** The runs of a model not settled yet. */
  pending(modelId: string): Promise<EffectRunRow[]>;
}

/** A store that keeps effect runs itself (SQLite, PostgreSQL). */
export interface HasEffectLeases {
  effectLeases(): EffectLeases;
}

export function hasEffectLeases(store: object): store is HasEffectLeases {
  return typeof (store as Partial<HasEffectLeases>).effectLeases === 'function';
}

/** Rows in this process only: for the memory store, whose models end with the process anyway. */
export class MemoryEffectLeases implements EffectLeases {
  private readonly rows = new Map<string, EffectRunRow>();
  private readonly id = (modelId: string, slot: string): string => JSON.stringify([modelId, slot]);

  claim(row: Omit<EffectRunRow, 'expiresAt'>, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const held = this.rows.get(this.id(row.modelId, row.slot));
    if (held && held.owner !== row.owner && held.expiresAt >= now) return Promise.resolve(false);
    this.rows.set(this.id(row.modelId, row.slot), { ...row, expiresAt: now + ttlMs });
    return Promise.resolve(true);
  }

  claimExpired(owner: string, ttlMs: number, limit: number): Promise<EffectRunRow[]> {
    const now = Date.now();
    const taken = [...this.rows.values()]
      .filter((r) => r.expiresAt < now)
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(0, limit);
    for (const r of taken) Object.assign(r, { owner, expiresAt: now + ttlMs });
    return Promise.resolve(taken.map((r) => ({ ...r })));
  }

  renew(owner: string, ttlMs: number): Promise<void> {
    const until = Date.now() + ttlMs;
    for (const r of this.rows.values()) if (r.owner === owner) r.expiresAt = until;
    return Promise.resolve();
  }

  release(modelId: string, slot: string, owner: string): Promise<void> {
    const key = this.id(modelId, slot);
    if (this.rows.get(key)?.owner === owner) this.rows.delete(key);
    return Promise.resolve();
  }

  unlock(owner: string): Promise<void> {
    for (const r of this.rows.values())
      if (r.owner === owner) Object.assign(r, { owner: null, expiresAt: 0 });
    return Promise.resolve();
  }

  pending(modelId: string): Promise<EffectRunRow[]> {
    return Promise.resolve(
      [...this.rows.values()].filter((r) => r.modelId === modelId).map((r) => ({ ...r })),
    );
  }
}
