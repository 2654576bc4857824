// Issue 38: idempotency keys are kept per model by every store, durable across a restart of a
// SQLite- or PostgreSQL-backed service, bounded in count, and dropped with their model.
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { IDEMPOTENCY_LIMITS, type Store } from '../../src/store/store.js';
import { freshSchema, openPostgres, POSTGRES_URL, tempDbPath } from './helpers.js';

const SPEC = {
  id: 'k',
  version: '1',
  schema: { type: 'object', properties: { rows: { type: 'array', items: { type: 'number' } } } },
  defaultValues: [{ path: '$', expr: '{"rows": []}' }],
  derivations: [{ path: '$.count', expr: '$count(rows)' }],
};

/** Opens the same store again (a restart); memory has no "again". */
type Reopen = () => Promise<Store>;

const durable: [string, () => Reopen][] = [
  [
    'sqlite',
    () => {
      const path = tempDbPath();
      return () => Promise.resolve(SqliteStore.open(path));
    },
  ],
];
if (POSTGRES_URL) {
  durable.push([
    'postgres',
    () => {
      const schema = freshSchema();
      return () => openPostgres(schema);
    },
  ]);
}

const append = (s: CalcService, key: string, n: number) =>
  s.patchModel('k', [{ op: 'add', path: '/rows/-', value: n }], { idempotencyKey: key });

describe.each(durable)('idempotency keys survive a restart: %s', (_name, make) => {
  it('a retry after a restart answers the first answer and appends nothing', async () => {
    const reopen = make();
    const first = new CalcService(await reopen());
    await first.createModel(SPEC);
    const answer = await append(first, 'append-1', 3000);
    expect(answer).toMatchObject({ success: true, revision: 1 });
    expect(answer.replayed).toBeUndefined();
    await first.close();

    const second = new CalcService(await reopen());
    try {
      const retried = await append(second, 'append-1', 3000);
      expect(retried).toEqual({ ...answer, replayed: true });
      expect(await second.getState('k')).toEqual({ rows: [3000], count: 1 });
      expect((await second.getModelInfo('k')).revision).toBe(1);
      await expect(append(second, 'append-1', 3001)).rejects.toMatchObject({
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
      // deleting the model drops its keys: a new model of that id starts afresh
      await second.deleteModel('k');
      await second.createModel(SPEC);
      expect(await append(second, 'append-1', 3000)).toMatchObject({ revision: 1 });
      expect(await second.getState('k')).toEqual({ rows: [3000], count: 1 });
    } finally {
      await second.close();
    }
  });
});

describe.each([
  ['memory', () => Promise.resolve(new MemoryStore() as Store)],
  ...durable.map(([name, make]) => [name, make()] as [string, Reopen]),
])('idempotency keys are bounded: %s', (_name, open) => {
  it(`keeps at most ${IDEMPOTENCY_LIMITS.maxKeys} keys per model, dropping the oldest`, async () => {
    const store = await open();
    try {
      const s = new CalcService(store);
      await s.createModel(SPEC);
      const t0 = Date.now();
      for (let i = 0; i <= IDEMPOTENCY_LIMITS.maxKeys; i++) {
        await store.saveIdempotencyEntry('k', {
          key: `key-${i}`,
          fingerprint: 'f',
          answer: { n: i },
          createdAt: new Date(t0 + i).toISOString(),
        });
      }
      expect(await store.idempotencyEntry('k', 'key-0')).toBeUndefined();
      expect(await store.idempotencyEntry('k', 'key-1')).toMatchObject({ answer: { n: 1 } });
      expect(await store.idempotencyEntry('k', `key-${IDEMPOTENCY_LIMITS.maxKeys}`)).toBeDefined();
      // a key for a model that does not exist is not kept
      await store.saveIdempotencyEntry('nobody', {
        key: 'x',
        fingerprint: 'f',
        answer: 1,
        createdAt: new Date().toISOString(),
      });
      expect(await store.idempotencyEntry('nobody', 'x')).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 60_000);
});
