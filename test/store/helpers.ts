/**
 * Shared by the store tests: the contract suite every backend runs unchanged, test models, and the
 * throwaway PostgreSQL schema each test file works in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  historyRowsOf,
  type JsonObject,
  type ModelSpec,
  type MutationResult,
  type RuntimeState,
} from '../../src/calc/index.js';
import { buildAuditRecord, buildReplaceRecord, recordHash, verifyChain } from '../../src/service/audit.js';
import { stateHashOf } from '../../src/store/audit-chain.js';
import { AuditKey } from '../../src/store/audit-key.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import {
  committedState,
  GENESIS_HASH,
  MAX_BLOB_BYTES,
  type AuditRecord,
  type Store,
} from '../../src/store/store.js';

export const POSTGRES_URL = process.env.MODELWORKS_TEST_POSTGRES_URL;
export const POSTGRES_SKIP_REASON =
  'MODELWORKS_TEST_POSTGRES_URL is not set (.ci/run starts a throwaway PostgreSQL and sets it)';
if (!POSTGRES_URL) console.warn(`[store tests] PostgreSQL runs skipped: ${POSTGRES_SKIP_REASON}`);

/** A model the service can run: four counters and their derived total. */
export const COUNTER_SPEC = {
  id: 'counter',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      counters: {
        type: 'object',
        properties: {
          a: { type: 'integer', default: 0 },
          b: { type: 'integer', default: 0 },
          c: { type: 'integer', default: 0 },
          d: { type: 'integer', default: 0 },
        },
      },
      total: { type: 'integer', readOnly: true },
      note: { type: 'string' },
      attachment: { type: 'object' },
    },
  },
  derivations: [{ path: '$.total', expr: 'counters.a + counters.b + counters.c + counters.d' }],
};

export function counterSpec(id: string): Record<string, unknown> {
  return { ...structuredClone(COUNTER_SPEC), id };
}

// ------------------------------------------------------------ temp files and schemas

const tempDirs: string[] = [];
export function tempDbPath(name = 'store.db'): string {
  const dir = mkdtempSync(join(tmpdir(), 'mw-store-'));
  tempDirs.push(dir);
  return join(dir, name);
}
afterAll(() => {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let schemaCounter = 0;
const schemas: string[] = [];
/** A fresh schema name per call, so parallel test files never see each other's models. */
export function freshSchema(): string {
  const name = `t_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`;
  schemas.push(name);
  return name;
}
afterAll(async () => {
  if (!POSTGRES_URL || schemas.length === 0) return;
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  for (const s of schemas.splice(0)) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await c.end();
});

/** The audit key the PostgreSQL tests share (the default key file would live in the user's home). */
export const TEST_AUDIT_KEY_TEXT = 'modelworks store tests: a key of at least 32 characters';
export const TEST_AUDIT_KEY = AuditKey.fromText(TEST_AUDIT_KEY_TEXT, 'the store tests');

/** The connection URL with a search_path, so a second process or store sees the same schema. */
export function openPostgres(schema: string, auditKey: AuditKey = TEST_AUDIT_KEY): Promise<PostgresStore> {
  return PostgresStore.open(POSTGRES_URL!, { schema, auditKey });
}

/** Direct access to the tables, for tampering. */
export async function withPg<T>(schema: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A store URL for child processes: a fresh schema (created now, dropped after the file), named in
 * the URL's search_path so every process that opens it sees the same models.
 */
export async function freshPostgresUrl(): Promise<string> {
  const schema = freshSchema();
  await withPg(schema, (c) => c.query(`CREATE SCHEMA ${schema}`));
  const url = new URL(POSTGRES_URL!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export type Opener = () => Promise<Store>;

export function sqliteOpener(): Opener {
  return () => Promise.resolve(SqliteStore.open(tempDbPath()));
}

export function postgresOpener(): Opener {
  return () => openPostgres(freshSchema());
}

// ------------------------------------------------------------ contract suite

function spec(id: string, version = '1.0.0', extra: Record<string, unknown> = {}): ModelSpec {
  return { id, version, schema: { type: 'object' }, ...extra } as unknown as ModelSpec;
}

function state(base: JsonObject, derived: Record<string, number> = {}): RuntimeState {
  return { base, derived, meta: {} };
}

const emptyResult: MutationResult = {
  success: true,
  mutatedPaths: [],
  derivedUpdated: [],
  metaUpdated: [],
  flaggedConstraints: [],
  dispatchedEffects: [],
  traces: [],
};

function record(
  modelId: string,
  sequence: number,
  prevHash: string,
  mutations: Record<string, unknown>,
  traces: unknown[] = [],
): AuditRecord {
  return buildAuditRecord({
    modelId,
    sequence,
    modelVersion: '1.0.0',
    source: 'client',
    mutations,
    result: { ...emptyResult, derivedUpdated: ['$.total'], traces: traces as MutationResult['traces'] },
    prevHash,
  });
}

function replaceRecord(modelId: string, sequence: number, prevHash: string, version: string): AuditRecord {
  return buildReplaceRecord({ modelId, sequence, modelVersion: version, source: 'restore', prevHash });
}

/** Commits `n` cycles on a freshly inserted model; returns the records. */
async function cycles(store: Store, id: string, n: number): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (let i = 0; i < n; i++) {
    const h = (await store.head(id))!;
    const r = record(id, h.nextSequence, h.lastHash, { '$.x': i });
    expect(await store.commitCycle(id, h.revision, committedState(state({ x: i })), r)).toBe(true);
    out.push(r);
  }
  return out;
}

/** The one contract every store meets; run unchanged against memory, sqlite and postgres. */
export function describeStore(name: string, open: Opener | undefined, skipReason?: string): void {
  if (!open) {
    describe.skip(`Store contract: ${name} (skipped: ${skipReason ?? 'not available'})`, () => {
      it('is skipped', () => {});
    });
    return;
  }
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('registers a model at revision 0 with its first spec version', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 1 }, { '$.y': 2 }));
      expect(await store.head('m1')).toEqual({ revision: 0, nextSequence: 0, lastHash: GENESIS_HASH });
      const loaded = await store.loadModel('m1');
      expect(loaded?.spec).toEqual(spec('m1'));
      expect(loaded?.state).toEqual(state({ x: 1 }, { '$.y': 2 }));
      expect(loaded?.head.revision).toBe(0);
      const versions = await store.specVersions('m1');
      expect(versions.map((v) => v.version)).toEqual(['1.0.0']);
      expect(Number.isNaN(Date.parse(versions[0]!.createdAt))).toBe(false);
    });

    it('hands each load its own copy of the state (a reader changing it changes nothing stored)', async () => {
      // the memory store keeps insertModel's state as given (store.ts): its reads must copy it
      await store.insertModel('m1', spec('m1'), state({ x: 1, rows: [{ a: 1 }] }, { '$.y': 2 }));
      const first = (await store.loadModel('m1'))!.state;
      (first.base as { x: number }).x = 99;
      (first.base as { rows: { a: number }[] }).rows[0]!.a = 99;
      first.derived['$.y'] = 99;
      expect((await store.loadModel('m1'))?.state).toEqual(state({ x: 1, rows: [{ a: 1 }] }, { '$.y': 2 }));
    });

    it('refuses a taken id with MODEL_EXISTS and leaves the first model alone', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 1 }));
      await expect(store.insertModel('m1', spec('m1', '9.9.9'), state({ x: 2 }))).rejects.toMatchObject({
        code: 'MODEL_EXISTS',
      });
      expect((await store.loadModel('m1'))?.state.base).toEqual({ x: 1 });
      expect((await store.specVersions('m1')).length).toBe(1);
    });

    it('answers undefined / empty for unknown models', async () => {
      expect(await store.head('nope')).toBeUndefined();
      expect(await store.loadModel('nope')).toBeUndefined();
      expect(await store.auditRecords('nope')).toEqual([]);
      expect(await store.specVersions('nope')).toEqual([]);
      expect(await store.deleteModel('nope')).toBe(false);
      await store.saveSnapshot('nope', { a: 1 }); // silently nothing
    });

    it('lists model ids in JS string order', async () => {
      for (const id of ['b', 'a', 'Z', '\u{1F600}', '\uFFFD', '10', '9'])
        await store.insertModel(id, spec(id), state({}));
      expect(await store.listModelIds()).toEqual(['10', '9', 'Z', 'a', 'b', '\u{1F600}', '\uFFFD']);
    });

    it('commits a cycle: new state, audit record and head together', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      const r = record('m1', 0, GENESIS_HASH, { '$.x': 5 });
      expect(await store.commitCycle('m1', 0, committedState(state({ x: 5 }, { '$.y': 10 })), r)).toBe(true);
      expect(await store.head('m1')).toEqual({ revision: 1, nextSequence: 1, lastHash: r.hash });
      expect((await store.loadModel('m1'))?.state).toEqual(state({ x: 5 }, { '$.y': 10 }));
      expect(await store.auditRecords('m1')).toEqual([r]);
    });

    it('gives back the history ring the cycles carried (a durable store keeps a row per cycle)', async () => {
      type Ring = NonNullable<RuntimeState['history']>;
      const ring: Ring = [
        { timestamp: 1, changes: [{ kind: 'key', path: ['x'], had: true, old: 0 }], after: [] },
        {
          timestamp: 2,
          changes: [{ kind: 'key', path: ['x'], had: true, old: 5 }],
          after: [{ kind: 'key', path: ['lazy'], had: false }],
        },
        { timestamp: 3, changes: [{ kind: 'length', path: ['items'], length: 2 }], after: [] },
      ];
      const rows = historyRowsOf(ring);
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      for (let i = 0; i < ring.length; i++) {
        const h = (await store.head('m1'))!;
        const withRing = { ...state({ x: i }), history: ring.slice(0, i + 1) };
        // each cycle's row is made right after it: the entry before it has its `after` by then
        const committed = { ...committedState(withRing), historyRow: () => rows[i] };
        const r = record('m1', h.nextSequence, h.lastHash, { '$.x': i });
        expect(await store.commitCycle('m1', h.revision, committed, r)).toBe(true);
      }
      expect((await store.loadModel('m1'))?.state.history).toEqual(ring);
      // a replace starts history afresh
      const h = (await store.head('m1'))!;
      const replaced = replaceRecord('m1', h.nextSequence, h.lastHash, '1.0.0');
      expect(await store.replaceModel('m1', h.revision, spec('m1'), state({ x: 9 }), replaced)).toBe(true);
      expect((await store.loadModel('m1'))?.state.history ?? []).toEqual([]);
    });

    it('refuses a cycle at a stale revision and writes nothing', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      const [first] = await cycles(store, 'm1', 1);
      const stale = record('m1', 0, GENESIS_HASH, { '$.x': 99 });
      expect(await store.commitCycle('m1', 0, committedState(state({ x: 99 })), stale)).toBe(false);
      expect(await store.head('m1')).toEqual({ revision: 1, nextSequence: 1, lastHash: first!.hash });
      expect((await store.loadModel('m1'))?.state.base).toEqual({ x: 0 });
      expect(await store.auditRecords('m1')).toEqual([first]);
      expect(
        await store.commitCycle('ghost', 0, committedState(state({})), record('ghost', 0, GENESIS_HASH, {})),
      ).toBe(false);
    });

    it('seals each record itself: a hash the caller supplies is not trusted', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      const forged = { ...record('m1', 0, GENESIS_HASH, { '$.x': 1 }), hash: 'f'.repeat(64) };
      expect(await store.commitCycle('m1', 0, committedState(state({ x: 1 })), forged)).toBe(true);
      const [stored] = await store.auditRecords('m1');
      expect(stored!.hash).toBe(recordHash(GENESIS_HASH, forged));
      expect((await store.head('m1'))!.lastHash).toBe(stored!.hash);
      expect(verifyChain(await store.auditRecords('m1')).valid).toBe(true);
    });

    it('refuses a record that does not follow the end of the chain', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      const [first] = await cycles(store, 'm1', 1);
      const h = (await store.head('m1'))!;
      const astray = record('m1', h.nextSequence, GENESIS_HASH, { '$.x': 2 });
      expect(await store.commitCycle('m1', h.revision, committedState(state({ x: 2 })), astray)).toBe(false);
      const skipped = record('m1', h.nextSequence + 1, h.lastHash, { '$.x': 3 });
      expect(await store.commitCycle('m1', h.revision, committedState(state({ x: 3 })), skipped)).toBe(false);
      expect(await store.auditRecords('m1')).toEqual([first]);
      expect(await store.head('m1')).toEqual(h);
    });

    it('lets exactly one of two racing cycles at the same revision commit', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      const a = record('m1', 0, GENESIS_HASH, { '$.x': 1 });
      const b = record('m1', 0, GENESIS_HASH, { '$.x': 2 });
      const results = await Promise.all([
        store.commitCycle('m1', 0, committedState(state({ x: 1 })), a),
        store.commitCycle('m1', 0, committedState(state({ x: 2 })), b),
      ]);
      expect(results.filter(Boolean).length).toBe(1);
      const winner = results[0] ? a : b;
      expect(await store.auditRecords('m1')).toEqual([winner]);
      expect((await store.loadModel('m1'))?.state.base).toEqual({ x: results[0] ? 1 : 2 });
    });

    it('keeps the trail ascending and hash-chained; records read back hash as written', async () => {
      await store.insertModel('m1', spec('m1'), state({}));
      const written = await cycles(store, 'm1', 5);
      // awkward content: integer-like keys, non-BMP text, NUL, nulls inside traces, nested arrays
      const h = (await store.head('m1'))!;
      const odd = record(
        'm1',
        h.nextSequence,
        h.lastHash,
        {
          '$.m["10"]': 'x',
          '$.m["9"]': '\u{1F600} \u0000 é',
          '$.arr[0]': [1, [2, null], { b: 1, a: -0.5e-7 }],
        },
        [{ targetPath: '$.t', expression: 'a', inputPaths: [], result: null, errorMessage: null }],
      );
      expect(await store.commitCycle('m1', h.revision, committedState(state({})), odd)).toBe(true);
      written.push(odd);
      const trail = await store.auditRecords('m1');
      expect(trail).toEqual(written);
      expect(trail.map((r) => r.sequence)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(verifyChain(trail)).toEqual({
        valid: true,
        recordsChecked: 6,
        firstBrokenSequence: null,
        detail: 'ok',
      });
    });

    it('replaces spec and state under compare-and-set with its record, recording new spec versions', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      const [r] = await cycles(store, 'm1', 1);
      const replacing = async (revision: number, v: string, s: RuntimeState, extra = {}) => {
        const h = (await store.head('m1'))!;
        const rec = replaceRecord('m1', h.nextSequence, h.lastHash, v);
        const ok = await store.replaceModel('m1', revision, spec('m1', v, extra), s, rec);
        return { ok, rec };
      };
      expect((await replacing(0, '2.0.0', state({ x: 7 }))).ok).toBe(false);
      const { ok, rec } = await replacing(1, '2.0.0', state({ x: 7 }));
      expect(ok).toBe(true);
      // one more record, sealed when the call returns: the chain moves on
      expect(rec.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(await store.head('m1')).toEqual({ revision: 2, nextSequence: 2, lastHash: rec.hash });
      expect(await store.auditRecords('m1')).toEqual([r, rec]);
      const loaded = await store.loadModel('m1');
      expect(loaded?.spec.version).toBe('2.0.0');
      expect(loaded?.state.base).toEqual({ x: 7 });
      // a record that does not follow the end of the chain is refused
      const astray = replaceRecord('m1', 2, GENESIS_HASH, '2.0.0');
      expect(await store.replaceModel('m1', 2, spec('m1', '2.0.0'), state({ x: 9 }), astray)).toBe(false);
      // same spec again (a restore): no new version
      expect((await replacing(2, '2.0.0', state({ x: 8 }))).ok).toBe(true);
      expect((await replacing(3, '3.0.0', state({}), { constants: { k: 1 } })).ok).toBe(true);
      const versions = await store.specVersions('m1');
      expect(versions.map((v) => v.version)).toEqual(['1.0.0', '2.0.0', '3.0.0']);
      expect(versions[2]!.spec).toEqual(spec('m1', '3.0.0', { constants: { k: 1 } }));
      const ghost = replaceRecord('ghost', 0, GENESIS_HASH, '1.0.0');
      expect(await store.replaceModel('ghost', 0, spec('ghost'), state({}), ghost)).toBe(false);
      // the chain continues after a replace
      const h = (await store.head('m1'))!;
      const next = record('m1', h.nextSequence, h.lastHash, { '$.x': 1 });
      expect(await store.commitCycle('m1', h.revision, committedState(state({ x: 1 })), next)).toBe(true);
      expect(verifyChain(await store.auditRecords('m1')).valid).toBe(true);
    });

    // the memory store has no outside writer: its records carry no state hash, it keeps no checkpoint
    it.skipIf(name === 'memory')(
      'hashes the committed state into each record, as the text it keeps',
      async () => {
        await store.insertModel('m1', spec('m1'), state({ x: 0 }));
        const h = (await store.head('m1'))!;
        const committed = state({ x: 5, s: '\u{1F600} \u0000' }, { '$.y': 10 });
        const r = record('m1', 0, h.lastHash, { '$.x': 5 });
        expect(await store.commitCycle('m1', 0, committedState(committed), r)).toBe(true);
        const [stored] = await store.auditRecords('m1');
        expect(stored!.stateHash).toBe(stateHashOf(JSON.stringify(committed)));
        const seal = (await store.auditSeal('m1'))!;
        expect(seal.stateHash).toBe(stored!.stateHash);
        expect(seal.head).toEqual(await store.head('m1'));
        expect(seal.checkpoint.status).toBe('valid');
        expect(await store.auditSeal('ghost')).toBeUndefined();
      },
    );

    it('deletes a model with its trail, versions and snapshots; the id can be reused', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      await store.insertModel('m2', spec('m2'), state({ x: 0 }));
      await cycles(store, 'm1', 3);
      await cycles(store, 'm2', 2);
      await store.saveSnapshot('m1', { modelId: 'm1', baseDoc: { x: 2 } });
      expect(await store.deleteModel('m1')).toBe(true);
      expect(await store.deleteModel('m1')).toBe(false);
      expect(await store.head('m1')).toBeUndefined();
      expect(await store.auditRecords('m1')).toEqual([]);
      expect(await store.specVersions('m1')).toEqual([]);
      expect(await store.listModelIds()).toEqual(['m2']);
      expect((await store.auditRecords('m2')).length).toBe(2);
      await store.insertModel('m1', spec('m1', '5.0.0'), state({ x: 9 }));
      expect(await store.head('m1')).toEqual({ revision: 0, nextSequence: 0, lastHash: GENESIS_HASH });
      await cycles(store, 'm1', 2);
      expect(verifyChain(await store.auditRecords('m1')).valid).toBe(true);
      expect((await store.specVersions('m1')).map((v) => v.version)).toEqual(['5.0.0']);
    });

    it('stores blobs content-addressed and deduplicated', async () => {
      const data = Buffer.from('hello, blob \u0000\u00ff', 'utf8');
      const ref = await store.putBlob(data, 'text/plain');
      expect(ref.$blobId).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(ref).toEqual({ $blobId: ref.$blobId, $mediaType: 'text/plain', $bytes: data.length });
      // the same bytes again: the same id, the first media type
      expect(await store.putBlob(Buffer.from(data), 'application/octet-stream')).toEqual(ref);
      const back = await store.getBlob(ref.$blobId);
      expect(back?.data.equals(data)).toBe(true);
      expect(back?.$mediaType).toBe('text/plain');
      expect(back?.$bytes).toBe(data.length);
      expect(await store.getBlob('sha256:' + '0'.repeat(64))).toBeUndefined();
      const empty = await store.putBlob(Buffer.alloc(0), 'application/octet-stream');
      expect((await store.getBlob(empty.$blobId))?.data.length).toBe(0);
    });

    it('refuses a blob over 50 MB with BLOB_TOO_LARGE', async () => {
      await expect(
        store.putBlob(Buffer.alloc(MAX_BLOB_BYTES + 1), 'application/octet-stream'),
      ).rejects.toMatchObject({
        code: 'BLOB_TOO_LARGE',
      });
    });

    it('accepts snapshots and watchers without side effects on the model', async () => {
      await store.insertModel('m1', spec('m1'), state({ x: 0 }));
      await store.saveSnapshot('m1', { modelId: 'm1', baseDoc: { x: 0 }, derivedCache: {}, metaCache: {} });
      const seen: string[] = [];
      const stop = store.watch((id) => seen.push(id));
      await cycles(store, 'm1', 1);
      stop();
      expect(seen).toEqual([]); // never told about its own change
      expect(await store.head('m1')).toMatchObject({ revision: 1, nextSequence: 1 });
    });

    it('fails with a structured error after close, without crashing', async () => {
      await store.close();
      if (store.kind === 'memory') return; // the memory store has nothing to close
      await expect(store.head('m1')).rejects.toMatchObject({ code: 'STORE_FAILURE' });
      store = await open(); // for afterEach
    });
  });
}
