/**
 * Heavy operations behind a gate (issue 47): N simulations run, M wait, the next is refused BUSY
 * with a retry hint, on the service entry every surface uses and over REST (429, Retry-After).
 * Three 100,000-run simulations used to run side by side and all hit the 120 s limit. A caller
 * that cancels while waiting leaves the queue; the next caller gets the freed slot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CalcService } from '../../src/service/calc-service.js';
import { runSimulation, simulationGate } from '../../src/service/simulate/index.js';
import { WorkGate } from '../../src/service/work-gate.js';
import { testApp, type TestApp } from '../http/helpers.js';

const SPEC = {
  id: 'margin',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { cost: { type: 'number', default: 10 }, price: { type: 'number' } },
  },
  derivations: [{ path: '$.price', expr: 'cost * 1.25' }],
};
const args = (runs: number) => ({
  id: 'margin',
  inputs: { '$.cost': { type: 'Uniform', min: 10, max: 20 } },
  outputs: ['$.price'],
  runs,
  seed: 4,
});
const LIMITS = { maxRuns: 100_000, timeLimitMs: 120_000 };

let t: TestApp;
beforeAll(async () => {
  // read by the gate on first use: one running, one waiting
  process.env.MODELWORKS_SIMULATE_CONCURRENCY = '1';
  process.env.MODELWORKS_SIMULATE_QUEUE = '1';
  t = await testApp();
  await t.calc.createModel(SPEC);
});
afterAll(async () => {
  await t.close();
});

describe('the simulation gate', () => {
  it('one runs, one waits, the third is BUSY with a retry hint; cancelling frees the slots', async () => {
    const calc: CalcService = t.calc;
    const first = new AbortController();
    const second = new AbortController();
    const running = runSimulation(calc, args(100_000), LIMITS, { signal: first.signal });
    const waiting = runSimulation(calc, args(100_000), LIMITS, { signal: second.signal });
    await new Promise((resolve) => setTimeout(resolve, 300)); // both have reached the gate

    const refused = runSimulation(calc, args(10), LIMITS);
    // (on the old code the third simply ran: nothing capped concurrent simulations)
    await expect(refused).rejects.toMatchObject({
      code: 'BUSY',
      details: { retryAfterSeconds: expect.any(Number) },
    });
    expect(simulationGate().load).toEqual({ running: 1, waiting: 1 });
    // the same refusal over REST: 429 in our shape, with Retry-After
    const rest = await t.app.inject({ method: 'POST', url: '/models/margin/simulations', payload: args(10) });
    expect(rest.statusCode).toBe(429);
    expect(rest.json()).toMatchObject({ code: 'BUSY', retryAfterSeconds: expect.any(Number) });
    expect(Number(rest.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    second.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(simulationGate().load).toEqual({ running: 1, waiting: 0 });
    first.abort(new Error('gone too'));
    await expect(running).rejects.toThrow();
    await expect.poll(() => simulationGate().load).toEqual({ running: 0, waiting: 0 });

    const after = await runSimulation(calc, args(50), LIMITS);
    expect(after.runs).toBe(50);
  });
});

describe('WorkGate', () => {
  it('runs jobs in order of arrival once a slot frees, and reads its limits from settings', async () => {
    const gate = new WorkGate(
      'jobs',
      { running: 1, queue: 2 },
      { runningEnv: 'A', queueEnv: 'B', defaults: { running: 1, queue: 2 } },
      (message, details) => Object.assign(new Error(message), { code: 'BUSY', details }),
    );
    const order: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const a = gate.run(async () => {
      await held;
      order.push(1);
    });
    const b = gate.run(() => Promise.resolve(void order.push(2)));
    const c = gate.run(() => Promise.resolve(void order.push(3)));
    await expect(gate.run(() => Promise.resolve(4))).rejects.toMatchObject({
      code: 'BUSY',
      message: /A=1, B=2/,
    });
    release();
    await Promise.all([a, b, c]);
    expect(order).toEqual([1, 2, 3]);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });
});
