import { describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/index.js';
import { recordHash, verifyChain } from '../../src/service/audit.js';
import { CalcService, MAX_COMMIT_ATTEMPTS } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { manualClock } from '../helpers/time.js';

const counter = {
  id: 'counter',
  version: '1.0.0',
  schema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 }, note: { type: 'string' } } },
  defaultValues: [{ path: '$', expr: '{"n": 0}' }],
  derivations: [{ path: '$.double', expr: 'n * 2' }],
  constraints: [{ id: 'cap', expr: 'n <= 1000', message: 'n is capped at 1000', policy: 'rollback' }],
};

async function service(now?: () => number) {
  const s = new CalcService(new MemoryStore(), now ? { now } : {});
  await s.createModel(counter);
  return s;
}

describe('CalcService', () => {
  it('a taken id is a structured conflict that names the ways out', async () => {
    const s = await service();
    const err = await s.createModel(counter).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CalcError);
    expect((err as CalcError).code).toBe('MODEL_EXISTS');
    expect((err as CalcError).details).toEqual({ error: 'Model exists', id: 'counter' });
    expect((err as CalcError).message).toMatch(/delete_model.*evolve_spec/);
  });

  it('concurrent mutations on one model never interleave: every increment lands', async () => {
    const s = await service();
    // read-modify-write races would lose updates if two cycles interleaved; the lock serialises them,
    // and each call here reads the value inside its own turn via a derived-free write of n+1
    // (each note is new: a write of the value already there is no change and no cycle)
    const bump = async (who: number) => {
      for (let i = 0; i < 25; i++) {
        const n = (await s.getField('counter', '$.n')) as number;
        await s.mutate('counter', { '$.note': `writer ${who}, write ${i}, from ${n}` });
      }
    };
    await Promise.all([bump(1), bump(2), bump(3), bump(4)]);
    const audit = await s.getAudit('counter', { limit: 1000 });
    expect(audit).toHaveLength(100);
    expect(audit.map((r) => r.sequence)).toEqual([...Array(100).keys()].reverse());
    expect(await s.verifyAudit('counter')).toEqual({
      valid: true,
      recordsChecked: 100,
      firstBrokenSequence: null,
      detail: 'ok',
    });
  });

  it('the queue per model is bounded: overload is refused with BUSY, not buffered forever', async () => {
    const s = await service();
    const calls = Array.from({ length: 15 }, (_, i) =>
      s.mutate('counter', { '$.n': i }).then(
        () => 'ok',
        (e: CalcError) => e.code,
      ),
    );
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10);
    expect(outcomes.filter((o) => o === 'BUSY')).toHaveLength(5);
  });

  it('two services on one store (two processes): the loser of a race reloads and retries on fresh state', async () => {
    const store = new MemoryStore();
    const a = new CalcService(store);
    const b = new CalcService(store);
    await a.createModel(counter);
    await a.mutate('counter', { '$.n': 1 });
    expect(await b.getField('counter', '$.n')).toBe(1); // b loads the stored state
    await b.mutate('counter', { '$.n': 2 });
    // a's cached copy is stale now; its next write must start from n=2's state, not overwrite blindly
    await a.mutate('counter', { '$.note': 'after b' });
    expect(await a.getState('counter')).toEqual({ n: 2, note: 'after b', double: 4 });
    const audit = await store.auditRecords('counter');
    expect(audit.map((r) => r.sequence)).toEqual([0, 1, 2]);
    expect(verifyChain(audit).valid).toBe(true);
  });

  it("two services racing on one store lose no write: the loser recomputes on the winner's state", async () => {
    const store = new MemoryStore();
    const a = new CalcService(store);
    const b = new CalcService(store);
    await a.createModel({ ...counter, schema: { type: 'object' } });
    let retries = 0;
    const commit = store.commitCycle.bind(store);
    store.commitCycle = async (...args) => {
      const ok = await commit(...args);
      if (!ok) retries++;
      return ok;
    };
    const writes = (s: CalcService, tag: string) =>
      Promise.all(Array.from({ length: 8 }, (_, i) => s.mutate('counter', { [`$.${tag}${i}`]: i })));
    await Promise.all([writes(a, 'a'), writes(b, 'b')]);
    const state = (await b.getState('counter')) as Record<string, unknown>;
    for (let i = 0; i < 8; i++) expect([state[`a${i}`], state[`b${i}`]]).toEqual([i, i]);
    const audit = await store.auditRecords('counter');
    expect(audit.map((r) => r.sequence)).toEqual([...Array(16).keys()]);
    expect(verifyChain(audit).valid).toBe(true);
    expect(retries).toBeGreaterThan(0); // the race really happened
  });

  it('a store that keeps refusing the compare-and-set ends in BUSY after bounded attempts', async () => {
    const store = new MemoryStore();
    const s = new CalcService(store);
    await s.createModel(counter);
    let attempts = 0;
    store.commitCycle = () => {
      attempts++;
      return Promise.resolve(false);
    };
    await expect(s.mutate('counter', { '$.n': 5 })).rejects.toMatchObject({ code: 'BUSY' });
    expect(attempts).toBe(MAX_COMMIT_ATTEMPTS);
    expect(await s.getField('counter', '$.n')).toBe(0); // the refused cycle left no trace
  });

  it('audit records: one per committed cycle with ≥1 write, chained by SHA-256, queryable', async () => {
    const s = await service();
    await s.mutate('counter', {}); // no writes: no record
    await s.mutate('counter', { '$.n': 3 });
    await expect(s.mutate('counter', { '$.n': 5000 })).rejects.toMatchObject({
      code: 'CONSTRAINT_VIOLATION',
    });
    await s.patchModel('counter', [{ op: 'replace', path: '/note', value: 'x' }]).catch(() => undefined);
    await s.patchModel('counter', [{ op: 'add', path: '/note', value: 'x' }]);
    const records = await s.getAudit('counter');
    expect(records.map((r) => [r.sequence, r.source, r.mutations])).toEqual([
      [1, 'patch', { '$.note': 'x' }],
      [0, 'client', { '$.n': 3 }],
    ]);
    const [, first] = records;
    expect(first!.prevHash).toBe('0'.repeat(64));
    expect(first!.hash).toBe(recordHash(first!.prevHash!, first!));
    expect(first!.derivedUpdated).toEqual(['$.double']);
    expect(await s.getAudit('counter', { pathPrefix: '$.note' })).toHaveLength(1);
    expect(await s.getAudit('counter', { from: '2999-01-01T00:00:00Z' })).toEqual([]);
    await expect(s.getAudit('counter', { from: 'yesterday' })).rejects.toThrow(/Invalid ISO-8601 timestamp/);
  });

  it('verifyChain names the first altered, reordered or deleted record', async () => {
    const s = await service();
    for (let i = 1; i <= 4; i++) await s.mutate('counter', { '$.n': i });
    const records = await s.store.auditRecords('counter');
    const altered = records.map((r) => ({ ...r }));
    altered[2] = { ...altered[2]!, mutations: { '$.n': 99 } };
    expect(verifyChain(altered)).toMatchObject({
      valid: false,
      firstBrokenSequence: 2,
      detail: expect.stringContaining('altered'),
    });
    const deleted = records.filter((r) => r.sequence !== 1);
    expect(verifyChain(deleted)).toMatchObject({
      valid: false,
      firstBrokenSequence: 2,
      detail: expect.stringContaining('reorder or deletion'),
    });
    const swapped = [records[0]!, records[2]!, records[1]!, records[3]!];
    expect(verifyChain(swapped)).toMatchObject({ valid: false, firstBrokenSequence: 2 });
    const unchained = records.map((r, i) => (i === 3 ? { ...r, hash: undefined } : r));
    expect(verifyChain(unchained)).toMatchObject({
      valid: false,
      firstBrokenSequence: 3,
      detail: 'record is not hash-chained',
    });
    expect(verifyChain([])).toEqual({
      valid: true,
      recordsChecked: 0,
      firstBrokenSequence: null,
      detail: 'ok',
    });
  });

  it('verify_audit notices records deleted from the end of the trail', async () => {
    const s = await service();
    for (let i = 1; i <= 3; i++) await s.mutate('counter', { '$.n': i });
    expect((await s.verifyAudit('counter')).valid).toBe(true);
    const all = s.store.auditRecords.bind(s.store);
    s.store.auditRecords = async (id) => (await all(id)).slice(0, 2);
    expect(await s.verifyAudit('counter')).toMatchObject({
      valid: false,
      recordsChecked: 2,
      firstBrokenSequence: 2,
    });
  });

  it('get_state: at, paths, depth; history timestamps', async () => {
    const clock = manualClock();
    const s = await service(clock.now);
    clock.advance(10);
    await s.mutate('counter', { '$.n': 1 });
    const history = await s.getHistory('counter');
    expect(history).toHaveLength(2); // creation seeded n=0 (one cycle), then n=1
    const t1 = history[1];
    clock.advance(10);
    await s.mutate('counter', { '$.n': 2 });
    expect(await s.getState('counter', { at: t1! })).toMatchObject({ n: 1, double: 2 });
    await expect(s.getState('counter', { at: '1999-01-01T00:00:00Z' })).rejects.toMatchObject({
      code: 'HISTORY_NOT_FOUND',
    });
    await expect(s.getState('counter', { at: 'not a time' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await s.getState('counter', { paths: ['$.double'] })).toEqual({ double: 4 });
    expect(await s.getState('counter', { depth: 0 })).toBe('<object: 2 fields>');
  });

  it('subscribers hear every committed change and nothing from refused ones', async () => {
    const s = await service();
    const events: string[] = [];
    const off = s.subscribe('counter', (e) => events.push(e.kind));
    await s.mutate('counter', { '$.n': 1 });
    await expect(s.mutate('counter', { '$.n': -1 })).rejects.toMatchObject({ code: 'SCHEMA_VIOLATION' });
    const snap = await s.snapshot('counter');
    await s.restore('counter', snap);
    await s.evolveSpec('counter', { newVersion: '1.1.0' });
    off();
    await s.mutate('counter', { '$.n': 2 });
    expect(events).toEqual(['mutation', 'restored', 'spec-evolved']);
  });

  it('a refused restore and a refused evolution leave the model untouched', async () => {
    const s = await service();
    await s.mutate('counter', { '$.n': 7 });
    const before = await s.getState('counter');
    await expect(s.restore('counter', { baseDoc: { n: 'seven' } })).rejects.toMatchObject({
      code: 'SCHEMA_VIOLATION',
    });
    await expect(
      s.evolveSpec('counter', { expectedVersion: '0.0.1', newVersion: '2.0.0' }),
    ).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(await s.getState('counter')).toEqual(before);
    expect((await s.getModelInfo('counter')).version).toBe('1.0.0');
  });

  it('blobs: content-addressed, deduplicated, readable through a model only when referenced', async () => {
    const s = await service();
    const data = Buffer.from('hello blob').toString('base64');
    const ref = await s.uploadBlob(data, 'text/plain');
    expect(ref).toEqual({
      $blobId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      $mediaType: 'text/plain',
      $bytes: 10,
    });
    expect(await s.uploadBlob(data, 'text/plain')).toEqual(ref);
    expect(await s.downloadBlob(ref.$blobId)).toMatchObject({ blobId: ref.$blobId, bytes: 10, data });
    await expect(s.downloadBlob(ref.$blobId, 'counter')).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
    await s.evolveSpec('counter', { upsertSchemaNodes: [{ path: '$.file', schema: { type: 'object' } }] });
    await s.mutate('counter', { '$.file': ref });
    expect(await s.downloadBlob(ref.$blobId, 'counter')).toMatchObject({ data });
    await expect(s.uploadBlob('not base64!')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.downloadBlob('sha256:00')).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
  });

  it('authoring calls never touch the registry', async () => {
    const s = new CalcService(new MemoryStore());
    expect((await s.validateSpec(counter)).valid).toBe(true);
    expect(await s.dryRun(counter, { '$.n': 4 })).toEqual({ n: 4, double: 8 });
    expect(await s.testSpec(counter, [{ given: { '$.n': 2 }, expect: { '$.double': 4 } }])).toMatchObject({
      total: 1,
      passed: 1,
    });
    expect(await s.listModels()).toEqual([]);
  });

  it("explain after a reload: the trail's traces come first, then the reloaded copy's own, once", async () => {
    const store = new MemoryStore();
    const a = new CalcService(store);
    const b = new CalcService(store);
    await a.createModel(counter);
    await a.mutate('counter', { '$.n': 1 });
    await a.mutate('counter', { '$.n': 2 });
    const results = async (s: CalcService) => (await s.explain('counter', '$.double')).map((t) => t.result);
    expect(await results(b)).toEqual([2, 4]); // b never ran a cycle: all from the trail
    await a.mutate('counter', { '$.n': 3 });
    await b.mutate('counter', { '$.n': 4 }); // b reloads, then runs its own cycle
    await expect(b.mutate('counter', { '$.n': 2000 })).rejects.toMatchObject({
      code: 'CONSTRAINT_VIOLATION',
    });
    const [one, two] = await Promise.all([results(b), results(b)]);
    expect(one).toEqual([2, 4, 6, 8, 4000]); // the refused cycle's too, as before a reload
    expect(two).toEqual(one); // concurrent explains refill once
    expect(await results(b)).toEqual(one);
    // the constraint's checks: one passed per committed cycle, then the refused cycle's (in no trail)
    const checks = (await b.explain('counter', '$constraint:cap')).map((t) => t.constraintPassed);
    expect(checks.slice(0, 4)).toEqual([true, true, true, true]);
    expect(checks.slice(4).length).toBeGreaterThan(0);
    expect(checks.slice(4).every((passed) => passed === false)).toBe(true);
    expect(await results(a)).toEqual([2, 4, 6, 8]); // a reloaded too: the trail has b's cycle, not its refusal
    await a.close();
    await b.close();
  });

  it('deleting a model removes it and its trail; unknown ids are MODEL_NOT_FOUND', async () => {
    const s = await service();
    await s.mutate('counter', { '$.n': 1 });
    expect(await s.deleteModel('counter')).toEqual({ deleted: true });
    expect(await s.listModels()).toEqual([]);
    expect(await s.store.auditRecords('counter')).toEqual([]);
    await expect(s.getState('counter')).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
  });
});
