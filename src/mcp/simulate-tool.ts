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
import { CARD_META_KEY, SHOWN_IN_CARD, simulationCardPayload } from './card-tools.js';
import { errorResult, okResult, type ToolResult } from './results.js';
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

/** The spec a simulation or solve ran on, for the card's labels (none when it cannot be read). */
export async function specOf(a: Record<string, unknown>, calc: unknown): Promise<unknown> {
  if (a.spec !== undefined) return a.spec;
  if (typeof a.id !== 'string' || calc === null || typeof calc !== 'object' || !('getSpec' in calc))
    return undefined;
  try {
    return await (calc as { getSpec(id: string): Promise<unknown> }).getSpec(a.id);
  } catch {
    return undefined; // the card then shows paths instead of labels
  }
}

/** Every path the simulation names: its inputs, its input model's columns and its outputs. */
function pathsOf(a: Record<string, unknown>): string[] {
  const list = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : [];
  const inputs = a.inputs !== null && typeof a.inputs === 'object' ? Object.keys(a.inputs) : [];
  const model = a.inputModel !== null && typeof a.inputModel === 'object' ? a.inputModel : {};
  return [...inputs, ...list((model as { paths?: unknown }).paths), ...list(a.outputs)];
}

/** The result, with what the card (MCP Apps) needs to draw it beside the structured content. */
async function withCard(out: ToolResult, a: Record<string, unknown>, calc: unknown): Promise<ToolResult> {
  if (out.isError) return out;
  return { ...out, _meta: { [CARD_META_KEY]: simulationCardPayload(await specOf(a, calc), pathsOf(a)) } };
}

export function simulateTool(calc: unknown): ToolDefinition {
  const models = scratchSource(calc);
  const limits = simulationLimitsFromEnv(); // a malformed setting stops the server at start
  return {
    name: 'simulate',
    title: 'Simulate',
    description:
      'Monte Carlo: run a model (id: on a private copy; or spec) once per draw of its inputs: {"$.path": ' +
      '{"type": <synth generator>, ...params}} (Normal mean/sigma, Triangular, Lognormal, Uniform, Categorical…) or ' +
      'inputModel {text, paths} (correlated inputs). Per output count/mean/stdDev/min/max/percentiles/histogram, per ' +
      'constraint rollbackRate/flagRate, sensitivity (Spearman rho), failed runs by code. Same seed, same answer. ' +
      `Default ${DEFAULT_RUNS} runs, percentiles ${DEFAULT_PERCENTILES.join('/')}; at most ${limits.maxRuns} runs.`,
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
    // a host that shows cards draws the result (histograms, risks, tornado) in the model card
    _meta: SHOWN_IN_CARD(),
    run: async (a, ctx) => {
      try {
        const result = await runSimulation(models, a, limits, {
          signal: ctx.signal,
          progress: (done, total) => ctx.progress?.(done, total, `${done} of ${total} runs`),
        });
        return await withCard(okResult(result, 'ask for fewer outputs'), a, calc);
      } catch (err) {
        ctx.signal.throwIfAborted();
        return errorResult(err);
      }
    },
  };
}
