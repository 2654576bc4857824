// Branching over the service and REST (issue 41, part 1; valem-parity.md §5.1 C1, C1f, C2): a
// branch is stored self-contained with its lineage, computes with the template's rules after the
// template is deleted, and an unresolved template or a cycle is a 422 that creates nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { testApp, type TestApp } from '../http/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const base = {
  id: 'base',
  version: '1.0.0',
  schema: { type: 'object', properties: { n: { type: 'number' } } },
  derivations: [{ path: '$.doubled', expr: 'n * 2' }],
};
const branch = {
  id: 'branch',
  version: '2.0.0',
  schema: {},
  template: { ref: 'base' },
  derivations: [
    { path: '$.doubled', expr: 'n * 20' },
    { path: '$.tripled', expr: 'n * 3' },
  ],
};

describe('branching on the service', () => {
  it('C1: the branch is self-contained, keeps its lineage, and outlives its template', async () => {
    const s = new CalcService(new MemoryStore());
    await s.createModel(base);
    await s.createModel(branch);
    const spec = (await s.getSpec('branch')) as unknown as Json;
    expect(spec.template).toBeUndefined();
    expect(spec.version).toBe('2.0.0');
    expect(spec.schema).toEqual(base.schema);
    expect(spec.derivations.map((d: Json) => d.path).sort()).toEqual(['$.doubled', '$.tripled']);
    const lineage = (await s.getLineage('branch')) as Json[];
    expect(lineage).toHaveLength(1);
    expect(lineage[0]).toMatchObject({ ref: 'base', version: '1.0.0', repo: 'local' });
    expect(lineage[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    await s.deleteModel('base');
    await s.mutate('branch', { '$.n': 5 });
    expect(await s.getState('branch')).toMatchObject({ n: 5, doubled: 100, tripled: 15 });
    await s.close();
  });

  it('C1f: a branch with no rules of its own computes with the template’s', async () => {
    const s = new CalcService(new MemoryStore());
    await s.createModel({ ...base, id: 'base2' });
    await s.createModel({ id: 'plain', version: '1.0.0', schema: {}, template: { ref: 'base2' } });
    await s.mutate('plain', { '$.n': 5 });
    expect(await s.getState('plain')).toMatchObject({ doubled: 10 });
    expect(await s.getLineage('base2')).toEqual([]);
    await s.close();
  });

  it('pins the digest the template is served with, and a digest ref resolves to it', async () => {
    const s = new CalcService(new MemoryStore());
    await s.createModel(base);
    await s.createModel(branch);
    const [entry] = (await s.getLineage('branch')) as Json[];
    await s.createModel({ id: 'pinned', schema: {}, template: { ref: `base@${entry!.digest}` } });
    expect(((await s.getLineage('pinned')) as Json[])[0]!.digest).toBe(entry!.digest);
    const other = `base@sha256:${'0'.repeat(64)}`;
    await expect(s.createModel({ id: 'p2', schema: {}, template: { ref: other } })).rejects.toMatchObject({
      code: 'TEMPLATE_UNRESOLVED',
    });
    await s.close();
  });
});

describe('branching over REST', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, payload: payload as object });

  it('C2: an unresolved template is a 422 and creates nothing', async () => {
    const r = await post('/models', { id: 'orphan', schema: {}, template: { ref: 'ghost' } });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'TEMPLATE_UNRESOLVED' });
    expect((await t.app.inject({ method: 'GET', url: '/models/orphan' })).statusCode).toBe(404);
  });

  it('a template cycle is a 422; a malformed ref is a validation 422', async () => {
    const self = await post('/models', { id: 'selfish', schema: {}, template: { ref: 'selfish' } });
    expect(self.statusCode).toBe(422);
    expect(self.json()).toMatchObject({ code: 'TEMPLATE_CYCLE' });
    const bad = await post('/models', { id: 'bad', schema: {}, template: { ref: 'a/b@1.0' } });
    expect(bad.statusCode).toBe(422);
    expect(JSON.stringify(bad.json())).toMatch(/not a coordinate/);
  });

  it('GET /models/{id}/lineage gives the pinned entries, namespaced ids included', async () => {
    expect((await post('/models', { ...base, id: 'acme/base' })).statusCode).toBe(201);
    const created = await post('/models', {
      ...branch,
      id: 'globex/quote',
      template: { ref: 'acme/base@^1.0.0' },
    });
    expect(created.statusCode).toBe(201);
    const r = await t.app.inject({
      method: 'GET',
      url: `/models/${encodeURIComponent('globex/quote')}/lineage`,
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject([{ ref: 'acme/base', version: '1.0.0', repo: 'local', owner: 'acme' }]);
  });
});
