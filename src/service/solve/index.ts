/**
 * The `solve` operation as every surface calls it (MCP tool, REST route, CLI): arguments decoded
 * and checked once, the model resolved (a live model's private copy, or a spec compiled for the
 * run), budgets from the environment, and with `apply: true` the answer written to the live model
 * as one ordinary audited cycle. Solves share simulate's gate: both run cycles on private copies.
 */
import { CalcError, isObject, prepareModel, startRuntime, type ModelRuntime } from '../../calc/index.js';
import { L64X128MixRandom } from '../../synth/index.js';
import type { MutationSummary, ModelStatus, WriteOptions } from '../calc-api.js';
import { seedOf, simulationGate, wholeSetting } from '../simulate/index.js';
import {
  solve,
  type SolveControl,
  type SolveRequest,
  type SolveResult,
  type SolveTarget,
  type VaryBounds,
} from './solve.js';

export type { SolveResult } from './solve.js';

const PATHS = { type: 'array', items: { type: 'string' } } as const;

/** The JSON Schema of solve's arguments (without the model: `id` or `spec`), for every surface. */
export const SOLVE_ARGUMENT_SCHEMAS = {
  vary: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        min: { type: 'number' },
        max: { type: 'number' },
        step: { type: 'number' },
        start: { type: 'number' },
      },
      required: ['min', 'max'],
    },
  },
  target: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      value: { type: 'number' },
      atMost: { type: 'number' },
      atLeast: { type: 'number' },
      tolerance: { type: 'number' },
    },
    required: ['path'],
  },
  objective: { type: 'object', properties: { minimize: { type: 'string' }, maximize: { type: 'string' } } },
  constraints: PATHS,
  outputs: PATHS,
  seed: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
  maxIterations: { type: 'integer', minimum: 1 },
  timeLimitSeconds: { type: 'number', exclusiveMinimum: 0 },
  apply: { type: 'boolean' },
} as const;

export const MAX_ITERATIONS_ENV = 'MODELWORKS_SOLVE_MAX_ITERATIONS';
export const SOLVE_TIME_LIMIT_ENV = 'MODELWORKS_SOLVE_TIME_LIMIT_SECONDS';
export const DEFAULT_ITERATIONS = 5000;

export interface SolveLimits {
  /** Most cycles one solve may run (a request may ask for fewer). */
  maxIterations: number;
  /** Longest a solve may run (a request may ask for less). */
  timeLimitMs: number;
}

/** The limits MODELWORKS_SOLVE_* set; `defaults` differ by surface (the CLI allows more). */
export function solveLimitsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { maxIterations: number; timeLimitSeconds: number } = {
    maxIterations: 10_000,
    timeLimitSeconds: 60,
  },
): SolveLimits {
  return {
    maxIterations: wholeSetting(env, MAX_ITERATIONS_ENV, defaults.maxIterations, 10_000_000),
    timeLimitMs: wholeSetting(env, SOLVE_TIME_LIMIT_ENV, defaults.timeLimitSeconds, 86_400) * 1000,
  };
}

/** What the surfaces pass, as received (the MCP and REST schemas check the shape first). */
export interface SolveArgs {
  id?: unknown;
  spec?: unknown;
  vary?: unknown;
  target?: unknown;
  objective?: unknown;
  constraints?: unknown;
  outputs?: unknown;
  seed?: unknown;
  maxIterations?: unknown;
  timeLimitSeconds?: unknown;
  apply?: unknown;
}

function invalid(message: string): CalcError {
  return new CalcError('INVALID_ARGUMENT', message);
}

const isRecord = isObject;

function stringList(v: unknown, what: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))
    throw invalid(`${what} must be a list of strings`);
  return v;
}

const optionalNumber = (v: unknown): v is number | undefined => v === undefined || typeof v === 'number';

function varyOf(v: unknown): Map<string, VaryBounds> {
  if (!isRecord(v)) throw invalid('vary must be an object: input path → {min, max, step?, start?}');
  const out = new Map<string, VaryBounds>();
  for (const path of Object.keys(v)) {
    const b = v[path];
    if (!isRecord(b) || typeof b.min !== 'number' || typeof b.max !== 'number')
      throw invalid(`vary '${path}' needs {min, max} numbers`);
    if (!optionalNumber(b.step) || !optionalNumber(b.start))
      throw invalid(`vary '${path}': step and start are numbers`);
    out.set(path, {
      min: b.min,
      max: b.max,
      ...(b.step !== undefined ? { step: b.step } : {}),
      ...(b.start !== undefined ? { start: b.start } : {}),
    });
  }
  return out;
}

function goalOf(target: unknown, objective: unknown): SolveTarget {
  if ((target === undefined) === (objective === undefined))
    throw invalid('give either target {path, value|atMost|atLeast} or objective {minimize|maximize: path}');
  if (target !== undefined) {
    if (!isRecord(target) || typeof target.path !== 'string') throw invalid('target needs a path');
    const kinds = (['value', 'atMost', 'atLeast'] as const).filter((k) => target[k] !== undefined);
    if (kinds.length !== 1) throw invalid('target takes exactly one of value, atMost, atLeast');
    const kind = kinds[0]!;
    const value = target[kind];
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw invalid(`target ${kind} must be a number`);
    const tolerance = target.tolerance;
    if (
      tolerance !== undefined &&
      !(typeof tolerance === 'number' && tolerance >= 0 && Number.isFinite(tolerance))
    )
      throw invalid('target tolerance must be a number of at least 0');
    return { path: target.path, kind, value, ...(tolerance !== undefined ? { tolerance } : {}) };
  }
  if (!isRecord(objective)) throw invalid('objective must be {minimize: path} or {maximize: path}');
  const kinds = (['minimize', 'maximize'] as const).filter((k) => objective[k] !== undefined);
  if (kinds.length !== 1) throw invalid('objective takes exactly one of minimize, maximize');
  const path = objective[kinds[0]!];
  if (typeof path !== 'string') throw invalid(`objective ${kinds[0]} must be a path`);
  return { path, kind: kinds[0]! };
}

/** Where the model comes from, whether to apply the answer, and the request, checked. */
export function decodeSolveArgs(
  args: SolveArgs,
  limits: SolveLimits,
): { source: { id: string } | { spec: unknown }; apply: boolean; request: SolveRequest } {
  const hasId = args.id !== undefined;
  if (hasId === (args.spec !== undefined)) throw invalid('give either id (a live model) or spec, not both');
  if (hasId && typeof args.id !== 'string') throw invalid('id must be a string');
  if (args.apply !== undefined && typeof args.apply !== 'boolean')
    throw invalid('apply must be true or false');
  const apply = args.apply === true;
  if (apply && !hasId)
    throw invalid('apply needs a live model (id): a spec has nothing to write the answer to');
  const maxIterations = args.maxIterations ?? Math.min(DEFAULT_ITERATIONS, limits.maxIterations);
  if (typeof maxIterations !== 'number' || !Number.isSafeInteger(maxIterations) || maxIterations < 1)
    throw invalid('maxIterations must be a whole number of at least 1');
  if (maxIterations > limits.maxIterations)
    throw invalid(
      `maxIterations ${maxIterations} is over the limit of ${limits.maxIterations} (${MAX_ITERATIONS_ENV})`,
    );
  const seconds = args.timeLimitSeconds ?? limits.timeLimitMs / 1000;
  if (typeof seconds !== 'number' || !(seconds > 0))
    throw invalid('timeLimitSeconds must be a number above 0');
  if (seconds * 1000 > limits.timeLimitMs)
    throw invalid(
      `timeLimitSeconds ${seconds} is over the limit of ${limits.timeLimitMs / 1000} (${SOLVE_TIME_LIMIT_ENV})`,
    );
  const request: SolveRequest = {
    vary: varyOf(args.vary),
    goal: goalOf(args.target, args.objective),
    constraints: stringList(args.constraints, 'constraints'),
    outputs: stringList(args.outputs, 'outputs'),
    seed: seedOf(args.seed),
    maxIterations,
    timeLimitMs: seconds * 1000,
  };
  return { source: hasId ? { id: args.id as string } : { spec: args.spec }, apply, request };
}

/** What solve needs of the calc service: a private copy, and for `apply` the revision and a write. */
export interface SolveModels {
  scratchCopy(id: string): Promise<ModelRuntime>;
  getModelInfo(id: string): Promise<ModelStatus>;
  mutate(id: string, mutations: unknown, options?: WriteOptions): Promise<MutationSummary>;
}

/** A solve's answer, and with `apply` what became of writing it. */
export type SolveAnswer = SolveResult & {
  applied?: { committed: boolean; revision?: number; reason?: string };
};

/**
 * Solves on a live model's private copy (the model itself untouched unless `apply`) or a spec.
 * Runs behind the simulation gate. With `apply: true` and the target met, the inputs found are
 * written as one ordinary cycle, only if nobody has written the model since the copy was taken.
 * @throws CalcError INVALID_ARGUMENT, MODEL_NOT_FOUND, SPEC_INVALID, PATH_NOT_FOUND, SOLVE_*, BUSY,
 *   VERSION_CONFLICT (apply, after a concurrent write); the signal's reason when cancelled
 */
export async function runSolve(
  models: SolveModels,
  args: SolveArgs,
  limits: SolveLimits,
  control: Omit<SolveControl, 'random'> & { source?: WriteOptions['source'] } = {},
): Promise<SolveAnswer> {
  const { source, apply, request } = decodeSolveArgs(args, limits);
  const random = new L64X128MixRandom(request.seed);
  return simulationGate().run(async () => {
    let revision: number | undefined;
    let runtime: ModelRuntime;
    if ('id' in source) {
      // the revision first: a write between the two makes apply refuse, never write over it
      if (apply) revision = (await models.getModelInfo(source.id)).revision;
      runtime = await models.scratchCopy(source.id);
    } else {
      const { model } = await prepareModel(source.spec);
      runtime = await startRuntime(model, { historyCapacity: 0 });
    }
    const result: SolveAnswer = await solve(runtime, request, {
      ...control,
      random: () => random.nextDouble(),
    });
    if (!apply || !('id' in source)) return result;
    if (!result.met) {
      result.applied = { committed: false, reason: 'the target was not met, so nothing was written' };
      return result;
    }
    const written = await models.mutate(source.id, result.inputs, {
      expectedRevision: revision!,
      ...(control.source ? { source: control.source } : {}), // who asked, for the audit trail
    });
    result.applied = {
      committed: written.unchanged !== true,
      ...(written.revision !== undefined ? { revision: written.revision } : {}),
      ...(written.unchanged ? { reason: 'the model already holds these inputs' } : {}),
    };
    return result;
  }, control.signal);
}
