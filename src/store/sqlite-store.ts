/**
 * The SQLite store (better-sqlite3 12.x), the embedded default: one file, WAL journal, shared safely
 * by several processes. Every write is a compare-and-set on the model's revision inside one
 * `BEGIN IMMEDIATE` transaction, so a cycle's new state and its audit record commit together or not
 * at all, and two processes can never fork a model: the loser sees 0 rows changed and retries.
 *
 * JSON (spec, state, audit records, snapshots) is kept as text, byte for byte as JSON.stringify
 * wrote it, so a record read back hashes exactly as it did when it was chained.
 *
 * `watch`: SQLite has no notification channel between processes, so the store polls. Every
 * `POLL_MS` it reads `PRAGMA data_version` (a counter that moves only when *another* connection
 * committed); when it moved, it compares every model's revision with the last ones it saw and
 * reports the models that changed, appeared or disappeared. Our own writes update that picture as
 * they commit, so a process is not told about its own changes. Nothing depends on the poll for
 * correctness (the service checks `head` before every read and write); it only lets subscribers in
 * this process hear about writes made by other processes, within about `POLL_MS`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { CalcError, type JsonObject, type ModelSpec, type RuntimeState } from '../calc/index.js';
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

/** How long a write waits for another process's write lock before failing with STORE_FAILURE. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;
/** Poll interval of `watch`. */
export const POLL_MS = 250;

/** Numbered schema steps; `PRAGMA user_version` records how many have run. Never edit a step. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE models (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    revision INTEGER NOT NULL,
    next_sequence INTEGER NOT NULL,
    last_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE spec_versions (
    model_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    version TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model_id, idx)
  );
  CREATE TABLE audit (
    model_id TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    record TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (model_id, sequence)
  );
  CREATE TABLE snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    model_id TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX snapshots_by_model ON snapshots (model_id, id);
  CREATE TABLE blobs (
    id TEXT PRIMARY KEY,
    media_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    data BLOB NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
];

interface ModelRow {
  spec: string;
  state: string;
  revision: number;
  next_sequence: number;
  last_hash: string;
}

interface AuditRow {
  sequence: number;
  record: string;
  prev_hash: string;
  hash: string;
}

export interface SqliteStoreOptions {
  /** Milliseconds a write waits for another process's lock (default SQLITE_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
  /** `watch` poll interval in ms (default POLL_MS). */
  pollMs?: number;
  /**
   * 'full' (the default): every commit is fsynced before it is acknowledged, so it survives a
   * power cut as well as a killed process. 'normal': the WAL is fsynced only at checkpoints, about
   * ten times the write rate; a killed process still loses nothing and the file stays consistent,
   * but a power cut or OS crash can drop the last commits.
   */
  synchronous?: 'full' | 'normal';
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private closed = false;
  private readonly listeners = new Set<ChangeListener>();
  private pollTimer: NodeJS.Timeout | undefined;
  private dataVersion = -1;
  /** Revisions as this process last saw them (for `watch`). */
  private known = new Map<string, number>();
  private readonly pollMs: number;

  private constructor(
    readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.pollMs = options.pollMs ?? POLL_MS;
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    try {
      this.db.pragma(
        `busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS))}`,
      );
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      this.migrate();
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /**
   * Opens (creating when missing) the store file at `path` and brings its schema up to date.
   * @throws CalcError STORE_FAILURE when the file cannot be opened or is not a modelworks store
   */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    try {
      return new SqliteStore(path, options);
    } catch (err) {
      throw storeFailure(err, `cannot open the SQLite store at ${path}`);
    }
  }

  private migrate(): void {
    const run = this.db.transaction(() => {
      const current = this.db.pragma('user_version', { simple: true }) as number;
      if (current > MIGRATIONS.length) {
        throw new CalcError(
          'STORE_FAILURE',
          `the store schema is version ${current}, newer than this modelworks understands (${MIGRATIONS.length})`,
        );
      }
      for (let v = current; v < MIGRATIONS.length; v++) {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      }
    });
    run.immediate();
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared once per connection. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** Runs `fn`, turning any backend failure into a CalcError. */
  private guard<T>(what: string, fn: () => T): Promise<T> {
    try {
      if (this.closed) throw new CalcError('STORE_FAILURE', 'the store is closed');
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(storeFailure(err, what));
    }
  }

  listModelIds(): Promise<string[]> {
    return this.guard('listing models', () =>
      sortIds((this.stmt('SELECT id FROM models').pluck().all() as string[]).slice()),
    );
  }

  head(id: string): Promise<ModelHead | undefined> {
    return this.guard(`reading model '${id}'`, () => {
      const row = this.stmt('SELECT revision, next_sequence, last_hash FROM models WHERE id = ?').get(id) as
        Omit<ModelRow, 'spec' | 'state'> | undefined;
      return row
        ? { revision: row.revision, nextSequence: row.next_sequence, lastHash: row.last_hash }
        : undefined;
    });
  }

  loadModel(id: string): Promise<StoredModel | undefined> {
    return this.guard(`loading model '${id}'`, () => {
      const row = this.stmt(
        'SELECT spec, state, revision, next_sequence, last_hash FROM models WHERE id = ?',
      ).get(id) as ModelRow | undefined;
      if (!row) return undefined;
      return {
        spec: parseJson<ModelSpec>(row.spec, `spec of model '${id}'`),
        state: parseJson<RuntimeState>(row.state, `state of model '${id}'`),
        head: { revision: row.revision, nextSequence: row.next_sequence, lastHash: row.last_hash },
      };
    });
  }

  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    return this.guard(`creating model '${id}'`, () => {
      const specText = JSON.stringify(spec);
      const stateText = JSON.stringify(state);
      const now = new Date().toISOString();
      const insert = this.db.transaction(() => {
        const r = this.stmt(
          `INSERT INTO models (id, spec, state, revision, next_sequence, last_hash, created_at)
             VALUES (?, ?, ?, 0, 0, ?, ?) ON CONFLICT (id) DO NOTHING`,
        ).run(id, specText, stateText, GENESIS_HASH, now);
        if (r.changes === 0)
          throw new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id });
        this.stmt(
          'INSERT INTO spec_versions (model_id, idx, version, spec, created_at) VALUES (?, 0, ?, ?, ?)',
        ).run(id, spec.version, specText, now);
      });
      insert.immediate();
      this.known.set(id, 0);
    });
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: () => RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.guard(`committing a cycle of model '${id}'`, () => {
      // a cheap look first: when another process already moved on, skip sealing and serialising
      const current = this.stmt('SELECT revision FROM models WHERE id = ?').pluck().get(id) as
        number | undefined;
      if (current !== expectedRevision) return false;
      const { prevHash, hash } = sealForWrite(record);
      const stateText = JSON.stringify(state());
      const recordText = auditContent(record);
      const commit = this.db.transaction((): boolean => {
        const r = this.stmt(
          `UPDATE models SET state = ?, revision = revision + 1, next_sequence = next_sequence + 1, last_hash = ?
             WHERE id = ? AND revision = ? AND next_sequence = ? AND last_hash = ?`,
        ).run(stateText, hash, id, expectedRevision, record.sequence, prevHash);
        if (r.changes === 0) return false;
        this.stmt(
          'INSERT INTO audit (model_id, sequence, record, prev_hash, hash) VALUES (?, ?, ?, ?, ?)',
        ).run(id, record.sequence, recordText, prevHash, hash);
        return true;
      });
      const ok = commit.immediate();
      if (ok) this.known.set(id, expectedRevision + 1);
      return ok;
    });
  }

  replaceModel(id: string, expectedRevision: number, spec: ModelSpec, state: RuntimeState): Promise<boolean> {
    return this.guard(`replacing model '${id}'`, () => {
      const specText = JSON.stringify(spec);
      const stateText = JSON.stringify(state);
      const replace = this.db.transaction((): boolean => {
        const row = this.stmt('SELECT spec, revision FROM models WHERE id = ?').get(id) as
          Pick<ModelRow, 'spec' | 'revision'> | undefined;
        if (!row || row.revision !== expectedRevision) return false;
        this.stmt(
          'UPDATE models SET spec = ?, state = ?, revision = revision + 1 WHERE id = ? AND revision = ?',
        ).run(specText, stateText, id, expectedRevision);
        const previous = parseJson<ModelSpec>(row.spec, `spec of model '${id}'`);
        if (previous.version !== spec.version || row.spec !== specText) {
          this.stmt(
            `INSERT INTO spec_versions (model_id, idx, version, spec, created_at)
               SELECT ?, COALESCE(MAX(idx), -1) + 1, ?, ?, ? FROM spec_versions WHERE model_id = ?`,
          ).run(id, spec.version, specText, new Date().toISOString(), id);
        }
        return true;
      });
      const ok = replace.immediate();
      if (ok) this.known.set(id, expectedRevision + 1);
      return ok;
    });
  }

  deleteModel(id: string): Promise<boolean> {
    return this.guard(`deleting model '${id}'`, () => {
      const remove = this.db.transaction((): boolean => {
        const r = this.stmt('DELETE FROM models WHERE id = ?').run(id);
        this.stmt('DELETE FROM audit WHERE model_id = ?').run(id);
        this.stmt('DELETE FROM spec_versions WHERE model_id = ?').run(id);
        this.stmt('DELETE FROM snapshots WHERE model_id = ?').run(id);
        return r.changes > 0;
      });
      const ok = remove.immediate();
      this.known.delete(id);
      return ok;
    });
  }

  auditRecords(id: string): Promise<AuditRecord[]> {
    return this.guard(`reading the audit trail of model '${id}'`, () =>
      (
        this.stmt(
          'SELECT sequence, record, prev_hash, hash FROM audit WHERE model_id = ? ORDER BY sequence',
        ).all(id) as AuditRow[]
      ).map((row) => auditFromRow(id, row)),
    );
  }

  specVersions(id: string): Promise<SpecVersionEntry[]> {
    return this.guard(`reading the spec versions of model '${id}'`, () =>
      (
        this.stmt('SELECT version, spec, created_at FROM spec_versions WHERE model_id = ? ORDER BY idx').all(
          id,
        ) as { version: string; spec: string; created_at: string }[]
      ).map((r) => ({
        version: r.version,
        spec: parseJson<ModelSpec>(r.spec, `spec version ${r.version} of model '${id}'`),
        createdAt: r.created_at,
      })),
    );
  }

  saveSnapshot(id: string, snapshot: JsonObject): Promise<void> {
    return this.guard(`saving a snapshot of model '${id}'`, () => {
      this.stmt(
        `INSERT INTO snapshots (model_id, snapshot, created_at)
           SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM models WHERE id = ?)`,
      ).run(id, JSON.stringify(snapshot), new Date().toISOString(), id);
    });
  }

  putBlob(data: Buffer, mediaType: string): Promise<BlobRef> {
    if (!Buffer.isBuffer(data))
      return Promise.reject(new CalcError('INVALID_ARGUMENT', 'blob data must be bytes'));
    if (data.length > MAX_BLOB_BYTES) return Promise.reject(blobTooLarge(data.length));
    return this.guard('storing a blob', () => {
      const id = blobId(data);
      this.stmt(
        `INSERT INTO blobs (id, media_type, bytes, data, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (id) DO NOTHING`,
      ).run(id, mediaType, data.length, data, new Date().toISOString());
      const row = this.stmt('SELECT media_type, bytes FROM blobs WHERE id = ?').get(id) as {
        media_type: string;
        bytes: number;
      };
      return { $blobId: id, $mediaType: row.media_type, $bytes: row.bytes };
    });
  }

  getBlob(blobId: string): Promise<StoredBlob | undefined> {
    return this.guard('reading a blob', () => {
      const row = this.stmt('SELECT media_type, bytes, data FROM blobs WHERE id = ?').get(blobId) as
        { media_type: string; bytes: number; data: Buffer } | undefined;
      return row
        ? { $blobId: blobId, $mediaType: row.media_type, $bytes: row.bytes, data: row.data }
        : undefined;
    });
  }

  // ------------------------------------------------------------ watch (polling)

  watch(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (!this.pollTimer && !this.closed) {
      try {
        this.dataVersion = this.db.pragma('data_version', { simple: true }) as number;
        this.known = this.revisions();
      } catch {
        // a broken store reports nothing; reads and writes will surface the failure
      }
      this.pollTimer = setInterval(() => this.poll(), this.pollMs);
      this.pollTimer.unref();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopPolling();
    };
  }

  private revisions(): Map<string, number> {
    const rows = this.stmt('SELECT id, revision FROM models').all() as { id: string; revision: number }[];
    return new Map(rows.map((r) => [r.id, r.revision]));
  }

  private poll(): void {
    if (this.closed) return;
    let changed: string[];
    try {
      const version = this.db.pragma('data_version', { simple: true }) as number;
      if (version === this.dataVersion) return;
      this.dataVersion = version;
      const now = this.revisions();
      changed = [];
      for (const [id, rev] of now) if (this.known.get(id) !== rev) changed.push(id);
      for (const id of this.known.keys()) if (!now.has(id)) changed.push(id);
      this.known = now;
    } catch {
      return;
    }
    for (const id of changed) {
      for (const l of [...this.listeners]) {
        try {
          l(id);
        } catch {
          // a listener's failure never affects the store
        }
      }
    }
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.stopPolling();
    this.listeners.clear();
    try {
      this.db.close();
    } catch {
      // already closed
    }
    return Promise.resolve();
  }
}
