/**
 * Restart (issue 4, acceptance 2): create, mutate, evolve, snapshot, upload a blob through a
 * CalcService; close it; open the same store with a new service; every read answers as before and
 * the audit chain verifies.
 */
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  tempDbPath,
} from './helpers.js';

async function everyRead(service: CalcService, blobId: string): Promise<Record<string, unknown>> {
  const audit = await service.getAudit('restart', { limit: 1000 });
  const history = await service.getHistory('restart');
  return {
    models: await service.listModels(),
    info: await service.getModelInfo('restart'),
    spec: await service.getSpec('restart'),
    state: await service.getState('restart'),
    projected: await service.getState('restart', { paths: ['$.counters.a', '$.total'], depth: 1 }),
    field: await service.getField('restart', '$.total'),
    schema: await service.getEffectiveSchema('restart', '$.counters.a'),
    audit,
    auditFiltered: await service.getAudit('restart', { pathPrefix: '$.counters.b', limit: 10 }),
    verify: await service.verifyAudit('restart'),
    snapshot: await service.snapshot('restart'),
    blob: await service.downloadBlob(blobId, 'restart'),
    blobAnyModel: await service.downloadBlob(blobId),
    other: await service.getState('other'),
    specVersions: (await service.store.specVersions('restart')).map((v) => [v.version, v.spec]),
    history,
    stateAtEach: await Promise.all(history.map((at) => service.getState('restart', { at }))),
    explain: await service.explain('restart', '$.total'),
  };
}

async function scenario(open: () => Promise<Store>): Promise<void> {
  const first = new CalcService(await open());
  await first.createModel(counterSpec('restart'));
  await first.createModel(counterSpec('other'));
  for (let i = 1; i <= 5; i++) await first.mutate('restart', { '$.counters.a': i, '$.counters.b': i * 10 });
  await first.patchModel('restart', [{ op: 'add', path: '/note', value: 'patched \u{1F600}' }]);
  await first.evolveSpec('restart', { expectedVersion: '1.0.0', newVersion: '1.1.0' });
  await first.mutate('restart', { '$.counters.c': 7 });
  await first.mutate('other', { '$.counters.d': 1 });
  const blob = await first.uploadBlob(
    Buffer.from('attachment bytes \u0000\u0001').toString('base64'),
    'text/plain',
  );
  await first.mutate('restart', { '$.attachment': { ...blob } });
  const snap = await first.snapshot('restart');
  const before = await everyRead(first, blob.$blobId);
  await first.close();

  const second = new CalcService(await open());
  try {
    const after = await everyRead(second, blob.$blobId);
    expect(after).toEqual(before);
    expect(after.snapshot).toEqual(snap);
    expect((after.history as string[]).length).toBe(2); // the two cycles since the evolution
    expect((after.explain as unknown[]).length).toBeGreaterThan(0);
    expect(after.verify).toMatchObject({
      valid: true,
      recordsChecked: 9,
      firstBrokenSequence: null,
      detail: 'ok',
    });
    expect((after.state as { total: number }).total).toBe(5 + 50 + 7);
    expect((after.specVersions as unknown[]).length).toBe(2);
    // and it keeps working: the chain continues where it stopped
    await second.mutate('restart', { '$.counters.d': 1 });
    expect(await second.verifyAudit('restart')).toMatchObject({ valid: true, recordsChecked: 10 });
    expect(await second.getField('restart', '$.total')).toBe(63);
  } finally {
    await second.close();
  }
}

describe('restart on the same store', () => {
  it('sqlite: every read answers as before', async () => {
    const path = tempDbPath();
    await scenario(() => Promise.resolve(SqliteStore.open(path)));
  });

  it.skipIf(!POSTGRES_URL)(
    `postgres: every read answers as before${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const schema = freshSchema();
      await scenario(() => openPostgres(schema));
    },
  );
});
