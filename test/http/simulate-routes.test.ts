/**
 * Simulation over REST (issue 24): POST /models/:id/simulations on a live model (unchanged after),
 * POST /simulations with a spec; refusals as problem details with their codes.
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
const BODY = {
  inputs: { '$.cost': { type: 'Uniform', min: 10, max: 20 } },
  outputs: ['$.price'],
  runs: 500,
  seed: 4,
};

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('simulation routes', () => {
  it('simulate a live model on a private copy, and a spec from the body, alike', async () => {
    t = await testApp();
    await t.calc.createModel(SPEC);
    const before = await t.calc.getModelInfo('margin');
    const live = await t.app.inject({ method: 'POST', url: '/models/margin/simulations', payload: BODY });
    expect(live.statusCode).toBe(200);
    const r = live.json();
    expect(r).toMatchObject({ runs: 500, seed: '4', failedRuns: 0 });
    expect(r.outputs['$.price'].min).toBeGreaterThanOrEqual(12.5);
    expect(r.outputs['$.price'].max).toBeLessThan(25);
    expect(await t.calc.getModelInfo('margin')).toEqual(before);
    const fromSpec = await t.app.inject({
      method: 'POST',
      url: '/simulations',
      payload: { spec: SPEC, ...BODY },
    });
    expect(fromSpec.statusCode).toBe(200);
    expect(fromSpec.json()).toEqual(r); // the same model and seed: the same answer
  });

  it('answers refusals as problem details with their codes', async () => {
    t = await testApp();
    const bad = await t.app.inject({
      method: 'POST',
      url: '/simulations',
      payload: { spec: SPEC, ...BODY, inputs: { '$.cost': { type: 'Nope' } } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'INVALID_ARGUMENT', detail: expect.stringMatching(/Nope/) });
    const missing = await t.app.inject({ method: 'POST', url: '/models/ghost/simulations', payload: BODY });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'MODEL_NOT_FOUND' });
    const invalidSpec = await t.app.inject({
      method: 'POST',
      url: '/simulations',
      payload: { ...BODY, spec: { id: 'x' } },
    });
    expect(invalidSpec.statusCode).toBe(422);
  });
});
