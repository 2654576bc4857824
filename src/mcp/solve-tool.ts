/**
 * The `solve` tool: goal seek and optimisation over a live model (its private copy) or a spec
 * (src/service/solve). Progress notifications while it runs; cancellation stops it. With
 * `apply: true` the answer is written to the live model as one ordinary cycle.
 */
import { specOf } from './simulate-tool.js';
import { CalcError } from '../calc/index.js';
import {
  runSolve,
  SOLVE_ARGUMENT_SCHEMAS,
  solveLimitsFromEnv,
  type SolveModels,
} from '../service/solve/index.js';
import { CARD_META_KEY, SHOWN_IN_CARD, simulationCardPayload } from './card-tools.js';
import { errorResult, okResult, type ToolResult } from './results.js';
import { input, output, WRITE, type ToolDefinition } from './tool.js';

/** The calc service where it is in this process; a clear refusal of `id` where it is not. */
function solveModels(calc: unknown): SolveModels {
  if (calc !== null && typeof calc === 'object' && 'scratchCopy' in calc) return calc as SolveModels;
  const remote = (): Promise<never> =>
    Promise.reject(
      new CalcError(
        'INVALID_ARGUMENT',
        'this server reaches its models remotely: solve a spec instead of an id',
      ),
    );
  return { scratchCopy: remote, getModelInfo: remote, mutate: remote };
}

/** Every path the solve names: the varied inputs, the target or objective and the extra outputs. */
function pathsOf(a: Record<string, unknown>): string[] {
  const record = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const goal = [record(a.target).path, record(a.objective).minimize, record(a.objective).maximize];
  const outputs = Array.isArray(a.outputs) ? a.outputs : [];
  return [...Object.keys(record(a.vary)), ...goal, ...outputs].filter(
    (p): p is string => typeof p === 'string',
  );
}

async function withCard(out: ToolResult, a: Record<string, unknown>, calc: unknown): Promise<ToolResult> {
  if (out.isError) return out;
  const notes = { ...simulationCardPayload(await specOf(a, calc), pathsOf(a)), mode: 'solve' };
  return { ...out, _meta: { [CARD_META_KEY]: notes } };
}

const TYPE = (type: string) => ({ type });
/** The arguments as tools/list shows them: each with its type, the details in the description. */
const LISTED = {
  id: TYPE('string'),
  spec: TYPE('object'),
  vary: TYPE('object'),
  target: TYPE('object'),
  objective: TYPE('object'),
  constraints: TYPE('array'),
  outputs: TYPE('array'),
  seed: TYPE('integer'),
  maxIterations: TYPE('integer'),
  timeLimitSeconds: TYPE('number'),
  apply: TYPE('boolean'),
};

export function solveTool(calc: unknown): ToolDefinition {
  const models = solveModels(calc);
  const limits = solveLimitsFromEnv(); // a malformed setting stops the server at start
  return {
    name: 'solve',
    title: 'Solve (goal seek)',
    description:
      'Goal seek/optimise a model (id: private copy; or spec): vary {"$.in": {min, max, step?}} for target {path, ' +
      'value|atMost|atLeast} or objective {minimize|maximize: path}; constraints: JSONata that must hold. Returns ' +
      'inputs, outputs, met, reason (converged|bounds|infeasible|budget). apply:true writes a met answer.',
    // the listing names the arguments only (its budget is tight); the full schemas check each call
    inputSchema: { type: 'object', properties: LISTED, required: ['vary'] },
    argsSchema: input({ id: { type: 'string' }, spec: { type: 'object' }, ...SOLVE_ARGUMENT_SCHEMAS }, [
      'vary',
    ]),
    outputSchema: output({ met: { type: 'boolean' }, inputs: { type: 'object' } }, ['met']),
    annotations: WRITE, // with apply: true it commits a cycle
    _meta: SHOWN_IN_CARD(),
    run: async (a, ctx) => {
      try {
        const result = await runSolve(models, a, limits, {
          signal: ctx.signal,
          source: 'agent',
          progress: (done, total) => ctx.progress?.(done, total, `${done} cycles`),
        });
        return await withCard(okResult(result, 'ask for fewer outputs'), a, calc);
      } catch (err) {
        ctx.signal.throwIfAborted();
        return errorResult(err);
      }
    },
  };
}
