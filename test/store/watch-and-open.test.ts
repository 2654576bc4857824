/** Cross-process change notifications (`watch`) and choosing a store from its spec text. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { JsonObject, ModelSpec, RuntimeState } from '../../src/calc/index.js';
import { CalcService, type ModelEvent } from '../../src/service/calc-service.js';
import { buildAuditRecord } from '../../src/service/audit.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { defaultStorePath, openStore, parseStoreSpec } from '../../src/store/open-store.js';
import type { PostgresStore } from '../../src/store/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { committedState, type Store } from '../../src/store/store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  tempDbPath,
} from './helpers.js';

const spec = { id: 'w', version: '1.0.0', schema: { type: 'object' } } as unknown as ModelSpec;
const state = (base: JsonObject): RuntimeState => ({ base, derived: {}, meta: {} });

async function commitOne(store: Store, id: string): Promise<void> {
  const h = (await store.head(id))!;
  const record = buildAuditRecord({
    modelId: id,
    sequence: h.nextSequence,
    modelVersion: '1.0.0',
    source: 'client',
    mutations: { '$.x': h.revision },
    result: {
      success: true,
      mutatedPaths: [],
      derivedUpdated: [],
      metaUpdated: [],
      flaggedConstraints: [],
      dispatchedEffects: [],
      traces: [],
    },
    prevHash: h.lastHash,
  });
  expect(await store.commitCycle(id, h.revision, committedState(state({ x: h.revision })), record)).toBe(
    true,
  );
}

/**
 * A marker model's notification tells that everything written before it has been delivered
 * (NOTIFY keeps commit order; one SQLite poll reports every change up to its read): no sleeping.
 */
async function markerSeen(writer: Store, seen: string[], marker: string): Promise<void> {
  await writer.insertModel(marker, spec, state({ x: 0 }));
  await vi.waitFor(() => expect(seen).toContain(marker), { timeout: 5000, interval: 20 });
}

async function notifiedAcross(a: Store, b: Store): Promise<void> {
  const seenByA: string[] = [];
  const seenByB: string[] = [];
  const stopA = a.watch((id) => seenByA.push(id));
  const stopB = b.watch((id) => seenByB.push(id));
  await (b as Partial<PostgresStore>).ready?.();
  await (a as Partial<PostgresStore>).ready?.();
  await a.insertModel('w', spec, state({ x: 0 }));
  await commitOne(a, 'w');
  await markerSeen(a, seenByB, 'm1'); // the insert's and the commit's notifications are all in
  expect(seenByB).toContain('w');
  const before = seenByB.length;
  await a.deleteModel('w');
  await markerSeen(a, seenByB, 'm2');
  // the delete, and nothing else, moved the count (one poll may carry both, in any order)
  expect(new Set(seenByB.slice(before))).toEqual(new Set(['w', 'm2']));
  // a change by B reaches A: had A been told of its own changes, those came first
  await markerSeen(b, seenByA, 'm3');
  expect(seenByA).toEqual(['m3']); // never told about its own changes
  expect(new Set(seenByB)).toEqual(new Set(['w', 'm1', 'm2']));
  stopA();
  stopB();
}

describe('watch: changes made by another connection', () => {
  it('sqlite (polling): the other store hears of the change, the writer does not', async () => {
    const path = tempDbPath();
    const a = SqliteStore.open(path, { pollMs: 50 });
    const b = SqliteStore.open(path, { pollMs: 50 });
    try {
      await notifiedAcross(a, b);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it.skipIf(!POSTGRES_URL)(
    `postgres (LISTEN/NOTIFY)${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const schema = freshSchema();
      const a = await openPostgres(schema);
      const b = await openPostgres(schema);
      try {
        await notifiedAcross(a, b);
      } finally {
        await a.close();
        await b.close();
      }
    },
  );

  it('a service drops its stale copy and tells subscribers when another service writes', async () => {
    const path = tempDbPath();
    const one = new CalcService(SqliteStore.open(path, { pollMs: 50 }));
    const two = new CalcService(SqliteStore.open(path, { pollMs: 50 }));
    try {
      await one.createModel(counterSpec('shared'));
      const events: ModelEvent[] = [];
      two.subscribe('shared', (e) => events.push(e));
      expect(await two.getField('shared', '$.total')).toBe(0);
      await one.mutate('shared', { '$.counters.a': 4 });
      await vi.waitFor(() => expect(events).toContainEqual({ kind: 'changed', modelId: 'shared' }), {
        timeout: 5000,
        interval: 50,
      });
      expect(await two.getField('shared', '$.total')).toBe(4);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('openStore', () => {
  it('parses every spelling', () => {
    const env = { XDG_DATA_HOME: '/data' };
    expect(parseStoreSpec(undefined, env)).toEqual({
      kind: 'sqlite',
      path: '/data/modelworks/modelworks.db',
    });
    expect(parseStoreSpec('  ', env)).toEqual({ kind: 'sqlite', path: '/data/modelworks/modelworks.db' });
    expect(parseStoreSpec('memory')).toEqual({ kind: 'memory' });
    expect(parseStoreSpec('sqlite:/tmp/x.db')).toEqual({ kind: 'sqlite', path: '/tmp/x.db' });
    expect(parseStoreSpec('sqlite:rel/x')).toEqual({ kind: 'sqlite', path: 'rel/x' });
    expect(parseStoreSpec('sqlite:///abs/x.sqlite')).toEqual({ kind: 'sqlite', path: '/abs/x.sqlite' });
    expect(parseStoreSpec('./state/models.db')).toEqual({ kind: 'sqlite', path: './state/models.db' });
    expect(parseStoreSpec('postgres://u@h:5432/db')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h:5432/db',
    });
    expect(parseStoreSpec('postgresql://u@h/db')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
  });

  it('falls back to ~/.local/share without an absolute XDG_DATA_HOME', () => {
    expect(defaultStorePath({})).toMatch(/\.local\/share\/modelworks\/modelworks\.db$/);
    expect(defaultStorePath({ XDG_DATA_HOME: 'relative' })).toMatch(
      /\.local\/share\/modelworks\/modelworks\.db$/,
    );
  });

  it('refuses unknown schemes and empty paths with a clear error', () => {
    for (const bad of ['mysql://h/db', 'redis:', 'sqlite:', 'models.json', 'http://h/x.db']) {
      expect(() => parseStoreSpec(bad), bad).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as unknown,
      );
    }
    expect(() => parseStoreSpec('mysql://h/db')).toThrow(
      /unknown store 'mysql:\/\/h\/db': use memory, sqlite:PATH/,
    );
  });

  it('opens memory and sqlite stores, creating the folder', async () => {
    const mem = await openStore('memory');
    expect(mem).toBeInstanceOf(MemoryStore);
    await mem.close();
    const dir = mkdtempSync(join(tmpdir(), 'mw-open-'));
    try {
      const path = join(dir, 'deep', 'er', 'm.db');
      const s = await openStore(`sqlite:${path}`);
      expect(s.kind).toBe('sqlite');
      expect(existsSync(path)).toBe(true);
      await s.close();
      const again = await openStore(path); // bare .db path, same file, schema already there
      expect(await again.listModelIds()).toEqual([]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports an unreachable PostgreSQL as STORE_FAILURE without the password', async () => {
    const err = (await openStore('postgres://me:secret@127.0.0.1:1/none').catch(
      (e: unknown) => e,
    )) as Error & {
      code: string;
    };
    expect(err.code).toBe('STORE_FAILURE');
    expect(err.message).toContain('127.0.0.1:1');
    expect(err.message).not.toContain('secret');
  });

  it('refuses a file that is not a SQLite database with STORE_FAILURE', async () => {
    const path = tempDbPath('not-a.db');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, 'this is not a database, just text that is long enough to have a header');
    expect(() => SqliteStore.open(path)).toThrow(
      expect.objectContaining({ code: 'STORE_FAILURE' }) as unknown,
    );
  });
});
