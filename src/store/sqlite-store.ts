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
import { AUDIT_KEY_FILE_NAME, AuditKey, resolveAuditKey, wrongAuditKey } from './audit-key.js';
import { SqliteEffectLeases, SQLITE_EFFECT_RUNS_TABLE } from './effect-leases-sqlite.js';
import { CommitGroup, type Outcome } from './group-commit.js';
import {
  GENESIS_HASH,
  MAX_BLOB_BYTES,
  stateTextOf,
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
  // 3: history rows beside the audit records (calc's history.ts); the rings states carry move there
  (db) => {
    db.exec('ALTER TABLE audit ADD COLUMN history_row TEXT');
    const states = db.prepare('SELECT id, state FROM models').all() as { id: string; state: string }[];
    const newest = db.prepare('SELECT sequence FROM audit WHERE model_id = ? ORDER BY sequence DESC LIMIT ?');
    const write = db.prepare('UPDATE audit SET history_row = ? WHERE model_id = ? AND sequence = ?');
    for (const { id, state } of states) {
      const rows = legacyHistoryRows(state);
      const sequences = (newest.pluck().all(id, rows.length) as number[]).reverse();
      // the ring's entries are the newest cycles' (a restore or an evolution empties it)
      rows.slice(rows.length - sequences.length).forEach((row, i) => write.run(row, id, sequences[i]));
    }
  },
  // 4: effect runs and their leases (effect-leases-sqlite.ts, issue 23)
  SQLITE_EFFECT_RUNS_TABLE,
  // 5: the answers of idempotent writes, per model (issue 38)
  `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    model_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    answer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (model_id, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (model_id, created_at);
  `,
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
   * The key of the audit checkpoints. Default: as `openStore` resolves it (audit-key.ts: the
   * environment, else `audit.key` in the user's config directory, never the database's folder);
   * a key made for this process for `:memory:`.
   */
  auditKey?: AuditKey;
}

/** A model's stored state hash and checkpoint at one revision, as this process last read or wrote them. */
interface Vouched {
  revision: number;
  stateHash: string;
  checkpoint: string | null;
}

/** A change with everything but its SQL done (`prepareChange`), waiting for its group's transaction. */
interface PendingChange {
  id: string;
  /** The cycle's history row (none for a replace). */
  historyRow: string | null;
  expectedRevision: number;
  sequence: number;
  prevHash: string;
  hash: string;
  stateHash: string;
  stateText: string;
  recordText: string;
  /** A replace: the new spec and its text. */
  spec?: ModelSpec;
  specText?: string;
  /** What this process last read or wrote of the model at `expectedRevision`. */
  known?: Vouched;
  /** The checkpoint the change leaves if the stored one is `known.checkpoint`. */
  assumed?: MadeCheckpoint;
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

  /** One transaction for a group of changes (`writeGroup`); made once, like the statements. */
  private readonly writeAll: Database.Transaction<
    (changes: PendingChange[]) => Outcome<MadeCheckpoint | undefined>[]
  >;
  /** One change under a savepoint, inside `writeAll`. */
  private readonly writeOne: Database.Transaction<(change: PendingChange) => MadeCheckpoint | undefined>;

  private constructor(
    readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.pollMs = options.pollMs ?? POLL_MS;
    const inMemory = path === ':memory:' || path === '';
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    this.auditKey =
      options.auditKey ??
      (inMemory
        ? AuditKey.ephemeral()
        : resolveAuditKey(process.env, { legacyFile: join(dirname(path), AUDIT_KEY_FILE_NAME) }));
    this.db = new Database(path);
    this.writeAll = this.db.transaction((changes: PendingChange[]) =>
      changes.map((change): Outcome<MadeCheckpoint | undefined> => {
        if (changes.length === 1) return { ok: true, value: this.writeChange(change) };
        try {
          return { ok: true, value: this.writeOne(change) };
        } catch (err) {
          return { ok: false, error: err };
        }
      }),
    );
    this.writeOne = this.db.transaction((change: PendingChange) => this.writeChange(change));
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

  /** Effect runs and their leases, in this file (issue 23). */
  effectLeases(): SqliteEffectLeases {
    return new SqliteEffectLeases(this.db);
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
      else if (keyId !== this.auditKey.id) {
        // a key retired by rotation: its checkpoints still verify, new ones use the current key
        if (!this.auditKey.verifierFor(keyId)) throw wrongAuditKey(this.path, keyId, this.auditKey);
        this.db.prepare(`UPDATE audit_meta SET value = ? WHERE name = 'key_id'`).run(this.auditKey.id);
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
        'SELECT spec, state, revision, next_sequence, last_hash, audit_checkpoint FROM models WHERE id = ?',
      ).get(id) as ModelRow | undefined;
      if (!row) return undefined;
      // what the caller will build on: a commit checks the checkpoint against this very text
      this.vouched.set(id, {
        revision: row.revision,
        stateHash: stateHashOf(row.state),
        checkpoint: row.audit_checkpoint,
      });
      const state = parseJson<RuntimeState>(row.state, `state of model '${id}'`);
      if (!Array.isArray(state.history)) {
        // the rows of the cycles this state ends (a newer row is another process's, not ours yet)
        const rows = this.stmt(
          'SELECT history_row FROM audit WHERE model_id = ? AND sequence < ? ORDER BY sequence DESC LIMIT ?',
        )
          .pluck()
          .all(id, row.next_sequence, HISTORY_CAPACITY) as (string | null)[];
        const ring = historyFromRows(rows.reverse());
        if (ring.length > 0) state.history = ring;
      }
      return {
        spec: parseJson<ModelSpec>(row.spec, `spec of model '${id}'`),
        state,
        head: { revision: row.revision, nextSequence: row.next_sequence, lastHash: row.last_hash },
      };
    });
  }

  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    return this.guard(`creating model '${id}'`, () => {
      const specText = JSON.stringify(spec);
      const stateText = stateTextOf(state);
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
   * Everything a change (a cycle, or a replace when `spec` is given) needs before its SQL: the
   * record's hashes, the texts to write, and the next checkpoint as it follows from what this
   * process last read or wrote of the model at `expectedRevision` (`vouched`). The UPDATE checks
   * that assumption (revision, chain end and stored checkpoint text).
   */
  private prepareChange(
    id: string,
    expectedRevision: number,
    stateText: string,
    record: AuditRecord,
    historyRow: string | undefined,
    spec?: ModelSpec,
  ): PendingChange {
    const vouched = this.vouched.get(id);
    const known = vouched?.revision === expectedRevision ? vouched : undefined;
    const { prevHash, hash, stateHash } = sealForWrite(record, stateText);
    const change: PendingChange = {
      id,
      historyRow: historyRow ?? null,
      expectedRevision,
      sequence: record.sequence,
      prevHash,
      hash,
      stateHash,
      stateText,
      recordText: auditContent(record),
      known,
    };
    if (spec !== undefined) {
      change.spec = spec;
      change.specText = JSON.stringify(spec);
    }
    if (known) change.assumed = this.checkpointAfter(change, known.stateHash, known.checkpoint);
    return change;
  }

  /** The checkpoint `change` leaves, given the state hash and the checkpoint text it builds on. */
  private checkpointAfter(
    change: PendingChange,
    fromStateHash: string,
    stored: string | null,
  ): MadeCheckpoint {
    return nextCheckpoint(
      this.auditKey,
      change.id,
      { nextSequence: change.sequence, lastHash: change.prevHash, stateHash: fromStateHash },
      stored,
      { nextSequence: change.sequence + 1, lastHash: change.hash, stateHash: change.stateHash },
      this.made.get(change.id),
    );
  }

  /** The compare-and-set UPDATE of the model row; true when it moved. */
  private moveHead(change: PendingChange, checkpoint: MadeCheckpoint, stored: string | null): boolean {
    return (
      this.stmt(
        `UPDATE models SET state = ?, revision = revision + 1, next_sequence = next_sequence + 1, last_hash = ?,
             audit_checkpoint = ?, spec = COALESCE(?, spec)
           WHERE id = ? AND revision = ? AND next_sequence = ? AND last_hash = ? AND audit_checkpoint IS ?`,
      ).run(
        change.stateText,
        change.hash,
        checkpoint.text,
        change.specText ?? null,
        change.id,
        change.expectedRevision,
        change.sequence,
        change.prevHash,
        stored,
      ).changes === 1
    );
  }

  /**
   * The SQL of one change, inside a transaction: the checkpoint it writes, or undefined when the
   * model is no longer at the expected revision (nothing written). When the assumption it was
   * prepared on misses (another process wrote, or something outside the server did), the row is
   * read under the write lock and the checkpoint worked out again from what is really stored. (A
   * state edited behind a revision we hold is overwritten by the change; one edited and then loaded
   * fails the checkpoint check, which the new checkpoint keeps.)
   */
  private writeChange(change: PendingChange): MadeCheckpoint | undefined {
    const { id, known } = change;
    // a replace records a new spec version when the spec changed
    const previousSpec =
      change.specText === undefined
        ? undefined
        : (this.stmt('SELECT spec FROM models WHERE id = ?').pluck().get(id) as string | undefined);
    let checkpoint = change.assumed;
    if (!checkpoint || !this.moveHead(change, checkpoint, known!.checkpoint)) {
      const row = this.stmt('SELECT revision, audit_checkpoint FROM models WHERE id = ?').get(id) as
        Pick<ModelRow, 'revision' | 'audit_checkpoint'> | undefined;
      if (row?.revision !== change.expectedRevision) return undefined;
      const fromStateHash = known?.stateHash ?? this.storedStateHash(id);
      checkpoint = this.checkpointAfter(change, fromStateHash, row.audit_checkpoint);
      if (!this.moveHead(change, checkpoint, row.audit_checkpoint)) return undefined;
    }
    this.stmt(
      'INSERT INTO audit (model_id, sequence, record, prev_hash, hash, history_row) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(id, change.sequence, change.recordText, change.prevHash, change.hash, change.historyRow);
    const { spec, specText } = change;
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
  }

  /**
   * Writes a group of changes in one transaction (one disk sync). Alone, a change that fails takes
   * the transaction with it; in company, each runs under its own savepoint, so one model's failure
   * (a trail row that is already there, say) leaves the others' commits alone.
   */
  private writeGroup(changes: PendingChange[]): Outcome<boolean>[] {
    const outcomes = this.writeAll.immediate(changes);
    // only now, committed, does this process take it as what is stored
    changes.forEach((change, i) => {
      const o = outcomes[i]!;
      const made = o.ok ? o.value : undefined;
      if (made) {
        this.known.set(change.id, change.expectedRevision + 1);
        this.vouched.set(change.id, {
          revision: change.expectedRevision + 1,
          stateHash: change.stateHash,
          checkpoint: made.text,
        });
        this.made.set(change.id, made);
      } else this.vouched.delete(change.id);
    });
    return outcomes.map((o) => (o.ok ? { ok: true, value: o.value !== undefined } : o));
  }

  private readonly group = new CommitGroup<PendingChange, boolean>((changes) => this.writeGroup(changes));

  /** The hash of the state text stored now (read under the transaction's lock). */
  private storedStateHash(id: string): string {
    const text = this.stmt('SELECT state FROM models WHERE id = ?').pluck().get(id) as string;
    return stateHashOf(text);
  }

  /** Prepares a change now and commits it with the others of this turn (see group-commit.ts). */
  private commitChange(what: string, prepare: () => PendingChange): Promise<boolean> {
    let change: PendingChange;
    try {
      if (this.closed) throw new CalcError('STORE_FAILURE', 'the store is closed');
      change = prepare();
    } catch (err) {
      return Promise.reject(storeFailure(err, what));
    }
    return this.group.submit(change).catch((err: unknown) => {
      throw storeFailure(err, what);
    });
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: CommittedState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.commitChange(`committing a cycle of model '${id}'`, () =>
      this.prepareChange(id, expectedRevision, state.text(), record, state.historyRow()),
    );
  }

  replaceModel(
    id: string,
    expectedRevision: number,
    spec: ModelSpec,
    state: RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    return this.commitChange(`replacing model '${id}'`, () =>
      this.prepareChange(id, expectedRevision, stateTextOf(state), record, undefined, spec),
    );
  }

  deleteModel(id: string): Promise<boolean> {
    return this.guard(`deleting model '${id}'`, () => {
      const remove = this.db.transaction((): boolean => {
        const r = this.stmt('DELETE FROM models WHERE id = ?').run(id);
        this.stmt('DELETE FROM audit WHERE model_id = ?').run(id);
        this.stmt('DELETE FROM spec_versions WHERE model_id = ?').run(id);
        this.stmt('DELETE FROM snapshots WHERE model_id = ?').run(id);
        this.stmt('DELETE FROM idempotency_keys WHERE model_id = ?').run(id);
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

  idempotencyEntry(id: string, key: string): Promise<IdempotencyEntry | undefined> {
    return this.guard(`reading an idempotency key of model '${id}'`, () => {
      const row = this.stmt(
        'SELECT fingerprint, answer, created_at FROM idempotency_keys WHERE model_id = ? AND key = ?',
      ).get(id, key) as { fingerprint: string; answer: string; created_at: string } | undefined;
      if (!row) return undefined;
      return {
        key,
        fingerprint: row.fingerprint,
        answer: parseJson<JsonValue>(row.answer, `an idempotency key of model '${id}'`),
        createdAt: row.created_at,
      };
    });
  }

  saveIdempotencyEntry(id: string, entry: IdempotencyEntry): Promise<void> {
    return this.guard(`keeping an idempotency key of model '${id}'`, () => {
      const save = this.db.transaction(() => {
        this.stmt(
          `INSERT OR REPLACE INTO idempotency_keys (model_id, key, fingerprint, answer, created_at)
             SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM models WHERE id = ?)`,
        ).run(id, entry.key, entry.fingerprint, JSON.stringify(entry.answer), entry.createdAt, id);
        const cutoff = new Date(Date.now() - IDEMPOTENCY_LIMITS.maxAgeMs).toISOString();
        this.stmt('DELETE FROM idempotency_keys WHERE model_id = ? AND created_at < ?').run(id, cutoff);
        this.stmt(
          `DELETE FROM idempotency_keys WHERE model_id = ? AND key NOT IN (
             SELECT key FROM idempotency_keys WHERE model_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
        ).run(id, id, IDEMPOTENCY_LIMITS.maxKeys);
      });
      save.immediate();
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
    this.group.flush(); // what was handed in before close is written, not dropped
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
