/**
 * simulate (issue 24, acceptance 1): outputs of known closed form over many seeds — a linear model
 * over Normal inputs (mean and variance), a threshold constraint (its probability, as a rollback
 * rate and as a flag rate) — and the same seed giving the same answer to the last digit. Also the
 * sensitivity order, inputs from a synth model, limits, cancellation, and that a live model is
 * never touched.
 */
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import {
  decodeSimulateArgs,
  runSimulation,
  simulationLimitsFromEnv,
  type SimulateArgs,
} from '../../src/service/simulate/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const LIMITS = { maxRuns: 100_000, timeLimitMs: 600_000 };

/** y = 2a + 3b + 1; a rollback constraint a < 2 and a flag b > -1.5. */
const LINEAR = {
  id: 'linear',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      a: { type: 'number', default: 0 },
      b: { type: 'number', default: 0 },
      y: { type: 'number' },
    },
  },
  derivations: [{ path: '$.y', expr: '2 * a + 3 * b + 1' }],
  constraints: [
    { id: 'a-below-2', expr: 'a < 2', message: 'a must stay below 2', policy: 'rollback' },
    { id: 'b-above', expr: 'b > -1.5', message: 'b is low', policy: 'flag' },
  ],
};

const NO_MODELS = {
  scratchCopy: () => Promise.reject(new Error('no live models here')),
};

function simulateSpec(args: Omit<SimulateArgs, 'spec'>, spec: unknown = LINEAR) {
  return runSimulation(NO_MODELS, { spec, ...args }, LIMITS);
}

/** Standard normal tail P(Z >= 2). */
const TAIL_2 = 0.022750131948179195;
/** P(Z <= -1.5). */
const TAIL_15 = 0.06680720126885807;

describe('simulate', () => {
  it('recovers the mean and spread of a linear model over Normal inputs, and a threshold probability, over many seeds', async () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const runs = 10_000;
      const r = await simulateSpec({
        inputs: {
          '$.a': { type: 'Normal', mean: 0, sigma: 1 },
          '$.b': { type: 'Normal', mean: 0, sigma: 1 },
        },
        outputs: ['$.y'],
        runs,
        seed,
        percentiles: [2.5, 50, 97.5],
      });
      expect(r.runs).toBe(runs);
      // rollback: P(a >= 2); within 5 standard errors
      const se = Math.sqrt((TAIL_2 * (1 - TAIL_2)) / runs);
      expect(Math.abs(r.constraints['a-below-2']!.rollbackRate - TAIL_2)).toBeLessThan(5 * se);
      expect(r.failedRuns).toBe(Math.round(r.constraints['a-below-2']!.rollbackRate * runs));
      expect(r.failures).toEqual({ CONSTRAINT_VIOLATION: r.failedRuns });
      // flags are counted on the runs that committed (a < 2)
      const flagSe = Math.sqrt((TAIL_15 * (1 - TAIL_15)) / runs);
      expect(Math.abs(r.constraints['b-above']!.flagRate - TAIL_15 * (1 - TAIL_2))).toBeLessThan(5 * flagSe);
      // y over the committed runs: a is Normal truncated below 2
      const y = r.outputs['$.y']!;
      expect(y.count).toBe(runs - r.failedRuns);
      const truncMean = -Math.exp(-2) / Math.sqrt(2 * Math.PI) / (1 - TAIL_2); // E[a | a < 2]
      const truncVar = 1 - (2 * Math.exp(-2)) / Math.sqrt(2 * Math.PI) / (1 - TAIL_2) - truncMean ** 2;
      const mean = 2 * truncMean + 1;
      const sd = Math.sqrt(4 * truncVar + 9);
      expect(Math.abs(y.mean! - mean)).toBeLessThan((5 * sd) / Math.sqrt(y.count));
      expect(Math.abs(y.stdDev! / sd - 1)).toBeLessThan(0.03);
      // the median of a nearly symmetric output, and the percentiles in order
      expect(Math.abs(y.percentiles['50']! - mean)).toBeLessThan(0.15);
      expect(y.percentiles['2.5']!).toBeLessThan(y.percentiles['50']!);
      expect(y.percentiles['50']!).toBeLessThan(y.percentiles['97.5']!);
      expect(y.histogram.counts.reduce((a, b) => a + b, 0)).toBe(y.histogram.sampled);
      expect(y.histogram.edges[0]).toBe(y.min);
      expect(y.histogram.edges.at(-1)).toBe(y.max);
    }
  });

  it('gives the same answer for the same seed, to the last digit, and another for another seed', async () => {
    const args = {
      inputs: {
        '$.a': { type: 'Triangular', min: -1, mode: 0, max: 3 },
        '$.b': { type: 'Lognormal', mu: 0, sigma: 0.3 },
      },
      outputs: ['$.y', '$.a'],
      runs: 3000,
    };
    const first = await simulateSpec({ ...args, seed: 7 });
    const again = await simulateSpec({ ...args, seed: 7 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    const other = await simulateSpec({ ...args, seed: 8 });
    expect(other.outputs['$.y']!.mean).not.toBe(first.outputs['$.y']!.mean);
  });

  it('ranks inputs by how strongly they drive an output (tornado order)', async () => {
    const spec = {
      ...LINEAR,
      constraints: [],
      derivations: [{ path: '$.y', expr: 'a + 10 * b' }],
    };
    const r = await simulateSpec(
      {
        inputs: { '$.a': { type: 'Normal', sigma: 1 }, '$.b': { type: 'Normal', sigma: 1 } },
        outputs: ['$.y'],
        runs: 4000,
        seed: 5,
      },
      spec,
    );
    const rho = r.sensitivity['$.y']!;
    expect(Object.keys(rho)).toEqual(['$.b', '$.a']);
    expect(rho['$.b']!).toBeGreaterThan(0.95);
    expect(Math.abs(rho['$.a']!)).toBeLessThan(0.3);
  });

  it('takes its inputs from a synth model, one column per path', async () => {
    const text = [
      'dataset.root = R',
      'R = Append(A, B)',
      'A = Uniform(min=0, max=1)',
      'B = Constant(value=4)',
    ].join('\n');
    const r = await simulateSpec({
      inputModel: { text, paths: ['$.a', '$.b'] },
      outputs: ['$.y', '$.b'],
      runs: 2000,
      seed: 3,
    });
    expect(r.failedRuns).toBe(0);
    expect(r.outputs['$.b']).toMatchObject({ min: 4, max: 4, mean: 4 });
    expect(Math.abs(r.outputs['$.y']!.mean! - (2 * 0.5 + 12 + 1))).toBeLessThan(0.05);
  });

  it('refuses malformed requests with INVALID_ARGUMENT and a message naming what is wrong', async () => {
    const base = { inputs: { '$.a': { type: 'Normal' } }, outputs: ['$.y'], runs: 10, seed: 1 };
    const cases: [Omit<SimulateArgs, 'spec'>, RegExp][] = [
      [{ ...base, inputs: { '$.a': { type: 'NoSuchThing' } } }, /inputs: .*NoSuchThing/],
      [{ ...base, inputs: { '$.a': { mean: 1 } } }, /needs a "type"/],
      [{ ...base, inputs: { '$.a': { type: 'Normal', mean: { x: 1 } } } }, /mean must be a number/],
      [{ ...base, runs: 0 }, /runs must be/],
      [{ ...base, runs: 1_000_000 }, /over the limit of 100000 \(MODELWORKS_SIMULATE_MAX_RUNS\)/],
      [{ ...base, outputs: ['$.items[*].x'] }, /wildcard/],
      [{ ...base, outputs: [] }, /at least one output/],
      [{ ...base, inputs: { '$.a': { type: 'Dirichlet', alpha: '1,1' } } }, /column|Dirichlet/],
      [{ ...base, seed: 'soon' }, /seed must be a whole number/],
      [{ ...base, percentiles: [150] }, /percentiles/],
    ];
    for (const [args, message] of cases) {
      await expect(simulateSpec(args)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message });
    }
    // an output that names nothing in the model (a typo, a stray bracket) is refused, naming the fields
    for (const output of ['$.nope', '$.y[', '$.y.z']) {
      await expect(simulateSpec({ ...base, outputs: ['$.y', output] })).rejects.toMatchObject({
        code: 'PATH_NOT_FOUND',
        message: expect.stringContaining(
          `output '${output}' names nothing in the model; its computed fields: $.y`,
        ),
      });
    }
    // an input (not computed) is a value in the state, so it may be read back as an output
    await expect(simulateSpec({ ...base, outputs: ['$.a'] })).resolves.toMatchObject({ runs: 10 });
    expect(() => decodeSimulateArgs({ id: 'x', spec: {}, outputs: ['$.y'] })).toThrow(/either id/);
    expect(() => simulationLimitsFromEnv({ MODELWORKS_SIMULATE_MAX_RUNS: 'many' })).toThrow(
      /MODELWORKS_SIMULATE_MAX_RUNS/,
    );
  });

  it('stops at its time budget and answers for the runs done; a cancelled one rejects', async () => {
    let clock = 0;
    const args = {
      spec: LINEAR,
      inputs: { '$.a': { type: 'Normal' } },
      outputs: ['$.y'],
      runs: 5000,
      seed: 1,
    };
    const stopped = await runSimulation(
      NO_MODELS,
      args,
      { maxRuns: 10_000, timeLimitMs: 1000 },
      {
        now: () => (clock += 400), // every check moves the clock on 0.4 s
      },
    );
    expect(stopped.runs).toBeLessThan(5000);
    expect(stopped.stopped).toMatch(/time limit of 1 s/);
    const controller = new AbortController();
    const seen: number[] = [];
    const cancelled = runSimulation(NO_MODELS, args, LIMITS, {
      signal: controller.signal,
      progress: (done) => {
        seen.push(done);
        controller.abort(new Error('cancelled by the client'));
      },
    });
    await expect(cancelled).rejects.toThrow(/cancelled by the client/);
    expect(seen[0]).toBeGreaterThan(0);
  });

  it('simulates a live model on a private copy: its state and audit trail do not change', async () => {
    const calc = new CalcService(new MemoryStore());
    try {
      await calc.createModel(LINEAR);
      await calc.mutate('linear', { '$.b': 1 });
      const before = {
        state: await calc.getState('linear'),
        audit: await calc.getAudit('linear', { limit: 100 }),
      };
      const r = await runSimulation(
        calc,
        {
          id: 'linear',
          inputs: { '$.a': { type: 'Uniform', min: 0, max: 1 } },
          outputs: ['$.y'],
          runs: 500,
          seed: 9,
        },
        LIMITS,
      );
      // b stays at the live model's 1: y = 2a + 4 with a in [0, 1)
      expect(r.outputs['$.y']!.min!).toBeGreaterThanOrEqual(4);
      expect(r.outputs['$.y']!.max!).toBeLessThan(6);
      expect(await calc.getState('linear')).toEqual(before.state);
      expect(await calc.getAudit('linear', { limit: 100 })).toEqual(before.audit);
      await expect(
        runSimulation(calc, { id: 'nope', inputs: { '$.a': { type: 'Normal' } }, outputs: ['$.y'] }, LIMITS),
      ).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
    } finally {
      await calc.close();
    }
  });
});
