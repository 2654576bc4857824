// Optimistic concurrency in the service (issue 19, point 2): the revision counts committed changes,
// a write with a stale expectedRevision is refused with VERSION_CONFLICT {expected, actual} and
// changes nothing, a write without one runs as it always did, and a malformed one is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';

const SPEC = {
  id: 'c',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { count: { type: 'integer', minimum: 0 }, note: { type: 'string' } },
  },
  defaultValues: [{ path: '$', expr: '{"count": 0}' }],
  derivations: [{ path: '$.double', expr: 'count * 2' }],
  constraints: [{ id: 'cap', expr: 'count <= 100', message: 'count is capped at 100', policy: 'rollback' }],
};

const dir = mkdtempSync(join(tmpdir(), 'mw-revision-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const services: CalcService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function service(): Promise<CalcService> {
  const s = new CalcService(new MemoryStore());
  services.push(s);
  await s.createModel(SPEC);
  return s;
}

const revision = async (s: CalcService) => (await s.getModelInfo('c')).revision;

/** The error a call rejects with (fails the test if it resolves). */
async function refusal(call: Promise<unknown>): Promise<CalcError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CalcError);
  return err as CalcError;
}

/** What a refused write must leave as it was. */
async function observed(s: CalcService) {
  return {
    state: await s.getState('c'),
    revision: await revision(s),
    spec: await s.getSpec('c'),
    audit: (await s.getAudit('c', { limit: 1000 })).length,
  };
}

describe('the revision', () => {
  it('starts at 0 and counts every committed change: cycles, patches, restores, evolutions', async () => {
    const s = await service();
    expect(await s.getModelInfo('c')).toEqual({
      id: 'c',
      version: '1.0.0',
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 1,
      effectCount: 0,
      revision: 0,
    });
    await s.mutate('c', { '$.count': 1 });
    expect(await revision(s)).toBe(1);
    await s.patchModel('c', [{ op: 'replace', path: '/count', value: 2 }]);
    expect(await revision(s)).toBe(2);
    const snap = await s.snapshot('c');
    expect(await revision(s)).toBe(2); // a snapshot changes nothing
    await s.mutate('c', { '$.count': 3 });
    await s.restore('c', snap);
    expect(await revision(s)).toBe(4);
    await s.evolveSpec('c', { newVersion: '1.1.0' });
    expect(await revision(s)).toBe(5);
  });

  it('does not move for a write that commits nothing: a no-op, a refused cycle', async () => {
    const s = await service();
    await s.mutate('c', {});
    await s.patchModel('c', []);
    await refusal(s.mutate('c', { '$.count': 101 })); // the rollback constraint
    await refusal(s.mutate('c', { '$.count': -1 })); // the schema
    expect(await revision(s)).toBe(0);
  });

  it('readState answers the state with the revision it was read at', async () => {
    const s = await service();
    await s.mutate('c', { '$.count': 7 });
    expect(await s.readState('c')).toEqual({ state: { count: 7, double: 14 }, revision: 1 });
    expect(await s.readState('c', { paths: ['$.double'] })).toEqual({ state: { double: 14 }, revision: 1 });
    await expect(s.readState('nope')).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
  });
});

describe('expectedRevision', () => {
  const writes = {
    mutate: (s: CalcService, expectedRevision?: unknown) =>
      s.mutate('c', { '$.count': 5 }, { expectedRevision } as { expectedRevision?: number }),
    patchModel: (s: CalcService, expectedRevision?: unknown) =>
      s.patchModel('c', [{ op: 'replace', path: '/count', value: 5 }], { expectedRevision } as {
        expectedRevision?: number;
      }),
    evolveSpec: (s: CalcService, expectedRevision?: unknown) =>
      s.evolveSpec('c', { newVersion: '2.0.0' }, { expectedRevision } as { expectedRevision?: number }),
  };

  for (const [name, write] of Object.entries(writes)) {
    it(`${name}: the current revision writes; a stale one is a Version conflict that changes nothing`, async () => {
      const s = await service();
      await s.mutate('c', { '$.count': 1 });
      await s.mutate('c', { '$.count': 2 });
      const before = await observed(s);
      expect(before.revision).toBe(2);
      for (const stale of [0, 1, 3, 1000]) {
        const err = await refusal(write(s, stale));
        expect(err.code).toBe('VERSION_CONFLICT');
        expect(err.details).toEqual({ expected: stale, actual: 2 });
        expect(err.message).toContain(`revision 2, not ${stale}`);
        expect(await observed(s)).toEqual(before);
      }
      await write(s, 2);
      expect(await revision(s)).toBe(3);
    });

    it(`${name}: without expectedRevision it writes at any revision, as before`, async () => {
      const s = await service();
      await s.mutate('c', { '$.note': 'a' });
      await s.mutate('c', { '$.note': 'b' });
      await write(s);
      await write(s, undefined);
      expect(await revision(s)).toBeGreaterThanOrEqual(3);
    });

    it(`${name}: a malformed expectedRevision is INVALID_ARGUMENT and changes nothing`, async () => {
      const s = await service();
      const before = await observed(s);
      for (const bad of [-1, 1.5, '3', '0', null, NaN, Infinity, true, {}, [0]]) {
        const err = await refusal(write(s, bad));
        expect(err.code, JSON.stringify(bad)).toBe('INVALID_ARGUMENT');
        expect(err.message).toBe('expectedRevision must be a whole number, 0 or more');
      }
      expect(await observed(s)).toEqual(before);
    });
  }

  it('a stale revision is refused before the write is looked at', async () => {
    const s = await service();
    await s.mutate('c', { '$.count': 1 });
    const err = await refusal(s.mutate('c', { '$.count': 101 }, { expectedRevision: 0 }));
    expect(err.code).toBe('VERSION_CONFLICT');
  });

  it('the store decides, not a stale copy: another service on the same store wrote first', async () => {
    const path = join(dir, 'revision.db');
    const a = new CalcService(SqliteStore.open(path));
    const b = new CalcService(SqliteStore.open(path));
    services.push(a, b);
    await a.createModel(SPEC);
    await b.getState('c'); // b holds a copy at revision 0
    await a.mutate('c', { '$.count': 10 });
    // b's copy says 0, the store says 1: 1 writes (b reloads), not a conflict with b's stale copy
    await b.mutate('c', { '$.count': 11 }, { expectedRevision: 1 });
    expect(await a.readState('c')).toEqual({ state: { count: 11, double: 22 }, revision: 2 });
    // and b's copy saying 2 does not make a stale 2 current: the refusal names the store's 3
    await a.mutate('c', { '$.count': 12 });
    const err = await refusal(b.mutate('c', { '$.count': 13 }, { expectedRevision: 2 }));
    expect(err.details).toEqual({ expected: 2, actual: 3 });
    // the same for a no-op (an empty patch) and an evolution
    await a.evolveSpec('c', { newVersion: '1.1.0' }, { expectedRevision: 3 });
    expect((await refusal(b.patchModel('c', [], { expectedRevision: 3 }))).details).toEqual({
      expected: 3,
      actual: 4,
    });
    await a.mutate('c', { '$.count': 14 });
    expect((await refusal(b.evolveSpec('c', { newVersion: '2' }, { expectedRevision: 4 }))).details).toEqual({
      expected: 4,
      actual: 5,
    });
    expect(await b.readState('c')).toEqual({ state: { count: 14, double: 28 }, revision: 5 });
  });

  it('read-modify-write with the recipe loses no increment under concurrent clients', async () => {
    const s = await service();
    let conflicts = 0;
    const client = async () => {
      for (let i = 0; i < 20; i++) {
        for (;;) {
          const { state, revision: rev } = await s.readState('c');
          const count = (state as { count: number }).count;
          try {
            await s.mutate('c', { '$.count': count + 1 }, { expectedRevision: rev });
            break;
          } catch (err) {
            if (!(err instanceof CalcError && err.code === 'VERSION_CONFLICT')) throw err;
            conflicts++;
          }
        }
      }
    };
    await Promise.all([client(), client(), client(), client()]);
    expect(await s.readState('c')).toEqual({ state: { count: 80, double: 160 }, revision: 80 });
    expect(conflicts).toBeGreaterThan(0); // the clients really raced
  });
});
