// The topology of links and the composition graph (issue 41; valem-parity.md §5.1 C6, C7, C9):
// a link to a model that is not stored and an unguarded cycle are refused (422, nothing created),
// a guarded cycle and an acyclic unguarded link pass, and GET /composition/graph shows the link
// and lineage edges (running links: model-links.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLinkTopology, linkEdges } from '../../src/calc/composition.js';
import { normalizeSpec } from '../../src/calc/index.js';
import { testApp, type TestApp } from '../http/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A model with one number `n` and a write-link pushing it to `target` (guarded unless told). */
function linking(id: string, target: string, guard = true): Json {
  return {
    id,
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: { n: { type: 'number' }, io: { type: 'object' }, got: { type: 'number' } },
    },
    effects: [
      {
        id: 'push',
        executor: 'server',
        trigger: 'n > 0',
        target: { ref: target, path: '$.got' },
        body: 'n',
        ...(guard ? { statusPath: '$.io.push', dedupeKey: 'n' } : {}),
      },
    ],
  };
}
const plain = (id: string): Json => ({
  id,
  version: '1.0.0',
  schema: { type: 'object', properties: { got: { type: 'number' }, n: { type: 'number' } } },
});

const spec = (raw: Json) => normalizeSpec(raw).spec;

describe('the link topology check', () => {
  it('passes a guarded two-cycle and an acyclic unguarded link, refuses an unguarded cycle', () => {
    expect(() =>
      checkLinkTopology(spec(linking('ping', 'pong')), [spec(linking('pong', 'ping'))]),
    ).not.toThrow();
    expect(() => checkLinkTopology(spec(linking('a', 'b', false)), [spec(plain('b'))])).not.toThrow();
    expect(() =>
      checkLinkTopology(spec(linking('ping', 'pong', false)), [spec(linking('pong', 'ping'))]),
    ).toThrow(expect.objectContaining({ code: 'LINK_CYCLE_UNGUARDED' }));
  });

  it('refuses a target that is not stored unless the check is deferred', () => {
    expect(() => checkLinkTopology(spec(linking('a', 'nosuch')), [])).toThrow(
      expect.objectContaining({ code: 'LINK_TARGET_UNRESOLVED' }),
    );
    expect(() => checkLinkTopology(spec(linking('a', 'nosuch')), [], { lazyTargets: true })).not.toThrow();
  });

  it('reads the edges out of a spec: target identity, kind, guard', () => {
    expect(linkEdges(spec(linking('a', 'acme/b@^1.0.0')))).toEqual([
      { from: 'a', to: 'acme/b', effectId: 'push', kind: 'write', guarded: true, statusPath: '$.io.push' },
    ]);
  });
});

describe('links over REST', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (payload: Json) => t.app.inject({ method: 'POST', url: '/models', payload });
  const exists = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/models/${id}` })).statusCode === 200;

  it('C6: a link to a model that is not stored is a 422', async () => {
    const r = await post(linking('orphan', 'nosuch'));
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'LINK_TARGET_UNRESOLVED' });
    expect(JSON.stringify(r.json())).toMatch(/MODELWORKS_LAZY_LINK_TARGETS/);
    expect(await exists('orphan')).toBe(false);
  });

  it('C7: a self-link without statusPath and dedupeKey is a 422 and creates nothing', async () => {
    const r = await post(linking('selfie', 'selfie', false));
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'LINK_CYCLE_UNGUARDED' });
    expect(await exists('selfie')).toBe(false);
  });

  it('an evolution that closes an unguarded cycle is refused too', async () => {
    expect((await post(plain('sink'))).statusCode).toBe(201);
    expect((await post(linking('source', 'sink', false))).statusCode).toBe(201);
    const r = await t.app.inject({
      method: 'POST',
      url: '/models/sink/spec/evolve',
      payload: { newVersion: '1.0.1', upsertEffects: [linking('sink', 'source', false).effects[0]] },
    });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ code: 'LINK_CYCLE_UNGUARDED' });
  });

  it('C9: the graph shows link and lineage edges', async () => {
    expect((await post(plain('agg'))).statusCode).toBe(201);
    expect((await post(linking('leaf-a', 'agg'))).statusCode).toBe(201);
    expect(
      (await post({ ...plain('base'), derivations: [{ path: '$.doubled', expr: 'n * 2' }] })).statusCode,
    ).toBe(201);
    expect((await post({ id: 'branch', schema: {}, template: { ref: 'base' } })).statusCode).toBe(201);
    const r = await t.app.inject({ method: 'GET', url: '/composition/graph' });
    expect(r.statusCode).toBe(200);
    const g = r.json<Json>();
    expect(g.nodes).toContainEqual({ ref: 'agg', modelClass: 'local', running: true });
    expect(g.linkEdges).toContainEqual({
      from: 'leaf-a',
      to: 'agg',
      effectId: 'push',
      kind: 'write',
      last: null,
    });
    expect(g.lineageEdges).toContainEqual({ branch: 'branch', template: 'base' });
  });
});
