/**
 * The PostgreSQL store (`pg`), for several `serve` instances on one database. Every write is a
 * compare-and-set on the model's revision (`UPDATE … WHERE revision = $n`) inside one transaction:
 * under READ COMMITTED a concurrent writer waits for the row lock, re-reads the row and matches 0
 * rows, so exactly one of two racing cycles commits and the other is retried by the service.
 *
 * Schema migrations run on open: numbered steps recorded in `schema_migrations`, applied under a
 * transaction-level advisory lock so that processes starting together migrate once.
 *
 * JSON is kept as `text`, not `jsonb`: jsonb reorders keys and refuses `\u0000`, and a record read
 * back must hash exactly as it did when it was chained (and a state as its record says).
 *
 * Audit checkpoints (audit-checkpoint.ts) live in `models.audit_checkpoint`; the id of the key
 * that made them in `audit_meta`. The key comes from the options, else from the `audit.key` file
 * of the user's data directory; a database checkpointed with another key is not opened.
 *
 * `watch`: every committed change sends `NOTIFY modelworks_changes` (inside the committing
 * transaction, so it is delivered only if the change commits) with the payload
 * `{"origin": <this store's id>, "modelId": …}`. A dedicated connection LISTENs; notifications
 * carrying our own origin are skipped, so a process is not told about its own writes. After a
 * lost listening connection the store reconnects and reports every model as changed, since
 * notifications sent meanwhile are gone.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import {
  CalcError,
  HISTORY_CAPACITY,
  historyFromRows,
  type JsonObject,
  type JsonValue,
  type ModelSpec,
  type RuntimeState,
} from '../calc/index.js';
import { stateHashOf } from './audit-chain.js';
import { makeCheckpoint, nextCheckpoint, type MadeCheckpoint } from './audit-checkpoint.js';
import type { AuditKey } from './audit-key.js';
import { AUDIT_KEY_FILE_NAME, defaultDataDir, resolveAuditKey, wrongAuditKey } from './audit-key.js';
import { PostgresEffectLeases, POSTGRES_EFFECT_RUNS_TABLE } from './effect-leases-postgres.js';
import {
  auditContent,
  auditFromRow,
  blobId,
  blobTooLarge,
  durableAuditSeal,
  legacyHistoryRows,
  parseJson,
  sealForWrite,
  sortIds,
  storeFailure,
} from './row-codec.js';
import {
  GENESIS_HASH,
  stateTextOf,
  MAX_BLOB_BYTES,
  IDEMPOTENCY_LIMITS,
  type AuditRecord,
  type AuditSeal,
  type BlobRef,
  type ChangeListener,
  type CommittedState,
  type IdempotencyEntry,
  type ModelHead,
  type SpecVersionEntry,
  type Store,
  type StoredBlob,
  type StoredModel,
} from './store.js';

export const NOTIFY_CHANNEL = 'modelworks_changes';
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. */
const MAX_NOTIFY_PAYLOAD = 7900;
/** Advisory lock key taken while migrating ("mwschema"). */
const MIGRATION_LOCK = 0x6d77_7363;
const RECONNECT_MS = 1000;

/** A schema step: SQL, or code that runs (with the audit key) inside the migration transaction. */
type Migration = string | ((c: pg.PoolClient, key: AuditKey) => Promise<void>);

/** Numbered schema steps; never edit a step that has shipped, add the next one. */
const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE models (
    id text PRIMARY KEY,
    spec text NOT NULL,
    state text NOT NULL,
    revision bigint NOT NULL,
    next_sequence bigint NOT NULL,
    last_hash text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE spec_versions (
    model_id text NOT NULL,
    idx integer NOT NULL,
    version text NOT NULL,
    spec text NOT NULL,
    created_at text NOT NULL,
    PRIMARY KEY (model_id, idx)
  );
  CREATE TABLE audit (
    model_id text NOT NULL,
    sequence bigint NOT NULL,
    record text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL,
    PRIMARY KEY (model_id, sequence)
  );
  CREATE TABLE snapshots (
    id bigserial PRIMARY KEY,
    model_id text NOT NULL,
    snapshot text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX snapshots_by_model ON snapshots (model_id, id);
  CREATE TABLE blobs (
    id text PRIMARY KEY,
    media_type text NOT NULL,
    bytes integer NOT NULL,
    data bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  // 2: audit checkpoints; every model there is gets one for its trail and state as they stand
  async (c, key) => {
    await c.query(`
      ALTER TABLE models ADD COLUMN audit_checkpoint text;
      CREATE TABLE audit_meta (name text PRIMARY KEY, value text NOT NULL);
    `);
    const { rows } = await c.query<{ id: string }>('SELECT id FROM models');
    for (const { id } of rows) {
      const r = (
        await c.query<{ state: string; next_sequence: string; last_hash: string }>(
          'SELECT state, next_sequence, last_hash FROM models WHERE id = $1',
          [id],
        )
      ).rows[0]!;
      const nextSequence = Number(r.next_sequence);
      const head = { nextSequence, lastHash: r.last_hash, stateHash: stateHashOf(r.state) };
      await c.query('UPDATE models SET audit_checkpoint = $1 WHERE id = $2', [
        makeCheckpoint(key, id, head, nextSequence).text,
        id,
      ]);
    }
    await c.query(`INSERT INTO audit_meta (name, value) VALUES ('key_id', $1)`, [key.id]);
  },
  // 3: history rows beside the audit records (calc's history.ts); the rings states carry move there
  async (c) => {
    await c.query('ALTER TABLE audit ADD COLUMN history_row text');
    const { rows } = await c.query<{ id: string; state: string }>('SELECT id, state FROM models');
    for (const { id, state } of rows) {
      const ring = legacyHistoryRows(state);
      if (ring.length === 0) continue;
      const newest = await c.query<{ sequence: string }>(
        'SELECT sequence FROM audit WHERE model_id = $1 ORDER BY sequence DESC LIMIT $2',
        [id, ring.length],
      );
      const sequences = newest.rows.map((r) => Number(r.sequence)).reverse();
      // the ring's entries are the newest cycles' (a restore or an evolution empties it)
      const kept = ring.slice(ring.length - sequences.length);
      for (let i = 0; i < kept.length; i++) {
        await c.query('UPDATE audit SET history_row = $1 WHERE model_id = $2 AND sequence = $3', [
          kept[i],
          id,
          sequences[i],
        ]);
      }
    }
  },
  // 4: effect runs and their leases (effect-leases-postgres.ts, issue 23)
  POSTGRES_EFFECT_RUNS_TABLE,
  // 5: the answers of idempotent writes, per model (issue 38)
  `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    model_id text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    answer text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (model_id, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (model_id, created_at);
  `,
];

export interface PostgresStoreOptions {
  /** A schema to keep the tables in (created when missing); default: the connection's search_path. */
  schema?: string;
  /** Pool size (default 10). */
  maxConnections?: number;
  /**
   * The key of the audit checkpoints. Default: the `audit.key` file of the user's modelworks data
   * directory (created with mode 0600 when absent). Every server on one database needs the same.
   */
  auditKey?: AuditKey;
}

/** A model's stored state hash and checkpoint at one revision, as this process last read or wrote them. */
interface Vouched {
  revision: number;
  stateHash: string;
  checkpoint: string | null;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

type Queryable = Pick<pg.PoolClient, 'query'>;

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  /** Tells our own notifications apart from other processes'. */
  readonly origin = randomUUID();
  private closed = false;
  private readonly listeners = new Set<ChangeListener>();
  private listenClient: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Spares a commit a round trip to read the state and checkpoint it replaces (see `fromState`). */
  private readonly vouched = new Map<string, Vouched>();
  /** The checkpoint this process made last for each model (trusted when met again). */
  private readonly made = new Map<string, MadeCheckpoint>();

  private constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    private readonly where: string,
    private readonly auditKey: AuditKey,
  ) {}

  /**
   * Connects, creates the schema when asked to, and runs pending migrations.
   * @throws CalcError STORE_FAILURE when the database cannot be reached or migrated
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const where = redactUrl(url);
    const auditKey =
      options.auditKey ??
      resolveAuditKey(process.env, { legacyFile: join(defaultDataDir(), AUDIT_KEY_FILE_NAME) });
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new CalcError('INVALID_ARGUMENT', `invalid PostgreSQL schema name '${schema}'`);
    }
    const clientConfig: pg.ClientConfig = { connectionString: url, connectionTimeoutMillis: 10_000 };
    if (schema !== undefined) clientConfig.options = `-c search_path=${schema}`;
    const pool = new pg.Pool({ ...clientConfig, max: options.maxConnections ?? 10 });
    // an idle connection dropped by the server must not take the process down
    pool.on('error', () => {});
    const store = new PostgresStore(pool, clientConfig, where, auditKey);
    try {
      if (schema !== undefined) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await store.migrate();
    } catch (err) {
      await pool.end().catch(() => {});
      throw storeFailure(err, `cannot open the PostgreSQL store at ${where}`);
    }
    return store;
  }

  /** Effect runs and their leases, in this database (issue 23). */
  effectLeases(): PostgresEffectLeases {
    return new PostgresEffectLeases(this.pool);
  }

  private async migrate(): Promise<void> {
    await this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = new Set(
        (await c.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
          (r) => r.version,
        ),
      );
      const newest = Math.max(0, ...done);
      if (newest > MIGRATIONS.length) {
        throw new CalcError(
          'STORE_FAILURE',
          `the database schema is version ${newest}, newer than this modelworks understands (${MIGRATIONS.length})`,
        );
      }
      for (let v = 1; v <= MIGRATIONS.length; v++) {
        if (done.has(v)) continue;
        const step = MIGRATIONS[v - 1]!;
        if (typeof step === 'string') await c.query(step);
        else await step(c, this.auditKey);
        await c.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v]);
      }
      const { rows } = await c.query<{ value: string }>(`SELECT value FROM audit_meta WHERE name = 'key_id'`);
      const keyId = rows[0]?.value;
      if (keyId === undefined)
        await c.query(`INSERT INTO audit_meta (name, value) VALUES ('key_id', $1)`, [this.auditKey.id]);
      else if (keyId !== this.auditKey.id) {
        // a key retired by rotation: its checkpoints still verify, new ones use the current key
        if (!this.auditKey.verifierFor(keyId)) throw wrongAuditKey(this.where, keyId, this.auditKey);
        await c.query(`UPDATE audit_meta SET value = $1 WHERE name = 'key_id'`, [this.auditKey.id]);
      }
    });
  }

  /** One transaction on one pooled connection; a failed connection is discarded, not reused. */
  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      try {
        await c.query('ROLLBACK');
      } catch (rollbackErr) {
        broken = rollbackErr as Error;
      }
      throw err;
    } finally {
      c.release(broken);
    }
  }

  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      if (this.closed) throw new CalcError('STORE_FAILURE', 'the store is closed');
      return await fn();
    } catch (err) {
      throw storeFailure(err, what);
    }
  }

  /** The notification text for a change of `modelId`, or null when it is too long to send. */
  private notifyPayload(modelId: string): string | null {
    const payload = JSON.stringify({ origin: this.origin, modelId });
    // an id too long for a notification is not announced; readers still see the change on `head`
    return Buffer.byteLength(payload) > MAX_NOTIFY_PAYLOAD ? null : payload;
  }

  /** Queued inside the transaction: delivered to other processes only if it commits. */
  private async notify(c: Queryable, modelId: string): Promise<void> {
    const payload = this.notifyPayload(modelId);
    if (payload !== null) await c.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, payload]);
  }

  listModelIds(): Promise<string[]> {
    return this.guard('listing models', async () =>
      sortIds((await this.pool.query<{ id: string }>('SELECT id FROM models')).rows.map((r) => r.id)),
    );
  }

  head(id: string): Promise<ModelHead | undefined> {
    return this.guard(`reading model '${id}'`, async () => {
      const { rows } = await this.pool.query<{ revision: string; next_sequence: string; last_hash: string }>(
        'SELECT revision, next_sequence, last_hash FROM models WHERE id = $1',
        [id],
      );
      const r = rows[0];
      return r
        ? { revision: Number(r.revision), nextSequence: Number(r.next_sequence), lastHash: r.last_hash }
        : undefined;
    });
  }

  loadModel(id: string): Promise<StoredModel | undefined> {
    return this.guard(`loading model '${id}'`, async () => {
      const { rows } = await this.pool.query<{
        spec: string;
        state: string;
        revision: string;
        next_sequence: string;
        last_hash: string;
        audit_checkpoint: string | null;
      }>(
        'SELECT spec, state, revision, next_sequence, last_hash, audit_checkpoint FROM models WHERE id = $1',
        [id],
      );
      const r = rows[0];
      if (!r) return undefined;
      // what the caller will build on: a commit checks the checkpoint against this very text
      this.vouched.set(id, {
        revision: Number(r.revision),
        stateHash: stateHashOf(r.state),
        checkpoint: r.audit_checkpoint,
      });
      const state = parseJson<RuntimeState>(r.state, `state of model '${id}'`);
      if (!Array.isArray(state.history)) {
        // the rows of the cycles this state ends (a newer row is another process's, not ours yet)
        const history = await this.pool.query<{ history_row: string | null }>(
          'SELECT history_row FROM audit WHERE model_id = $1 AND sequence < $2 ORDER BY sequence DESC LIMIT $3',
          [id, r.next_sequence, HISTORY_CAPACITY],
        );
        const ring = historyFromRows(history.rows.map((h) => h.history_row).reverse());
        if (ring.length > 0) state.history = ring;
      }
      return {
        spec: parseJson<ModelSpec>(r.spec, `spec of model '${id}'`),
        state,
        head: { revision: Number(r.revision), nextSequence: Number(r.next_sequence), lastHash: r.last_hash },
      };
    });
  }

  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    return this.guard(`creating model '${id}'`, () =>
      this.tx(async (c) => {
        const specText = JSON.stringify(spec);
        const stateText = stateTextOf(state);
        const stateHash = stateHashOf(stateText);
        const checkpoint = makeCheckpoint(
          this.auditKey,
          id,
          { nextSequence: 0, lastHash: GENESIS_HASH, stateHash },
          0,
        );
        const r = await c.query(
          `INSERT INTO models (id, spec, state, revision, next_sequence, last_hash, audit_checkpoint)
           VALUES ($1, $2, $3, 0, 0, $4, $5) ON CONFLICT (id) DO NOTHING`,
          [id, specText, stateText, GENESIS_HASH, checkpoint.text],
        );
        if (r.rowCount === 0)
          throw new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id });
        await c.query(
          'INSERT INTO spec_versions (model_id, idx, version, spec, created_at) VALUES ($1, 0, $2, $3, $4)',
          [id, spec.version, specText, new Date().toISOString()],
        );
        await this.notify(c, id);
        this.vouched.set(id, { revision: 0, stateHash, checkpoint: checkpoint.text });
        this.made.set(id, checkpoint);
      }),
    );
  }

  /**
   * The stored state hash and checkpoint a change at `revision` builds on: as this process last
   * read or wrote them at that revision, else read now (one round trip, after another process
   * wrote). Undefined when the model is not at `revision`.
   */
  private async fromState(c: Queryable, id: string, revision: number): Promise<Vouched | undefined> {
    const known = this.vouched.get(id);
    if (known?.revision === revision) return known;
    const { rows } = await c.query<{ state: string; audit_checkpoint: string | null }>(
      'SELECT state, audit_checkpoint FROM models WHERE id = $1 AND revision = $2',
      [id, revision],
    );
    const r = rows[0];
    return r && { revision, stateHash: stateHashOf(r.state), checkpoint: r.audit_checkpoint };
  }

  /** Seals `record` over the new state and works out the checkpoint the change leaves. */
  private prepareChange(
    id: string,
    from: Vouched,
    stateText: string,
    record: AuditRecord,
  ): { prevHash: string; hash: string; stateHash: string; checkpoint: MadeCheckpoint } {
    const sealed = sealForWrite(record, stateText);
    const checkpoint = nextCheckpoint(
      this.auditKey,
      id,
      { nextSequence: record.sequence, lastHash: sealed.prevHash, stateHash: from.stateHash },
      from.checkpoint,
      { nextSequence: record.sequence + 1, lastHash: sealed.hash, stateHash: sealed.stateHash },
      this.made.get(id),
    );
    return { ...sealed, checkpoint };
  }

  /** After a change: what it left (or, when it did not commit, that nothing is known). */
  private remember(
    id: string,
    left: { revision: number; stateHash: string; checkpoint: MadeCheckpoint } | undefined,
  ): void {
    if (!left) {
      this.vouched.delete(id);
      return;
    }
    const { revision, stateHash, checkpoint } = left;
    this.vouched.set(id, { revision, stateHash, checkpoint: checkpoint.text });
    this.made.set(id, checkpoint);
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: CommittedState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.guard(`committing a cycle of model '${id}'`, async () => {
      const from = await this.fromState(this.pool, id, expectedRevision);
      if (!from) return false;
      const stateText = state.text();
      const { prevHash, hash, stateHash, checkpoint } = this.prepareChange(id, from, stateText, record);
      const recordText = auditContent(record);
      // one statement, so one round trip and its own transaction: the compare-and-set UPDATE, the
      // audit row and the notification happen together or (0 rows updated) not at all
      const notice = this.notifyPayload(id);
      const { rows } = await this.pool.query<{ committed: string }>({
        // prepared once per connection: parsing and planning this statement cost as much as running it
        name: 'modelworks_commit_cycle_3',
        text: `WITH moved AS (
           UPDATE models SET state = $1, revision = revision + 1, next_sequence = next_sequence + 1,
             last_hash = $2, audit_checkpoint = $10
           WHERE id = $3 AND revision = $4 AND next_sequence = $5 AND last_hash = $6
             AND audit_checkpoint IS NOT DISTINCT FROM $11::text
           RETURNING id
         ), recorded AS (
           INSERT INTO audit (model_id, sequence, record, prev_hash, hash, history_row)
           SELECT id, $5, $7, $6, $2, $12 FROM moved
           RETURNING 1
         ), told AS (
           SELECT pg_notify($8, $9) FROM moved WHERE $9::text IS NOT NULL
         )
         SELECT (SELECT count(*) FROM recorded) AS committed, (SELECT count(*) FROM told) AS told`,
        values: [
          stateText,
          hash,
          id,
          expectedRevision,
          record.sequence,
          prevHash,
          recordText,
          NOTIFY_CHANNEL,
          notice,
          checkpoint.text,
          from.checkpoint,
          state.historyRow() ?? null,
        ],
      });
      const ok = Number(rows[0]?.committed ?? 0) === 1;
      this.remember(id, ok ? { revision: expectedRevision + 1, stateHash, checkpoint } : undefined);
      return ok;
    });
  }

  replaceModel(
    id: string,
    expectedRevision: number,
    spec: ModelSpec,
    state: RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.guard(`replacing model '${id}'`, async () => {
      const done = await this.tx(async (c) => {
        const specText = JSON.stringify(spec);
        const { rows } = await c.query<{ spec: string; audit_checkpoint: string | null }>(
          'SELECT spec, audit_checkpoint FROM models WHERE id = $1 AND revision = $2 FOR UPDATE',
          [id, expectedRevision],
        );
        const row = rows[0];
        if (!row) return undefined;
        const from = await this.fromState(c, id, expectedRevision);
        if (!from) return undefined;
        const stateText = stateTextOf(state);
        // the row is locked: its checkpoint is the one to check, whatever this process remembers
        const change = this.prepareChange(
          id,
          { ...from, checkpoint: row.audit_checkpoint },
          stateText,
          record,
        );
        const moved = await c.query(
          `UPDATE models SET spec = $1, state = $2, revision = revision + 1, next_sequence = next_sequence + 1,
             last_hash = $3, audit_checkpoint = $4
           WHERE id = $5 AND next_sequence = $6 AND last_hash = $7`,
          [specText, stateText, change.hash, change.checkpoint.text, id, record.sequence, change.prevHash],
        );
        if (moved.rowCount !== 1) return undefined;
        await c.query(
          'INSERT INTO audit (model_id, sequence, record, prev_hash, hash) VALUES ($1, $2, $3, $4, $5)',
          [id, record.sequence, auditContent(record), change.prevHash, change.hash],
        );
        const previous = parseJson<ModelSpec>(row.spec, `spec of model '${id}'`);
        if (previous.version !== spec.version || row.spec !== specText) {
          await c.query(
            `INSERT INTO spec_versions (model_id, idx, version, spec, created_at)
             SELECT $1, COALESCE(MAX(idx), -1) + 1, $2, $3, $4 FROM spec_versions WHERE model_id = $1`,
            [id, spec.version, specText, new Date().toISOString()],
          );
        }
        await this.notify(c, id);
        return change;
      });
      this.remember(id, done && { revision: expectedRevision + 1, ...done });
      return done !== undefined;
    });
  }

  deleteModel(id: string): Promise<boolean> {
    return this.guard(`deleting model '${id}'`, () =>
      this.tx(async (c) => {
        const r = await c.query('DELETE FROM models WHERE id = $1', [id]);
        await c.query('DELETE FROM audit WHERE model_id = $1', [id]);
        await c.query('DELETE FROM spec_versions WHERE model_id = $1', [id]);
        await c.query('DELETE FROM snapshots WHERE model_id = $1', [id]);
        await c.query('DELETE FROM idempotency_keys WHERE model_id = $1', [id]);
        const deleted = (r.rowCount ?? 0) > 0;
        if (deleted) await this.notify(c, id);
        this.vouched.delete(id);
        this.made.delete(id);
        return deleted;
      }),
    );
  }

  auditRecords(id: string): Promise<AuditRecord[]> {
    return this.guard(`reading the audit trail of model '${id}'`, async () => {
      const { rows } = await this.pool.query<{
        sequence: string;
        record: string;
        prev_hash: string;
        hash: string;
      }>('SELECT sequence, record, prev_hash, hash FROM audit WHERE model_id = $1 ORDER BY sequence', [id]);
      return rows.map((r) => auditFromRow(id, { ...r, sequence: Number(r.sequence) }));
    });
  }

  auditSeal(id: string): Promise<AuditSeal | undefined> {
    return this.guard(`reading the audit seal of model '${id}'`, async () => {
      const { rows } = await this.pool.query<{
        state: string;
        revision: string;
        next_sequence: string;
        last_hash: string;
        audit_checkpoint: string | null;
      }>('SELECT state, revision, next_sequence, last_hash, audit_checkpoint FROM models WHERE id = $1', [
        id,
      ]);
      const r = rows[0];
      if (!r) return undefined;
      const head = {
        revision: Number(r.revision),
        nextSequence: Number(r.next_sequence),
        lastHash: r.last_hash,
      };
      return durableAuditSeal(this.auditKey, id, head, r.state, r.audit_checkpoint, this.made.get(id));
    });
  }

  specVersions(id: string): Promise<SpecVersionEntry[]> {
    return this.guard(`reading the spec versions of model '${id}'`, async () => {
      const { rows } = await this.pool.query<{ version: string; spec: string; created_at: string }>(
        'SELECT version, spec, created_at FROM spec_versions WHERE model_id = $1 ORDER BY idx',
        [id],
      );
      return rows.map((r) => ({
        version: r.version,
        spec: parseJson<ModelSpec>(r.spec, `spec version ${r.version} of model '${id}'`),
        createdAt: r.created_at,
      }));
    });
  }

  saveSnapshot(id: string, snapshot: JsonObject): Promise<void> {
    return this.guard(`saving a snapshot of model '${id}'`, async () => {
      await this.pool.query(
        `INSERT INTO snapshots (model_id, snapshot)
         SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM models WHERE id = $1)`,
        [id, JSON.stringify(snapshot)],
      );
    });
  }

  idempotencyEntry(id: string, key: string): Promise<IdempotencyEntry | undefined> {
    return this.guard(`reading an idempotency key of model '${id}'`, async () => {
      const { rows } = await this.pool.query<{ fingerprint: string; answer: string; created_at: Date }>(
        'SELECT fingerprint, answer, created_at FROM idempotency_keys WHERE model_id = $1 AND key = $2',
        [id, key],
      );
      const row = rows[0];
      if (!row) return undefined;
      return {
        key,
        fingerprint: row.fingerprint,
        answer: parseJson<JsonValue>(row.answer, `an idempotency key of model '${id}'`),
        createdAt: row.created_at.toISOString(),
      };
    });
  }

  saveIdempotencyEntry(id: string, entry: IdempotencyEntry): Promise<void> {
    return this.guard(`keeping an idempotency key of model '${id}'`, () =>
      this.tx(async (c) => {
        await c.query(
          `INSERT INTO idempotency_keys (model_id, key, fingerprint, answer, created_at)
             SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM models WHERE id = $1)
           ON CONFLICT (model_id, key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, answer = EXCLUDED.answer, created_at = EXCLUDED.created_at`,
          [id, entry.key, entry.fingerprint, JSON.stringify(entry.answer), entry.createdAt],
        );
        await c.query(
          `DELETE FROM idempotency_keys WHERE model_id = $1 AND created_at < now() - make_interval(secs => $2)`,
          [id, IDEMPOTENCY_LIMITS.maxAgeMs / 1000],
        );
        await c.query(
          `DELETE FROM idempotency_keys WHERE model_id = $1 AND key NOT IN (
             SELECT key FROM idempotency_keys WHERE model_id = $1 ORDER BY created_at DESC, key LIMIT $2)`,
          [id, IDEMPOTENCY_LIMITS.maxKeys],
        );
      }),
    );
  }

  putBlob(data: Buffer, mediaType: string): Promise<BlobRef> {
    if (!Buffer.isBuffer(data))
      return Promise.reject(new CalcError('INVALID_ARGUMENT', 'blob data must be bytes'));
    if (data.length > MAX_BLOB_BYTES) return Promise.reject(blobTooLarge(data.length));
    return this.guard('storing a blob', async () => {
      const id = blobId(data);
      await this.pool.query(
        `INSERT INTO blobs (id, media_type, bytes, data) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
        [id, mediaType, data.length, data],
      );
      const { rows } = await this.pool.query<{ media_type: string; bytes: number }>(
        'SELECT media_type, bytes FROM blobs WHERE id = $1',
        [id],
      );
      const r = rows[0];
      if (!r) throw new CalcError('STORE_FAILURE', `blob ${id} vanished after it was stored`);
      return { $blobId: id, $mediaType: r.media_type, $bytes: r.bytes };
    });
  }

  getBlob(id: string): Promise<StoredBlob | undefined> {
    return this.guard('reading a blob', async () => {
      const { rows } = await this.pool.query<{ media_type: string; bytes: number; data: Buffer }>(
        'SELECT media_type, bytes, data FROM blobs WHERE id = $1',
        [id],
      );
      const r = rows[0];
      return r ? { $blobId: id, $mediaType: r.media_type, $bytes: r.bytes, data: r.data } : undefined;
    });
  }

  // ------------------------------------------------------------ watch (LISTEN/NOTIFY)

  watch(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (!this.listenClient && !this.reconnectTimer && !this.closed) void this.listen(false);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once the listening connection is up (or has failed and a retry is scheduled). */
  private listening: Promise<void> | undefined;

  /** For tests: wait until notifications from other processes are being received. */
  async ready(): Promise<void> {
    await this.listening;
  }

  private listen(afterLoss: boolean): Promise<void> {
    const run = async (): Promise<void> => {
      const client = new pg.Client(this.clientConfig);
      this.listenClient = client;
      const lost = (): void => {
        if (this.listenClient !== client) return;
        this.listenClient = undefined;
        client.end().catch(() => {});
        this.scheduleReconnect();
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (msg) => {
        if (msg.channel !== NOTIFY_CHANNEL || msg.payload === undefined) return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(msg.payload);
        } catch {
          return;
        }
        const p = parsed as { origin?: unknown; modelId?: unknown };
        if (p.origin === this.origin || typeof p.modelId !== 'string') return;
        this.tell(p.modelId);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      } catch {
        lost();
        return;
      }
      if (this.closed) {
        this.listenClient = undefined;
        await client.end().catch(() => {});
        return;
      }
      if (afterLoss) {
        // notifications sent while we were away are gone: everything may have changed
        const ids = await this.listModelIds().catch(() => [] as string[]);
        for (const id of ids) this.tell(id);
      }
    };
    this.listening = run();
    return this.listening;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed && !this.listenClient) void this.listen(true);
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  private tell(modelId: string): void {
    for (const l of [...this.listeners]) {
      try {
        l(modelId);
      } catch {
        // a listener's failure never affects the store
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    await this.listening?.catch(() => {});
    const client = this.listenClient;
    this.listenClient = undefined;
    if (client) await client.end().catch(() => {});
    await this.pool.end().catch(() => {});
  }

  toString(): string {
    return `postgres store at ${this.where}`;
  }
}
