/**
 * The audit seal (issue 17, point 5): each record carries the hash of the state it committed and
 * the chain's end is checkpointed with a keyed MAC, so someone who can write the database but does
 * not hold the audit key cannot edit a model's state, nor rewrite its trail and recompute every
 * hash, without verify_audit saying so. Run against memory, SQLite and PostgreSQL; the "database
 * writer" edits rows directly (for the memory store: its maps).
 */
import { statSync, writeFileSync, chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { recordHash } from '../../src/service/audit.js';
import { stateHashOf } from '../../src/store/audit-chain.js';
import {
  AuditKey,
  AUDIT_KEY_FILE_NAME,
  defaultAuditKeyFile,
  resolveAuditKey,
} from '../../src/store/audit-key.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStore } from '../../src/store/open-store.js';
import { auditContent, auditFromRow } from '../../src/store/row-codec.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { GENESIS_HASH, type AuditRecord, type Store } from '../../src/store/store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  tempDbPath,
  withPg,
} from './helpers.js';

// the default audit key lives in the user's config directory: this file's own, not the user's
process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'mw-audit-config-'));

/** What someone holding the database, but not the audit key, can do to one model. */
interface Writer {
  state(id: string): Promise<string>;
  /** Replaces the stored state text; `bump` also moves the revision, so servers reload it. */
  setState(id: string, text: string, bump?: boolean): Promise<void>;
  records(id: string): Promise<AuditRecord[]>;
  /** Replaces the whole trail and points the model's head at its end. */
  setRecords(id: string, records: AuditRecord[]): Promise<void>;
  checkpoint(id: string): Promise<string | null>;
  setCheckpoint(id: string, text: string | null): Promise<void>;
}

interface Backend {
  name: string;
  skip?: string;
  /** False for a store whose records carry no state hashes and that keeps no checkpoint (memory). */
  sealsState?: false;
  /** Opens the store again on the same data (a server restart). */
  open(): Promise<Store>;
  writer: Writer;
}

/** A writer over SQL: `q` runs one statement written with $1, $2 … placeholders. */
function sqlWriter(q: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>): Writer {
  return {
    async state(id) {
      return (await q('SELECT state FROM models WHERE id = $1', [id]))[0]!.state as string;
    },
    async setState(id, text, bump = false) {
      await q(`UPDATE models SET state = $1${bump ? ', revision = revision + 1' : ''} WHERE id = $2`, [
        text,
        id,
      ]);
    },
    async records(id) {
      const rows = await q(
        'SELECT sequence, record, prev_hash, hash FROM audit WHERE model_id = $1 ORDER BY sequence',
        [id],
      );
      return rows.map((r) =>
        auditFromRow(id, {
          sequence: Number(r.sequence),
          record: r.record as string,
          prev_hash: r.prev_hash as string,
          hash: r.hash as string,
        }),
      );
    },
    async setRecords(id, records) {
      await q('DELETE FROM audit WHERE model_id = $1', [id]);
      for (const r of records) {
        await q(
          'INSERT INTO audit (model_id, sequence, record, prev_hash, hash) VALUES ($1, $2, $3, $4, $5)',
          [id, r.sequence, auditContent(r), r.prevHash, r.hash],
        );
      }
      await q('UPDATE models SET next_sequence = $1, last_hash = $2 WHERE id = $3', [
        records.length,
        records[records.length - 1]?.hash ?? GENESIS_HASH,
        id,
      ]);
    },
    async checkpoint(id) {
      return (await q('SELECT audit_checkpoint FROM models WHERE id = $1', [id]))[0]!.audit_checkpoint as
        string | null;
    },
    async setCheckpoint(id, text) {
      await q('UPDATE models SET audit_checkpoint = $1 WHERE id = $2', [text, id]);
    },
  };
}

function sqliteQuery(path: string) {
  return (sql: string, params: unknown[]): Promise<Record<string, unknown>[]> => {
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
}

function postgresQuery(schema: string) {
  return (sql: string, params: unknown[]): Promise<Record<string, unknown>[]> =>
    withPg(schema, async (c) => (await c.query(sql, params)).rows as Record<string, unknown>[]);
}

function memoryBackend(): Backend {
  const store = new MemoryStore();
  // the service closes its store; the memory store's close keeps everything, so "reopening" is itself;
  // nothing outside the process can write it, so there is no writer to play
  return { name: 'memory', sealsState: false, open: () => Promise.resolve(store), writer: {} as Writer };
}

function sqliteBackend(): Backend {
  const path = tempDbPath();
  return {
    name: 'sqlite',
    open: () => Promise.resolve(SqliteStore.open(path)),
    writer: sqlWriter(sqliteQuery(path)),
  };
}

function postgresBackend(): Backend {
  if (!POSTGRES_URL) {
    const open = () => Promise.reject(new Error(POSTGRES_SKIP_REASON));
    return { name: 'postgres', skip: POSTGRES_SKIP_REASON, open, writer: {} as Writer };
  }
  const schema = freshSchema();
  return { name: 'postgres', open: () => openPostgres(schema), writer: sqlWriter(postgresQuery(schema)) };
}

const BACKENDS: [string, () => Backend][] = [
  ['memory', memoryBackend],
  ['sqlite', sqliteBackend],
  ['postgres', postgresBackend],
];

/** A model with `n` committed cycles, by a service that is closed again (the server stopped). */
async function seeded(b: Backend, id: string, n: number): Promise<void> {
  const s = new CalcService(await b.open());
  await s.createModel(counterSpec(id));
  for (let i = 1; i <= n; i++) await s.mutate(id, { '$.counters.a': i });
  await s.close();
}

/** Opens a fresh service (a restarted server), runs `fn`, closes it. */
async function withService<T>(b: Backend, fn: (s: CalcService) => Promise<T>): Promise<T> {
  const s = new CalcService(await b.open());
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

/** Every record edited, and every hash recomputed in order, as anyone can without the key. */
async function rewriteTrail(w: Writer, id: string): Promise<void> {
  const records = await w.records(id);
  let prev = GENESIS_HASH;
  for (const r of records) {
    r.mutations = { '$.counters.a': 1000 + r.sequence };
    r.prevHash = prev;
    r.hash = recordHash(prev, r);
    prev = r.hash;
  }
  await w.setRecords(id, records);
}

/** The state text with counter `a` set to `value` (still valid JSON of the same shape). */
function withCounter(text: string, value: number): string {
  const state = JSON.parse(text) as { base: { counters: { a: number } } };
  state.base.counters.a = value;
  return JSON.stringify(state);
}

const OK = { valid: true, firstBrokenSequence: null, detail: 'ok' };

describe.each(BACKENDS)('audit seal: %s', (_name, make) => {
  const probe = make();
  const test = it.skipIf(probe.skip !== undefined);
  /** Edits by a database writer: only a durable store has one. */
  const tamper = it.skipIf(probe.skip !== undefined || probe.sealsState === false);

  test('an untouched trail and every legitimate change verify, before and after a restart', async () => {
    const b = make();
    const s = new CalcService(await b.open());
    await s.createModel(counterSpec('life'));
    expect(await s.verifyAudit('life')).toMatchObject({ ...OK, recordsChecked: 0 });
    await s.mutate('life', { '$.counters.a': 1, '$.counters.b': 2 });
    await s.patchModel('life', [{ op: 'add', path: '/note', value: 'patched \u{1F600}' }]);
    const snap = await s.snapshot('life');
    await s.mutate('life', { '$.counters.c': 30 });
    await s.restore('life', snap);
    await s.evolveSpec('life', {
      expectedVersion: '1.0.0',
      newVersion: '1.1.0',
      upsertDerivations: [{ path: '$.double', expr: 'total * 2' }],
    });
    await s.mutate('life', { '$.counters.a': 5 });
    await s.getState('life'); // reads change nothing that is stored
    const trail = await s.store.auditRecords('life');
    expect(trail.map((r) => r.source)).toEqual([
      'client',
      'patch',
      'client',
      'restore',
      'evolution',
      'client',
    ]);
    expect(
      trail.every((r) => (b.sealsState === false ? r.stateHash === undefined : r.stateHash?.length === 64)),
    ).toBe(true);
    expect(await s.verifyAudit('life')).toMatchObject({ ...OK, recordsChecked: 6 });
    expect(await s.getState('life')).toMatchObject({ counters: { a: 5, b: 2, c: 0 }, total: 7, double: 14 });
    await s.close();
    // a restarted server reads the same state text back, and it hashes as its record says
    await withService(b, async (again) => {
      expect(await again.verifyAudit('life')).toMatchObject({ ...OK, recordsChecked: 6 });
      await again.mutate('life', { '$.counters.b': 7 });
      expect(await again.verifyAudit('life')).toMatchObject({ ...OK, recordsChecked: 7 });
    });
  });

  tamper('a state edited in the database is reported', async () => {
    const b = make();
    await seeded(b, 'edited', 3);
    await seeded(b, 'fresh', 0);
    await b.writer.setState('edited', withCounter(await b.writer.state('edited'), 999));
    await b.writer.setState('fresh', withCounter(await b.writer.state('fresh'), 999));
    await withService(b, async (s) => {
      expect(await s.verifyAudit('edited')).toMatchObject({
        valid: false,
        recordsChecked: 3,
        firstBrokenSequence: null,
        detail: 'the stored state is not the state record 2 committed: it was edited outside the server',
      });
      // a model without records: the checkpoint covers its first state
      expect(await s.verifyAudit('fresh')).toMatchObject({
        valid: false,
        recordsChecked: 0,
        firstBrokenSequence: null,
        detail:
          'the stored state is not the state the audit checkpoint covers: it was edited outside the server',
      });
    });
  });

  tamper('a state edited, then loaded and written on by a server, stays reported', async () => {
    const b = make();
    await seeded(b, 'laundered', 2);
    // the revision moves too, so the server reloads the edited state and builds on it
    await b.writer.setState('laundered', withCounter(await b.writer.state('laundered'), 999), true);
    await withService(b, async (s) => {
      await s.mutate('laundered', { '$.counters.b': 1 });
      expect(await s.getField('laundered', '$.total')).toBe(1000);
      expect(await s.verifyAudit('laundered')).toMatchObject({
        valid: false,
        recordsChecked: 3,
        firstBrokenSequence: 2,
        detail:
          'cycle 2 was committed on a model changed outside the server (its state had been edited): the trail cannot be vouched for from there on',
      });
      await s.mutate('laundered', { '$.counters.c': 1 }); // and later cycles do not wash it out
      expect(await s.verifyAudit('laundered')).toMatchObject({ valid: false, firstBrokenSequence: 2 });
    });
  });

  tamper('every record edited and every hash recomputed without the key is reported', async () => {
    const b = make();
    await seeded(b, 'rewritten', 4);
    await rewriteTrail(b.writer, 'rewritten');
    await withService(b, async (s) => {
      expect(await s.verifyAudit('rewritten')).toMatchObject({
        valid: false,
        recordsChecked: 4,
        firstBrokenSequence: null,
        detail:
          'the trail does not end where the audit checkpoint says (4 records): records were rewritten, removed or added and the hashes recomputed without the audit key',
      });
      // the server writing on never makes the rewritten trail look checkpointed
      await s.mutate('rewritten', { '$.counters.b': 1 });
      expect(await s.verifyAudit('rewritten')).toMatchObject({
        valid: false,
        firstBrokenSequence: 4,
        detail: expect.stringContaining('(its trail had been rewritten)') as unknown,
      });
    });
  });

  tamper(
    'records cut from the end, with the head and an old copy of the state put back, are reported',
    async () => {
      const b = make();
      await seeded(b, 'cut', 2);
      const copied = await b.writer.state('cut'); // say, from a backup
      await withService(b, async (s) => {
        for (let i = 3; i <= 4; i++) await s.mutate('cut', { '$.counters.a': i });
      });
      const records = await b.writer.records('cut');
      await b.writer.setRecords('cut', records.slice(0, 2));
      await b.writer.setState('cut', copied);
      await withService(b, async (s) => {
        expect(await s.verifyAudit('cut')).toMatchObject({
          valid: false,
          detail: expect.stringContaining(
            'the trail does not end where the audit checkpoint says (4 records)',
          ) as unknown,
        });
      });
    },
  );

  tamper('a checkpoint edited while a server holds the model is carried into its next commit', async () => {
    const b = make();
    await withService(b, async (s) => {
      await s.createModel(counterSpec('held'));
      for (let i = 1; i <= 2; i++) await s.mutate('held', { '$.counters.a': i });
      // the revision stays: the server's copy is current, only the checkpoint is not its own
      await b.writer.setCheckpoint('held', '{not json');
      await s.mutate('held', { '$.counters.a': 3 });
      expect(await s.verifyAudit('held')).toMatchObject({
        valid: false,
        firstBrokenSequence: 2,
        detail: expect.stringContaining(
          'cycle 2 was committed on a model changed outside the server',
        ) as unknown,
      });
      await s.mutate('held', { '$.counters.a': 4 }); // and the next commit does not wash it out
      expect(await s.verifyAudit('held')).toMatchObject({ valid: false, firstBrokenSequence: 2 });
    });
  });

  tamper('a checkpoint removed, unreadable or edited is reported', async () => {
    const b = make();
    for (const id of ['removed', 'garbled', 'forged']) await seeded(b, id, 2);
    await b.writer.setCheckpoint('removed', null);
    await b.writer.setCheckpoint('garbled', '{not json');
    // make the checkpoint claim the edited state: its MAC no longer matches what it claims
    const edited = withCounter(await b.writer.state('forged'), 999);
    await b.writer.setState('forged', edited);
    const cp = JSON.parse((await b.writer.checkpoint('forged'))!) as Record<string, unknown>;
    await b.writer.setCheckpoint('forged', JSON.stringify({ ...cp, stateHash: stateHashOf(edited) }));
    await withService(b, async (s) => {
      expect(await s.verifyAudit('removed')).toMatchObject({
        valid: false,
        detail: 'the model has no audit checkpoint: it was removed outside the server',
      });
      expect(await s.verifyAudit('garbled')).toMatchObject({
        valid: false,
        detail: "the model's audit checkpoint is unreadable: it was edited outside the server",
      });
      // the newest record's stateHash catches the state first; the checkpoint would too
      expect(await s.verifyAudit('forged')).toMatchObject({ valid: false });
      const seal = await s.store.auditSeal('forged');
      expect(seal?.checkpoint.status).toBe('forged');
    });
  });
});

// ------------------------------------------------------------ the key

describe('audit key', () => {
  it('is created in the config directory, not beside the store, mode 0600, on first start, and kept', async () => {
    const config = mkdtempSync(join(tmpdir(), 'mw-config-'));
    const env = { XDG_CONFIG_HOME: config };
    const path = tempDbPath();
    const keyFile = join(config, 'modelworks', AUDIT_KEY_FILE_NAME);
    expect(defaultAuditKeyFile(env)).toBe(keyFile);
    const first = await openStore(`sqlite:${path}`, env);
    expect(existsSync(join(dirname(path), AUDIT_KEY_FILE_NAME))).toBe(false);
    const st = statSync(keyFile);
    expect(st.isFile()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    const text = readFileSync(keyFile, 'utf8');
    expect(text.trim()).toMatch(/^[0-9a-f]{64}$/);
    const s = new CalcService(first);
    await s.createModel(counterSpec('k'));
    await s.mutate('k', { '$.counters.a': 1 });
    await s.close();
    // the same file opens the store again, unchanged
    await withService(
      { name: 'sqlite', open: () => openStore(`sqlite:${path}`, env), writer: {} as Writer },
      async (again) => {
        expect(await again.verifyAudit('k')).toMatchObject({
          valid: true,
          detail: 'ok',
          keyId: AuditKey.fromText(text, 'x').id,
        });
      },
    );
    expect(readFileSync(keyFile, 'utf8')).toBe(text);
  });

  it('is made private whatever the umask', async () => {
    const old = process.umask(0o000);
    try {
      const config = mkdtempSync(join(tmpdir(), 'mw-config-'));
      await (await openStore(`sqlite:${tempDbPath()}`, { XDG_CONFIG_HOME: config })).close();
      expect(statSync(join(config, 'modelworks', AUDIT_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it('a SQLite store opened with another key refuses to open and says which', async () => {
    const path = tempDbPath();
    await seeded(
      { name: 'sqlite', open: () => Promise.resolve(SqliteStore.open(path)), writer: {} as Writer },
      'k',
      1,
    );
    const stranger = AuditKey.fromText('y'.repeat(40), 'a stranger');
    const own = AuditKey.fromFile(defaultAuditKeyFile());
    expect(() => SqliteStore.open(path, { auditKey: stranger })).toThrow(
      expect.objectContaining({
        code: 'STORE_FAILURE',
        message: expect.stringContaining(
          `is checkpointed with audit key ${own.id}, but this server's audit key (from a stranger) is ${stranger.id}`,
        ) as unknown,
        details: expect.objectContaining({ cause: 'AUDIT_KEY_MISMATCH' }) as unknown,
      }) as unknown,
    );
  });

  it.skipIf(!POSTGRES_URL)(
    `a PostgreSQL store opened with another key refuses to open${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const schema = freshSchema();
      await (await openPostgres(schema)).close();
      const stranger = AuditKey.fromText('y'.repeat(40), 'a stranger');
      await expect(openPostgres(schema, stranger)).rejects.toMatchObject({
        code: 'STORE_FAILURE',
        details: { cause: 'AUDIT_KEY_MISMATCH', keyId: stranger.id },
      });
    },
  );

  it("a model checkpointed with another key is reported by verify_audit (the store's own key id removed)", async () => {
    const path = tempDbPath();
    const b: Backend = {
      name: 'sqlite',
      open: () => Promise.resolve(SqliteStore.open(path)),
      writer: sqlWriter(sqliteQuery(path)),
    };
    await seeded(b, 'k', 2);
    const own = AuditKey.fromFile(defaultAuditKeyFile());
    await sqliteQuery(path)(`DELETE FROM audit_meta WHERE name = 'key_id'`, []);
    const stranger = AuditKey.fromText('y'.repeat(40), 'a stranger');
    const s = new CalcService(SqliteStore.open(path, { auditKey: stranger }));
    try {
      expect(await s.verifyAudit('k')).toEqual({
        valid: false,
        recordsChecked: 2,
        firstBrokenSequence: null,
        detail: `the model's audit checkpoint was made with audit key ${own.id}, not this server's key ${stranger.id}: the server runs with the wrong key, or the checkpoint was replaced`,
        keyId: stranger.id,
      });
    } finally {
      await s.close();
    }
  });

  it('comes from MODELWORKS_AUDIT_KEY, else MODELWORKS_AUDIT_KEY_FILE, else the config directory', async () => {
    const dir = dirname(tempDbPath());
    const config = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'mw-config-')) };
    const fallback = defaultAuditKeyFile(config);
    const fromEnv = resolveAuditKey({ ...config, MODELWORKS_AUDIT_KEY: 'k'.repeat(32) });
    expect(fromEnv.id).toBe(AuditKey.fromText('k'.repeat(32), 'x').id);
    expect(fromEnv.source).toBe('MODELWORKS_AUDIT_KEY');
    expect(existsSync(fallback)).toBe(false); // the env key needs no file
    const named = join(dir, 'named.key');
    writeFileSync(named, `${'n'.repeat(40)}\n`, { mode: 0o600 });
    expect(resolveAuditKey({ ...config, MODELWORKS_AUDIT_KEY_FILE: named }).id).toBe(
      AuditKey.fromText('n'.repeat(40), 'x').id,
    );
    const made = resolveAuditKey(config);
    expect(statSync(fallback).mode & 0o777).toBe(0o600);
    expect(resolveAuditKey(config).id).toBe(made.id);
    // through openStore: the env key is the store's key
    const path = join(dir, 'env.db');
    const store = await openStore(`sqlite:${path}`, { ...config, MODELWORKS_AUDIT_KEY: 'e'.repeat(32) });
    await store.close();
    expect(existsSync(join(dir, AUDIT_KEY_FILE_NAME))).toBe(false);
    await expect(openStore(`sqlite:${path}`, config)).rejects.toMatchObject({
      details: { cause: 'AUDIT_KEY_MISMATCH' },
    });
  });

  it('refuses a bad setting at start-up with a clear message', async () => {
    const dir = dirname(tempDbPath());
    const fallback = join(dir, 'audit.key');
    expect(() => resolveAuditKey({ MODELWORKS_AUDIT_KEY: 'short' })).toThrow(
      'the audit key from MODELWORKS_AUDIT_KEY has 5 characters; it needs at least 32',
    );
    expect(() =>
      resolveAuditKey({ MODELWORKS_AUDIT_KEY: 'k'.repeat(32), MODELWORKS_AUDIT_KEY_FILE: fallback }),
    ).toThrow('both MODELWORKS_AUDIT_KEY and MODELWORKS_AUDIT_KEY_FILE are set; set one of them');
    const open = join(dir, 'open.key');
    writeFileSync(open, 'o'.repeat(40));
    chmodSync(open, 0o644);
    expect(() => resolveAuditKey({ MODELWORKS_AUDIT_KEY_FILE: open })).toThrow(
      `the audit key file ${open} is open to other users (mode 0644); make it private: chmod 600 ${open}`,
    );
    await expect(
      openStore(`sqlite:${join(dir, 'x.db')}`, { MODELWORKS_AUDIT_KEY: 'short' }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(existsSync(join(dir, 'x.db'))).toBe(false); // refused before anything was opened
  });
});

// ------------------------------------------------------------ stores written before checkpoints

/** Turns a store made by this code into one as the code before audit checkpoints left it. */
async function downgrade(
  q: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
  kind: 'sqlite' | 'postgres',
  ids: string[],
): Promise<void> {
  const w = sqlWriter(q);
  for (const id of ids) {
    // records without state hashes, chained as the old code chained them
    const records = await w.records(id);
    let prev = GENESIS_HASH;
    for (const r of records) {
      delete r.stateHash;
      r.prevHash = prev;
      r.hash = recordHash(prev, r);
      prev = r.hash;
    }
    await w.setRecords(id, records);
  }
  await q('ALTER TABLE models DROP COLUMN audit_checkpoint', []);
  await q('DROP TABLE audit_meta', []);
  await q('ALTER TABLE audit DROP COLUMN history_row', []); // schema step 3 came later still
  if (kind === 'sqlite') await q('PRAGMA user_version = 1', []);
  else await q('DELETE FROM schema_migrations WHERE version > 1', []);
}

describe.each([
  ['sqlite', undefined],
  ['postgres', POSTGRES_URL ? undefined : POSTGRES_SKIP_REASON],
] as const)('a %s store from before audit checkpoints', (kind, skip) => {
  it.skipIf(skip !== undefined)(
    'loads and verifies, is checkpointed as it stands, and is guarded from then on',
    async () => {
      let b: Backend;
      let q: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
      if (kind === 'sqlite') {
        const path = tempDbPath();
        q = sqliteQuery(path);
        b = { name: kind, open: () => Promise.resolve(SqliteStore.open(path)), writer: sqlWriter(q) };
      } else {
        const schema = freshSchema();
        q = postgresQuery(schema);
        b = { name: kind, open: () => openPostgres(schema), writer: sqlWriter(q) };
      }
      await seeded(b, 'old', 3);
      await seeded(b, 'older', 2);
      await downgrade(q, kind, ['old', 'older']);
      expect((await b.writer.records('old')).some((r) => r.stateHash !== undefined)).toBe(false);

      await withService(b, async (s) => {
        // loads and verifies: the upgrade checkpointed the trail and state as they stood
        expect(await s.verifyAudit('old')).toMatchObject({ ...OK, recordsChecked: 3 });
        expect(await s.getField('old', '$.total')).toBe(3);
        expect(JSON.parse((await b.writer.checkpoint('old'))!)).toMatchObject({ since: 3, nextSequence: 3 });
        await s.mutate('old', { '$.counters.b': 1 });
        expect(await s.verifyAudit('old')).toMatchObject({ ...OK, recordsChecked: 4 });
      });
      // from then on a state edit is reported, with or without a new record since the upgrade
      await b.writer.setState('old', withCounter(await b.writer.state('old'), 999));
      await b.writer.setState('older', withCounter(await b.writer.state('older'), 999));
      await withService(b, async (s) => {
        expect(await s.verifyAudit('old')).toMatchObject({
          valid: false,
          detail: 'the stored state is not the state record 3 committed: it was edited outside the server',
        });
        expect(await s.verifyAudit('older')).toMatchObject({
          valid: false,
          detail:
            'the stored state is not the state the audit checkpoint covers: it was edited outside the server',
        });
      });
    },
  );
});
