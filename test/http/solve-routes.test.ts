/**
 * Solve over REST (issue 46): POST /models/:id/solve on a live model (unchanged after; with
 * apply, one more revision), POST /solve with a spec; refusals as problem details with their codes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './helpers.js';

const SPEC = {
  id: 'margin',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { cost: { type: 'number', default: 10 }, price: { type: 'number' } },
  },
  derivations: [{ path: '$.price', expr: 'cost * 1.25' }],
};
const BODY = { vary: { '$.cost': { min: 0, max: 100 } }, target: { path: '$.price', value: 50 }, seed: 4 };

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('solve routes', () => {
  it('solve a live model on a private copy, and a spec from the body, alike; apply writes one revision', async () => {
    t = await testApp();
    await t.calc.createModel(SPEC);
    const before = await t.calc.getModelInfo('margin');
    const live = await t.app.inject({ method: 'POST', url: '/models/margin/solve', payload: BODY });
    expect(live.statusCode).toBe(200);
    const r = live.json();
    expect(r).toMatchObject({ met: true, reason: 'converged', seed: '4' });
    expect(r.inputs['$.cost']).toBeCloseTo(40, 9);
    expect(await t.calc.getModelInfo('margin')).toEqual(before);
    const fromSpec = await t.app.inject({ method: 'POST', url: '/solve', payload: { spec: SPEC, ...BODY } });
    expect(fromSpec.statusCode).toBe(200);
    expect(fromSpec.json()).toEqual(r); // the same model and seed: the same answer
    const applied = await t.app.inject({
      method: 'POST',
      url: '/models/margin/solve',
      payload: { ...BODY, apply: true },
    });
    expect(applied.json().applied).toEqual({ committed: true, revision: before.revision + 1 });
    expect((await t.calc.getModelInfo('margin')).revision).toBe(before.revision + 1);
    // a REST caller's write, for the audit trail (it read `client` before)
    const audit = await t.calc.getAudit('margin', { limit: 100 });
    expect(audit.filter((r) => r.source === 'rest')).toHaveLength(1);
  });

  it('answers refusals as problem details with their codes', async () => {
    t = await testApp();
    const computed = await t.app.inject({
      method: 'POST',
      url: '/solve',
      payload: { spec: SPEC, ...BODY, vary: { '$.price': { min: 0, max: 1 } } },
    });
    expect(computed.statusCode).toBe(400);
    expect(computed.json()).toMatchObject({ code: 'SOLVE_NOT_AN_INPUT' });
    const bounds = await t.app.inject({
      method: 'POST',
      url: '/solve',
      payload: { spec: SPEC, ...BODY, vary: { '$.cost': { min: 5, max: 1 } } },
    });
    expect(bounds.json()).toMatchObject({
      code: 'SOLVE_BAD_BOUNDS',
      detail: expect.stringMatching(/below max/),
    });
    const missing = await t.app.inject({ method: 'POST', url: '/models/ghost/solve', payload: BODY });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'MODEL_NOT_FOUND' });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/solve',
      payload: { spec: SPEC, ...BODY, target: { path: '$.nothing', value: 1 } },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'PATH_NOT_FOUND' });
  });
});
