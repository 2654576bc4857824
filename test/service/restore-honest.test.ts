// Issue 38: restore is tied to its model and re-derives under the current spec; a write or an
// evolution that changes nothing leaves the revision (and the audit trail) where it was.
import { afterEach, describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const spec = (id: string) => ({
  id,
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { x: { type: 'number' }, legacy: { type: 'string' } },
  },
  defaultValues: [{ path: '$', expr: '{"x": 10}' }],
  derivations: [{ path: '$.total', expr: 'x * 2' }],
});

const services: CalcService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function service(...ids: string[]): Promise<CalcService> {
  const s = new CalcService(new MemoryStore());
  services.push(s);
  for (const id of ids) await s.createModel(spec(id));
  return s;
}

describe('restore across spec versions', () => {
  it('snapshot → evolve (total = x*3, a new derivation) → restore re-derives under the current spec', async () => {
    const s = await service('m');
    await s.mutate('m', { '$.legacy': 'old field' });
    const snap = await s.snapshot('m');
    await s.evolveSpec('m', {
      newVersion: '2.0.0',
      upsertDerivations: [
        { path: '$.total', expr: 'x * 3' },
        { path: '$.half', expr: 'x / 2' },
      ],
      removeSchemaNodes: ['$.legacy'],
    });
    await s.mutate('m', { '$.x': 4 });
    const report = await s.restore('m', snap);
    // the defect: total stayed 20 (x*2) and half disappeared
    expect(await s.getState('m')).toEqual({ x: 10, total: 30, half: 5 });
    expect(snap).toMatchObject({ modelId: 'm', modelVersion: '1.0.0', specHash: expect.any(String) });
    expect(report).toMatchObject({
      restored: true,
      modelVersion: '2.0.0',
      snapshotVersion: '1.0.0',
      sameSpec: false,
      droppedInputs: ['$.legacy'],
      warnings: [],
    });
    expect(await s.getState('m')).toEqual({ x: 10, total: 30, half: 5 });
    expect(report.revision).toBe((await s.getModelInfo('m')).revision);
  });

  it('a forged derived cache is not restored: derived values are computed, never copied', async () => {
    const s = await service('m');
    const snap = await s.snapshot('m');
    await s.restore('m', { ...snap, derivedCache: { '$.total': 999 } });
    expect(await s.getField('m', '$.total')).toBe(20);
  });
});

describe('restore is tied to its model', () => {
  it("refuses another model's snapshot with SNAPSHOT_MODEL_MISMATCH and changes nothing", async () => {
    const s = await service('a', 'b');
    await s.mutate('a', { '$.x': 1 });
    await s.mutate('b', { '$.x': 2 });
    const before = await s.getModelInfo('b');
    const snapA = await s.snapshot('a');
    await expect(s.restore('b', snapA)).rejects.toMatchObject({
      code: 'SNAPSHOT_MODEL_MISMATCH',
      details: { snapshotModelId: 'a', modelId: 'b' },
    });
    expect(await s.getField('b', '$.x')).toBe(2);
    expect((await s.getModelInfo('b')).revision).toBe(before.revision);
  });

  it('accepts a snapshot that names no model, with a warning, and still re-derives', async () => {
    const s = await service('m');
    const report = await s.restore('m', { baseDoc: { x: 7 }, derivedCache: { '$.total': 1 }, metaCache: {} });
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(/names no model/);
    expect(await s.getState('m')).toEqual({ x: 7, total: 14 });
  });

  it('refuses a modelId that is not a string', async () => {
    const s = await service('m');
    await expect(s.restore('m', { modelId: 5, baseDoc: {} })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});

describe('no revision for a no-op', () => {
  it('a write of the value already there: no cycle, no audit record, the same revision, unchanged', async () => {
    const s = await service('m');
    await s.mutate('m', { '$.x': 5 });
    const before = await s.getModelInfo('m');
    const audit = (await s.getAudit('m')).length;
    const result = await s.mutate('m', { '$.x': 5 });
    expect(result).toMatchObject({
      success: true,
      unchanged: true,
      revision: before.revision,
      mutatedPaths: [],
    });
    expect((await s.getModelInfo('m')).revision).toBe(before.revision);
    expect(await s.getAudit('m')).toHaveLength(audit);
    // a real change still counts
    expect(await s.mutate('m', { '$.x': 6 })).toMatchObject({ revision: before.revision + 1 });
    expect((await s.getModelInfo('m')).revision).toBe(before.revision + 1);
  });

  it('a patch that replaces a value with itself is a no-op too', async () => {
    const s = await service('m');
    const before = await s.getModelInfo('m');
    const r = await s.patchModel('m', [{ op: 'replace', path: '/x', value: 10 }]);
    expect(r).toMatchObject({ unchanged: true, revision: before.revision });
  });

  it('an empty evolution leaves version, revision and trail as they were', async () => {
    const s = await service('m');
    const before = await s.getModelInfo('m');
    const audit = (await s.getAudit('m')).length;
    const events: string[] = [];
    s.subscribe('m', (e) => events.push(e.kind));
    expect(await s.evolveSpec('m', {})).toEqual({
      id: 'm',
      version: '1.0.0',
      revision: before.revision,
      unchanged: true,
    });
    expect((await s.getModelInfo('m')).revision).toBe(before.revision);
    expect(await s.getAudit('m')).toHaveLength(audit);
    expect(events).toEqual([]);
  });

  it('a writing to a derived field is still refused, even with the value it has', async () => {
    const s = await service('m');
    await expect(s.mutate('m', { '$.total': 20 })).rejects.toMatchObject({ code: 'DERIVED_TARGET_WRITE' });
  });
});
