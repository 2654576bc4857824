/**
 * A service writes on its own copy of a model without reading the head first when its last commit
 * left that copy current (one query less per write); the compare-and-set catches a copy another
 * process has moved past. What the write answers must still be decided on the stored state: a
 * refusal or a no-op computed on the stale copy is checked against the head before it is reported.
 * The stores here poll rarely, so nothing but the write itself tells the service it is behind.
 * Reads in the writing process while such a write is under way wait for the store's answer: the
 * stale copy with the write applied is a state the store never holds.
 */
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import {
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  TEST_AUDIT_KEY,
  tempDbPath,
} from './helpers.js';

const SPEC = {
  id: 'm',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      x: { type: 'integer', default: 0 },
      limit: { type: 'integer', default: 5 },
    },
  },
  constraints: [{ id: 'cap', expr: 'x <= limit', message: 'x is over the limit', policy: 'rollback' }],
};

type Opener = () => Promise<Store>;

function sqlite(): Opener {
  const path = tempDbPath();
  return () => Promise.resolve(SqliteStore.open(path, { pollMs: 3_600_000, auditKey: TEST_AUDIT_KEY }));
}

function postgres(): Opener {
  const schema = freshSchema();
  return () => openPostgres(schema);
}

/** Two services on one store; `a` has just committed, so its copy is its own; then `b` writes. */
async function behind(open: Opener, write: Record<string, unknown>): Promise<[CalcService, CalcService]> {
  const a = new CalcService(await open());
  const b = new CalcService(await open());
  await a.createModel(SPEC);
  await a.mutate('m', { '$.x': 1 });
  await b.mutate('m', write);
  return [a, b];
}

const cases: [string, () => Opener, string | undefined][] = [
  ['sqlite', sqlite, undefined],
  ['postgres', postgres, POSTGRES_URL ? undefined : POSTGRES_SKIP_REASON],
];

describe.each(cases)('a write on a copy another process moved past: %s', (name, open, skip) => {
  const test = it.skipIf(skip !== undefined);

  test('is not refused for what only the stale copy holds', async () => {
    // on a's copy the limit is still 5: x = 50 breaks the constraint there, not in the store
    const [a, b] = await behind(open(), { '$.limit': 100 });
    try {
      expect(await a.mutate('m', { '$.x': 50 })).toMatchObject({ success: true, mutatedPaths: ['$.x'] });
      expect(await b.getState('m')).toEqual({ x: 50, limit: 100 });
      expect(await a.verifyAudit('m')).toMatchObject({ valid: true, recordsChecked: 3 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('is refused when the stored state refuses it too', async () => {
    const [a, b] = await behind(open(), { '$.limit': 3 });
    try {
      await expect(a.mutate('m', { '$.x': 4 })).rejects.toMatchObject({ code: 'CONSTRAINT_VIOLATION' });
      expect(await b.getState('m')).toEqual({ x: 1, limit: 3 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('is not a no-op for what only the stale copy holds', async () => {
    // a patch that only tests x: true on a's copy (x = 1), false in the store (x = 2)
    const [a, b] = await behind(open(), { '$.x': 2 });
    try {
      await expect(a.patchModel('m', [{ op: 'test', path: '/x', value: 1 }])).rejects.toMatchObject({
        code: 'INVALID_PATCH',
      });
      expect(await a.patchModel('m', [{ op: 'test', path: '/x', value: 2 }])).toMatchObject({
        success: true,
        mutatedPaths: [],
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('that both copies accept is run again on the stored state and chained after it', async () => {
    const [a, b] = await behind(open(), { '$.limit': 7 });
    try {
      // x = 2 passes on a's stale copy; its compare-and-set fails and the cycle runs again
      await a.mutate('m', { '$.x': 2 });
      expect(await b.getState('m')).toEqual({ x: 2, limit: 7 });
      const trail = await a.store.auditRecords('m');
      expect(trail.map((r) => [r.sequence, r.mutations])).toEqual([
        [0, { '$.x': 1 }],
        [1, { '$.limit': 7 }],
        [2, { '$.x': 2 }],
      ]);
      expect(await a.verifyAudit('m')).toMatchObject({ valid: true, recordsChecked: 3 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('reads in the writing process never show a write the store then refuses', async () => {
    // both copies current at {x: 1, limit: 5}; b's write of the limit reaches the store first, so
    // a's compare-and-set fails and its write runs again on {x: 1, limit: 7}. a's copy with its
    // first try applied, {x: 3, limit: 5}, is a state the store never holds: no read may show it
    const opener = open();
    const a = new CalcService(await opener());
    const b = new CalcService(await opener());
    try {
      await a.createModel(SPEC);
      await a.mutate('m', { '$.x': 1 });
      expect(await b.getState('m')).toEqual({ x: 1, limit: 5 });
      const writes = Promise.all([b.mutate('m', { '$.limit': 7 }), a.mutate('m', { '$.x': 3 })]);
      let done = false;
      void writes.finally(() => (done = true));
      const seen = new Set<string>();
      // reads interleaved with the writes' awaits until both have answered (bounded)
      for (let i = 0; i < 2_000 && !done; i++) {
        seen.add(JSON.stringify(await a.getState('m')));
        if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
      }
      await writes;
      // the states the store held, replayed from the trail in its order
      const trail = await a.store.auditRecords('m');
      let state: Record<string, unknown> = { x: 0, limit: 5 };
      const stored = new Set<string>();
      for (const r of trail) {
        state = { ...state };
        for (const [path, value] of Object.entries(r.mutations)) state[path.slice(2)] = value;
        stored.add(JSON.stringify(state));
      }
      expect([...seen].filter((s) => !stored.has(s))).toEqual([]);
      // the race this test needs, which SQLite's group commit makes certain (submitted first,
      // written first): b first, a's write chained after it; on PostgreSQL the order is the
      // connections', and either order must hold the property above
      const order = trail.map((r) => r.mutations);
      if (name === 'sqlite') expect(order).toEqual([{ '$.x': 1 }, { '$.limit': 7 }, { '$.x': 3 }]);
      expect(order).toHaveLength(3);
      expect(await b.getState('m')).toEqual({ x: 3, limit: 7 });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
