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
 * back must hash exactly as it did when it was chained.
 *
 * `watch`: every committed change sends `NOTIFY modelworks_changes` (inside the committing
 * transaction, so it is delivered only if the change commits) with the payload
 * `{"origin": <this store's id>, "modelId": …}`. A dedicated connection LISTENs; notifications
 * carrying our own origin are skipped, so a process is not told about its own writes. After a
 * lost listening connection the store reconnects and reports every model as changed, since
 * notifications sent meanwhile are gone.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { CalcError, type JsonObject, type ModelSpec, type RuntimeState } from '../calc/index.js';
import {
  auditContent,
  auditFromRow,
  blobId,
  blobTooLarge,
  parseJson,
  sealForWrite,
  sortIds,
  storeFailure,
} from './row-codec.js';
import {
  GENESIS_HASH,
  MAX_BLOB_BYTES,
  type AuditRecord,
  type BlobRef,
  type ChangeListener,
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

/** Numbered schema steps; never edit a step that has shipped, add the next one. */
const MIGRATIONS: readonly string[] = [
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
];

export interface PostgresStoreOptions {
  /** A schema to keep the tables in (created when missing); default: the connection's search_path. */
  schema?: string;
  /** Pool size (default 10). */
  maxConnections?: number;
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

  private constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
    private readonly where: string,
  ) {}

  /**
   * Connects, creates the schema when asked to, and runs pending migrations.
   * @throws CalcError STORE_FAILURE when the database cannot be reached or migrated
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const where = redactUrl(url);
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new CalcError('INVALID_ARGUMENT', `invalid PostgreSQL schema name '${schema}'`);
    }
    const clientConfig: pg.ClientConfig = { connectionString: url, connectionTimeoutMillis: 10_000 };
    if (schema !== undefined) clientConfig.options = `-c search_path=${schema}`;
    const pool = new pg.Pool({ ...clientConfig, max: options.maxConnections ?? 10 });
    // an idle connection dropped by the server must not take the process down
    pool.on('error', () => {});
    const store = new PostgresStore(pool, clientConfig, where);
    try {
      if (schema !== undefined) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await store.migrate();
    } catch (err) {
      await pool.end().catch(() => {});
      throw storeFailure(err, `cannot open the PostgreSQL store at ${where}`);
    }
    return store;
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
        await c.query(MIGRATIONS[v - 1]!);
        await c.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v]);
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
      }>('SELECT spec, state, revision, next_sequence, last_hash FROM models WHERE id = $1', [id]);
      const r = rows[0];
      if (!r) return undefined;
      return {
        spec: parseJson<ModelSpec>(r.spec, `spec of model '${id}'`),
        state: parseJson<RuntimeState>(r.state, `state of model '${id}'`),
        head: { revision: Number(r.revision), nextSequence: Number(r.next_sequence), lastHash: r.last_hash },
      };
    });
  }

  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    return this.guard(`creating model '${id}'`, () =>
      this.tx(async (c) => {
        const specText = JSON.stringify(spec);
        const r = await c.query(
          `INSERT INTO models (id, spec, state, revision, next_sequence, last_hash)
           VALUES ($1, $2, $3, 0, 0, $4) ON CONFLICT (id) DO NOTHING`,
          [id, specText, JSON.stringify(state), GENESIS_HASH],
        );
        if (r.rowCount === 0)
          throw new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id });
        await c.query(
          'INSERT INTO spec_versions (model_id, idx, version, spec, created_at) VALUES ($1, 0, $2, $3, $4)',
          [id, spec.version, specText, new Date().toISOString()],
        );
        await this.notify(c, id);
      }),
    );
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: () => RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.guard(`committing a cycle of model '${id}'`, async () => {
      const { prevHash, hash } = sealForWrite(record);
      const stateText = JSON.stringify(state());
      const recordText = auditContent(record);
      // one statement, so one round trip and its own transaction: the compare-and-set UPDATE, the
      // audit row and the notification happen together or (0 rows updated) not at all
      const notice = this.notifyPayload(id);
      const { rows } = await this.pool.query<{ committed: string }>(
        `WITH moved AS (
           UPDATE models SET state = $1, revision = revision + 1, next_sequence = next_sequence + 1, last_hash = $2
           WHERE id = $3 AND revision = $4 AND next_sequence = $5 AND last_hash = $6
           RETURNING id
         ), recorded AS (
           INSERT INTO audit (model_id, sequence, record, prev_hash, hash)
           SELECT id, $5, $7, $6, $2 FROM moved
           RETURNING 1
         ), told AS (
           SELECT pg_notify($8, $9) FROM moved WHERE $9::text IS NOT NULL
         )
         SELECT (SELECT count(*) FROM recorded) AS committed, (SELECT count(*) FROM told) AS told`,
        [
          stateText,
          hash,
          id,
          expectedRevision,
          record.sequence,
          prevHash,
          recordText,
          NOTIFY_CHANNEL,
          notice,
        ],
      );
      return Number(rows[0]?.committed ?? 0) === 1;
    });
  }

  replaceModel(id: string, expectedRevision: number, spec: ModelSpec, state: RuntimeState): Promise<boolean> {
    return this.guard(`replacing model '${id}'`, () =>
      this.tx(async (c) => {
        const specText = JSON.stringify(spec);
        const { rows } = await c.query<{ spec: string }>(
          'SELECT spec FROM models WHERE id = $1 AND revision = $2 FOR UPDATE',
          [id, expectedRevision],
        );
        const row = rows[0];
        if (!row) return false;
        await c.query('UPDATE models SET spec = $1, state = $2, revision = revision + 1 WHERE id = $3', [
          specText,
          JSON.stringify(state),
          id,
        ]);
        const previous = parseJson<ModelSpec>(row.spec, `spec of model '${id}'`);
        if (previous.version !== spec.version || row.spec !== specText) {
          await c.query(
            `INSERT INTO spec_versions (model_id, idx, version, spec, created_at)
             SELECT $1, COALESCE(MAX(idx), -1) + 1, $2, $3, $4 FROM spec_versions WHERE model_id = $1`,
            [id, spec.version, specText, new Date().toISOString()],
          );
        }
        await this.notify(c, id);
        return true;
      }),
    );
  }

  deleteModel(id: string): Promise<boolean> {
    return this.guard(`deleting model '${id}'`, () =>
      this.tx(async (c) => {
        const r = await c.query('DELETE FROM models WHERE id = $1', [id]);
        await c.query('DELETE FROM audit WHERE model_id = $1', [id]);
        await c.query('DELETE FROM spec_versions WHERE model_id = $1', [id]);
        await c.query('DELETE FROM snapshots WHERE model_id = $1', [id]);
        const deleted = (r.rowCount ?? 0) > 0;
        if (deleted) await this.notify(c, id);
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
