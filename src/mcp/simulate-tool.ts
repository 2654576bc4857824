/**
 * The `simulate` tool: Monte Carlo over a live model (its private copy) or a spec
 * (src/service/simulate). Progress notifications while it runs; cancellation stops it.
 */
import { CalcError } from '../calc/index.js';
import {
  DEFAULT_PERCENTILES,
  DEFAULT_RUNS,
  runSimulation,
  SIMULATE_ARGUMENT_SCHEMAS,
  simulationLimitsFromEnv,
  type ScratchSource,
} from '../service/simulate/index.js';
import { errorResult, okResult } from './results.js';
import { input, output, READ, SPEC_REFERENCE, type ToolDefinition } from './tool.js';

/** A live model's copy where the calc service is in this process; a clear refusal where it is not. */
function scratchSource(calc: unknown): ScratchSource {
  if (calc !== null && typeof calc === 'object' && 'scratchCopy' in calc) return calc as ScratchSource;
  return {
    scratchCopy: () =>
      Promise.reject(
        new CalcError(
          'INVALID_ARGUMENT',
          'this server reaches its models remotely: simulate a spec instead of an id',
        ),
      ),
  };
}

export function simulateTool(calc: unknown): ToolDefinition {
  const models = scratchSource(calc);
  const limits = simulationLimitsFromEnv(); // a malformed setting stops the server at start
  return {
    name: 'simulate',
    title: 'Simulate',
    description:
      'Monte Carlo: run a model (id: a private copy, the model is not changed; or spec) once per draw of its inputs. ' +
      'inputs: {"$.path": {"type": <synth generator>, ...params}} e.g. {"type":"Normal","mean":0.07,"sigma":0.01}, ' +
      'Triangular min/mode/max, Lognormal mu/sigma, Uniform min/max, Categorical; or inputModel {text, paths}: a synth ' +
      'model whose columns feed the paths (correlated inputs). Returns per output count/mean/stdDev/min/max/percentiles/' +
      'histogram, per constraint rollbackRate/flagRate, sensitivity (Spearman rho, strongest input first) and failed ' +
      `runs by code. Same seed, same answer. Default ${DEFAULT_RUNS} runs, percentiles ${DEFAULT_PERCENTILES.join('/')}; ` +
      `at most ${limits.maxRuns} runs.`,
    inputSchema: input(
      {
        id: { type: 'string' },
        spec: SPEC_REFERENCE,
        ...SIMULATE_ARGUMENT_SCHEMAS,
      },
      ['outputs'],
    ),
    outputSchema: output(
      {
        runs: { type: 'integer' },
        seed: { type: 'string' },
        failedRuns: { type: 'integer' },
        outputs: { type: 'object' },
        constraints: { type: 'object' },
        sensitivity: { type: 'object' },
      },
      ['runs', 'outputs'],
    ),
    annotations: READ,
    run: async (a, ctx) => {
      try {
        const result = await runSimulation(models, a, limits, {
          signal: ctx.signal,
          progress: (done, total) => ctx.progress?.(done, total, `${done} of ${total} runs`),
        });
        return okResult(result, 'ask for fewer outputs');
      } catch (err) {
        ctx.signal.throwIfAborted();
        return errorResult(err);
      }
    },
  };
}
