/**
 * The SQLite store (better-sqlite3 12.x), the embedded default: one file, WAL journal, shared safely
 * by several processes. Every write is a compare-and-set on the model's revision inside one
 * `BEGIN IMMEDIATE` transaction, so a cycle's new state and its audit record commit together or not
 * at all, and two processes can never fork a model: the loser sees 0 rows changed and retries.
 *
 * JSON (spec, state, audit records, snapshots) is kept as text, byte for byte as JSON.stringify
 * wrote it, so a record read back hashes exactly as it did when it was chained, and the state text
 * hashes as its record says (`stateHash`).
 *
 * Audit checkpoints (audit-checkpoint.ts) live in `models.audit_checkpoint`; the id of the key
 * that made them in `audit_meta`. The key comes from the options, else from the `audit.key` file
 * next to the database (created when absent); a store checkpointed with another key is not opened.
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
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { CalcError, type JsonObject, type ModelSpec, type RuntimeState } from '../calc/index.js';
import { stateHashOf } from './audit-chain.js';
import { makeCheckpoint, nextCheckpoint, type MadeCheckpoint } from './audit-checkpoint.js';
import { AUDIT_KEY_FILE_NAME, AuditKey, wrongAuditKey } from './audit-key.js';
import {
  GENESIS_HASH,
  MAX_BLOB_BYTES,
  type AuditRecord,
  type AuditSeal,
  type BlobRef,
  type ChangeListener,
  type CommittedState,
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
  durableAuditSeal,
  parseJson,
  sealForWrite,
  sortIds,
  storeFailure,
} from './row-codec.js';

/** How long a write waits for another process's write lock before failing with STORE_FAILURE. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;
/** Poll interval of `watch`. */
export const POLL_MS = 250;

/** A schema step: SQL, or code that runs (with the audit key) inside the migration transaction. */
type Migration = string | ((db: Database.Database, key: AuditKey) => void);

/** Numbered schema steps; `PRAGMA user_version` records how many have run. Never edit a step. */
const MIGRATIONS: readonly Migration[] = [
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
  // 2: audit checkpoints; every model there is gets one for its trail and state as they stand
  (db, key) => {
    db.exec(`
      ALTER TABLE models ADD COLUMN audit_checkpoint TEXT;
      CREATE TABLE audit_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
    const ids = db.prepare('SELECT id FROM models').pluck().all() as string[];
    const read = db.prepare('SELECT state, next_sequence, last_hash FROM models WHERE id = ?');
    const write = db.prepare('UPDATE models SET audit_checkpoint = ? WHERE id = ?');
    for (const id of ids) {
      const row = read.get(id) as { state: string; next_sequence: number; last_hash: string };
      const head = {
        nextSequence: row.next_sequence,
        lastHash: row.last_hash,
        stateHash: stateHashOf(row.state),
      };
      write.run(makeCheckpoint(key, id, head, row.next_sequence).text, id);
    }
    db.prepare(`INSERT INTO audit_meta (name, value) VALUES ('key_id', ?)`).run(key.id);
  },
];

interface ModelRow {
  spec: string;
  state: string;
  revision: number;
  next_sequence: number;
  last_hash: string;
  audit_checkpoint: string | null;
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
  /**
   * The key of the audit checkpoints. Default: the `audit.key` file in the database's folder
   * (created with mode 0600 when absent); a key made for this process for `:memory:`.
   */
  auditKey?: AuditKey;
}

/** A model's stored state hash and checkpoint at one revision, as this process last read or wrote them. */
interface Vouched {
  revision: number;
  stateHash: string;
  checkpoint: string | null;
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
  private readonly auditKey: AuditKey;
  /** Spares a commit reading and hashing the state and checkpoint it replaces (see `commitChange`). */
  private readonly vouched = new Map<string, Vouched>();
  /** The checkpoint this process made last for each model (trusted when met again). */
  private readonly made = new Map<string, MadeCheckpoint>();

  private constructor(
    readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.pollMs = options.pollMs ?? POLL_MS;
    const inMemory = path === ':memory:' || path === '';
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    this.auditKey =
      options.auditKey ??
      (inMemory ? AuditKey.ephemeral() : AuditKey.fromFile(join(dirname(path), AUDIT_KEY_FILE_NAME)));
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
        const step = MIGRATIONS[v]!;
        if (typeof step === 'string') this.db.exec(step);
        else step(this.db, this.auditKey);
        this.db.pragma(`user_version = ${v + 1}`);
      }
      const keyId = this.db.prepare(`SELECT value FROM audit_meta WHERE name = 'key_id'`).pluck().get() as
        string | undefined;
      if (keyId === undefined)
        this.db.prepare(`INSERT INTO audit_meta (name, value) VALUES ('key_id', ?)`).run(this.auditKey.id);
      else if (keyId !== this.auditKey.id) throw wrongAuditKey(this.path, keyId, this.auditKey);
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
        'SELECT spec, state, revision, next_sequence, last_hash, audit_checkpoint FROM models WHERE id = ?',
      ).get(id) as ModelRow | undefined;
      if (!row) return undefined;
      // what the caller will build on: a commit checks the checkpoint against this very text
      this.vouched.set(id, {
        revision: row.revision,
        stateHash: stateHashOf(row.state),
        checkpoint: row.audit_checkpoint,
      });
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
      const stateHash = stateHashOf(stateText);
      const checkpoint = makeCheckpoint(
        this.auditKey,
        id,
        { nextSequence: 0, lastHash: GENESIS_HASH, stateHash },
        0,
      );
      const now = new Date().toISOString();
      const insert = this.db.transaction(() => {
        const r = this.stmt(
          `INSERT INTO models (id, spec, state, revision, next_sequence, last_hash, created_at, audit_checkpoint)
             VALUES (?, ?, ?, 0, 0, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
        ).run(id, specText, stateText, GENESIS_HASH, now, checkpoint.text);
        if (r.changes === 0)
          throw new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id });
        this.stmt(
          'INSERT INTO spec_versions (model_id, idx, version, spec, created_at) VALUES (?, 0, ?, ?, ?)',
        ).run(id, spec.version, specText, now);
      });
      insert.immediate();
      this.known.set(id, 0);
      this.vouched.set(id, { revision: 0, stateHash, checkpoint: checkpoint.text });
      this.made.set(id, checkpoint);
    });
  }

  /**
   * Writes a change (a cycle, or a replace when `spec` is given) with its record and the next
   * checkpoint, under compare-and-set on revision, chain end and checkpoint, in one transaction.
   *
   * Everything but the SQL is done first, on what this process last read or wrote of the model at
   * `expectedRevision` (`vouched`): the record's hashes, the checkpoint and the texts to write. The
   * UPDATE checks that assumption (revision, chain end and stored checkpoint text); only when it
   * misses (another process wrote, or something outside the server did) is the row read, under the
   * write lock, and the checkpoint worked out again from what is really stored. (A state edited
   * behind a revision we hold is overwritten by the change; one edited and then loaded fails the
   * checkpoint check, which the new checkpoint keeps.)
   */
  private commitChange(
    id: string,
    expectedRevision: number,
    stateText: string,
    record: AuditRecord,
    spec?: ModelSpec,
  ): boolean {
    const vouched = this.vouched.get(id);
    const known = vouched?.revision === expectedRevision ? vouched : undefined;
    const { prevHash, hash, stateHash } = sealForWrite(record, stateText);
    const recordText = auditContent(record);
    const specText = spec === undefined ? undefined : JSON.stringify(spec);
    const to = { nextSequence: record.sequence + 1, lastHash: hash, stateHash };
    const checkpointFrom = (fromStateHash: string, stored: string | null): MadeCheckpoint =>
      nextCheckpoint(
        this.auditKey,
        id,
        { nextSequence: record.sequence, lastHash: prevHash, stateHash: fromStateHash },
        stored,
        to,
        this.made.get(id),
      );
    const moveHead = (checkpoint: MadeCheckpoint, stored: string | null): boolean =>
      this.stmt(
        `UPDATE models SET state = ?, revision = revision + 1, next_sequence = next_sequence + 1, last_hash = ?,
             audit_checkpoint = ?, spec = COALESCE(?, spec)
           WHERE id = ? AND revision = ? AND next_sequence = ? AND last_hash = ? AND audit_checkpoint IS ?`,
      ).run(
        stateText,
        hash,
        checkpoint.text,
        specText ?? null,
        id,
        expectedRevision,
        record.sequence,
        prevHash,
        stored,
      ).changes === 1;
    const assumed = known && checkpointFrom(known.stateHash, known.checkpoint);
    const commit = this.db.transaction((): MadeCheckpoint | undefined => {
      // a replace records a new spec version when the spec changed
      const previousSpec =
        specText === undefined
          ? undefined
          : (this.stmt('SELECT spec FROM models WHERE id = ?').pluck().get(id) as string | undefined);
      let checkpoint = assumed;
      if (!checkpoint || !moveHead(checkpoint, known!.checkpoint)) {
        const row = this.stmt('SELECT revision, audit_checkpoint FROM models WHERE id = ?').get(id) as
          Pick<ModelRow, 'revision' | 'audit_checkpoint'> | undefined;
        if (row?.revision !== expectedRevision) return undefined;
        const fromStateHash = known?.stateHash ?? this.storedStateHash(id);
        checkpoint = checkpointFrom(fromStateHash, row.audit_checkpoint);
        if (!moveHead(checkpoint, row.audit_checkpoint)) return undefined;
      }
      this.stmt('INSERT INTO audit (model_id, sequence, record, prev_hash, hash) VALUES (?, ?, ?, ?, ?)').run(
        id,
        record.sequence,
        recordText,
        prevHash,
        hash,
      );
      if (spec !== undefined && specText !== undefined && previousSpec !== undefined) {
        const previous = parseJson<ModelSpec>(previousSpec, `spec of model '${id}'`);
        if (previous.version !== spec.version || previousSpec !== specText) {
          this.stmt(
            `INSERT INTO spec_versions (model_id, idx, version, spec, created_at)
               SELECT ?, COALESCE(MAX(idx), -1) + 1, ?, ?, ? FROM spec_versions WHERE model_id = ?`,
          ).run(id, spec.version, specText, new Date().toISOString(), id);
        }
      }
      return checkpoint;
    });
    const made = commit.immediate();
    if (made) {
      this.known.set(id, expectedRevision + 1);
      this.vouched.set(id, { revision: expectedRevision + 1, stateHash, checkpoint: made.text });
      this.made.set(id, made);
    } else this.vouched.delete(id);
    return made !== undefined;
  }

  /** The hash of the state text stored now (read under the transaction's lock). */
  private storedStateHash(id: string): string {
    const text = this.stmt('SELECT state FROM models WHERE id = ?').pluck().get(id) as string;
    return stateHashOf(text);
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: CommittedState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.guard(`committing a cycle of model '${id}'`, () =>
      this.commitChange(id, expectedRevision, state.text(), record),
    );
  }

  replaceModel(
    id: string,
    expectedRevision: number,
    spec: ModelSpec,
    state: RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.guard(`replacing model '${id}'`, () =>
      this.commitChange(id, expectedRevision, JSON.stringify(state), record, spec),
    );
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
      this.vouched.delete(id);
      this.made.delete(id);
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

  auditSeal(id: string): Promise<AuditSeal | undefined> {
    return this.guard(`reading the audit seal of model '${id}'`, () => {
      const row = this.stmt(
        'SELECT state, revision, next_sequence, last_hash, audit_checkpoint FROM models WHERE id = ?',
      ).get(id) as Omit<ModelRow, 'spec'> | undefined;
      if (!row) return undefined;
      const head = { revision: row.revision, nextSequence: row.next_sequence, lastHash: row.last_hash };
      return durableAuditSeal(this.auditKey, id, head, row.state, row.audit_checkpoint, this.made.get(id));
    });
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
