/**
 * SQLite group commit: cycles of different models that reach their commit in the same turn of the
 * event loop are written in one transaction (one disk sync). Each change of a group runs under its
 * own savepoint, so one model's failure leaves the others' commits alone; a change handed in
 * before the store closes is written, not dropped.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { buildAuditRecord } from '../../src/service/audit.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { committedState } from '../../src/store/store.js';
import { counterSpec, TEST_AUDIT_KEY, tempDbPath } from './helpers.js';

function open(path: string): SqliteStore {
  return SqliteStore.open(path, { auditKey: TEST_AUDIT_KEY });
}

/** Counts the store's write transactions (an internal: the group is not part of the Store contract). */
function countTransactions(store: SqliteStore): { count: number; sizes: number[] } {
  const seen = { count: 0, sizes: [] as number[] };
  const inner = store as unknown as { writeGroup: (changes: unknown[]) => unknown };
  const write = inner.writeGroup.bind(store);
  inner.writeGroup = (changes) => {
    seen.count++;
    seen.sizes.push(changes.length);
    return write(changes);
  };
  return seen;
}

describe('sqlite group commit', () => {
  it('writes concurrent cycles on different models together, each exactly once and in order', async () => {
    const store = open(tempDbPath());
    const seen = countTransactions(store);
    const service = new CalcService(store);
    const ids = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];
    for (const id of ids) await service.createModel(counterSpec(id));
    seen.count = 0;
    const writer = async (id: string) => {
      for (let i = 1; i <= 20; i++) await service.mutate(id, { '$.counters.a': i });
    };
    await Promise.all(ids.map(writer));
    expect(seen.count).toBeLessThan(ids.length * 20); // grouped: fewer transactions than cycles
    expect(Math.max(...seen.sizes)).toBe(ids.length);
    for (const id of ids) {
      expect(await service.getField(id, '$.total')).toBe(20);
      const trail = await store.auditRecords(id);
      expect(trail.map((r) => r.mutations['$.counters.a'])).toEqual([...Array(20).keys()].map((i) => i + 1));
      expect(await service.verifyAudit(id)).toMatchObject({ valid: true, recordsChecked: 20 });
    }
    await service.close();
    // what was acknowledged is on disk
    const again = new CalcService(open(store.path));
    for (const id of ids) expect(await again.getField(id, '$.total')).toBe(20);
    await again.close();
  });

  it("fails one model's commit alone: the others of its group are written", async () => {
    const path = tempDbPath();
    const store = open(path);
    const seen = countTransactions(store);
    const service = new CalcService(store);
    for (const id of ['ok1', 'bad', 'ok2']) await service.createModel(counterSpec(id));
    // a trail row already at the sequence `bad` writes next: its INSERT fails under the savepoint
    const db = new Database(path);
    db.prepare(
      `INSERT INTO audit (model_id, sequence, record, prev_hash, hash) VALUES ('bad', 0, '{}', 'x', 'y')`,
    ).run();
    db.close();
    seen.sizes = [];
    const results = await Promise.allSettled(
      ['ok1', 'bad', 'ok2'].map((id) => service.mutate(id, { '$.counters.a': 7 })),
    );
    expect(seen.sizes).toEqual([3]); // one group
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'STORE_FAILURE' });
    expect(await service.getField('ok1', '$.total')).toBe(7);
    expect(await service.getField('ok2', '$.total')).toBe(7);
    // nothing of the failed change was written: its state and head are as they were
    expect(await service.getField('bad', '$.total')).toBe(0);
    expect(await store.head('bad')).toMatchObject({ revision: 0, nextSequence: 0 });
    for (const id of ['ok1', 'ok2'])
      expect(await service.verifyAudit(id)).toMatchObject({ valid: true, recordsChecked: 1 });
    await service.close();
  });

  it('writes a change handed in before close', async () => {
    const path = tempDbPath();
    const store = open(path);
    const setup = new CalcService(store);
    await setup.createModel(counterSpec('late'));
    const head = (await store.head('late'))!;
    const record = buildAuditRecord({
      modelId: 'late',
      sequence: head.nextSequence,
      modelVersion: '1.0.0',
      source: 'client',
      mutations: { '$.counters.a': 1 },
      result: {
        success: true,
        mutatedPaths: ['$.counters.a'],
        derivedUpdated: [],
        metaUpdated: [],
        flaggedConstraints: [],
        dispatchedEffects: [],
        traces: [],
      },
      prevHash: head.lastHash,
    });
    const state = { base: { counters: { a: 1, b: 0, c: 0, d: 0 } }, derived: { '$.total': 1 }, meta: {} };
    const committed = store.commitCycle('late', head.revision, committedState(state), record);
    await store.close();
    expect(await committed).toBe(true);
    const again = new CalcService(open(path));
    expect(await again.getField('late', '$.total')).toBe(1);
    expect(await again.verifyAudit('late')).toMatchObject({ valid: true, recordsChecked: 1 });
    await again.close();
  });
});
