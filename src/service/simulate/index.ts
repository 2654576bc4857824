/**
 * The `simulate` operation as every surface calls it (MCP tool, REST route, CLI): arguments decoded
 * and checked once, the model resolved (a live model's private copy, or a spec compiled for the
 * run), limits from the environment.
 */
import { randomBytes } from 'node:crypto';
import { CalcError, prepareModel, startRuntime, type ModelRuntime } from '../../calc/index.js';
import type { InputModel } from './inputs.js';
import { gateLimitsFromEnv, WorkGate, type GateSettings } from '../work-gate.js';
import {
  DEFAULT_PERCENTILES,
  DEFAULT_RUNS,
  simulate,
  type SimulationControl,
  type SimulationLimits,
  type SimulationRequest,
  type SimulationResult,
} from './simulate.js';

export type { SimulationResult } from './simulate.js';
export { DEFAULT_PERCENTILES, DEFAULT_RUNS } from './simulate.js';

const PATHS = { type: 'array', items: { type: 'string' } } as const;

/** The JSON Schema of simulate's arguments (without the model: `id` or `spec`), for every surface. */
export const SIMULATE_ARGUMENT_SCHEMAS = {
  inputs: { type: 'object', additionalProperties: { type: 'object' } },
  inputModel: {
    type: 'object',
    properties: { text: { type: 'string' }, paths: PATHS },
    required: ['text', 'paths'],
  },
  outputs: PATHS,
  runs: { type: 'integer', minimum: 1 },
  seed: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
  percentiles: { type: 'array', items: { type: 'number' } },
} as const;

export const MAX_RUNS_ENV = 'MODELWORKS_SIMULATE_MAX_RUNS';
export const TIME_LIMIT_ENV = 'MODELWORKS_SIMULATE_TIME_LIMIT_SECONDS';
export const DEFAULT_MAX_RUNS = 100_000;
export const DEFAULT_TIME_LIMIT_SECONDS = 120;

/** The limits MODELWORKS_SIMULATE_* set; `defaults` differ by surface (the CLI allows more). */
export function simulationLimitsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { maxRuns: number; timeLimitSeconds: number } = {
    maxRuns: DEFAULT_MAX_RUNS,
    timeLimitSeconds: DEFAULT_TIME_LIMIT_SECONDS,
  },
): SimulationLimits {
  return {
    maxRuns: wholeSetting(env, MAX_RUNS_ENV, defaults.maxRuns, 100_000_000),
    timeLimitMs: wholeSetting(env, TIME_LIMIT_ENV, defaults.timeLimitSeconds, 86_400) * 1000,
  };
}

/**
 * A setting that is a whole number from 1 to `max`, or `fallback` when unset.
 * @throws Error naming the setting, for anything else (read at start-up)
 */
export function wholeSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > max)
    throw new Error(`${name} must be a whole number from 1 to ${max} (got '${text}')`);
  return n;
}

/** Where the model to simulate comes from: a live model or a spec. */
export type ModelSource = { id: string } | { spec: unknown };

/** What the surfaces pass, as received (the MCP and REST schemas check the shape first). */
export interface SimulateArgs {
  id?: unknown;
  spec?: unknown;
  inputs?: unknown;
  inputModel?: unknown;
  outputs?: unknown;
  runs?: unknown;
  seed?: unknown;
  percentiles?: unknown;
}

function invalid(message: string): CalcError {
  return new CalcError('INVALID_ARGUMENT', message);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function stringList(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))
    throw invalid(`${what} must be a list of paths`);
  return v;
}

/** A seed: a whole number (or its text) within 64 bits; a fresh one when absent. */
export function seedOf(v: unknown): bigint {
  if (v === undefined || v === null) return BigInt.asIntN(63, randomBytes(8).readBigUInt64BE());
  const text = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
  if (typeof text !== 'string' || !/^-?\d{1,20}$/.test(text.trim()))
    throw invalid('seed must be a whole number');
  const seed = BigInt(text.trim());
  if (seed !== BigInt.asIntN(64, seed)) throw invalid('seed must fit in 64 bits');
  return seed;
}

/** The model source and the request, checked. */
export function decodeSimulateArgs(args: SimulateArgs): { source: ModelSource; request: SimulationRequest } {
  const hasId = args.id !== undefined;
  if (hasId === (args.spec !== undefined)) throw invalid('give either id (a live model) or spec, not both');
  if (hasId && typeof args.id !== 'string') throw invalid('id must be a string');
  if (args.inputs !== undefined && !isRecord(args.inputs))
    throw invalid('inputs must be an object: input path → distribution');
  let inputModel: InputModel | undefined;
  if (args.inputModel !== undefined) {
    const m = args.inputModel;
    if (!isRecord(m) || typeof m.text !== 'string')
      throw invalid('inputModel must be {text, paths}: a synth model and the input path of each column');
    inputModel = { text: m.text, paths: stringList(m.paths, 'inputModel.paths') };
  }
  const runs = args.runs === undefined ? DEFAULT_RUNS : args.runs;
  if (typeof runs !== 'number') throw invalid('runs must be a whole number');
  const percentiles =
    args.percentiles === undefined ? [...DEFAULT_PERCENTILES] : (args.percentiles as number[]);
  if (!Array.isArray(percentiles) || !percentiles.every((p) => typeof p === 'number'))
    throw invalid('percentiles must be a list of numbers from 0 to 100');
  const request: SimulationRequest = {
    ...(isRecord(args.inputs) ? { inputs: args.inputs } : {}),
    ...(inputModel ? { inputModel } : {}),
    outputs: stringList(args.outputs, 'outputs'),
    runs,
    seed: seedOf(args.seed),
    percentiles,
  };
  return { source: hasId ? { id: args.id as string } : { spec: args.spec }, request };
}

/** What resolves a live model to a private copy (CalcService.scratchCopy). */
export interface ScratchSource {
  scratchCopy(id: string): Promise<ModelRuntime>;
}

async function runtimeFor(source: ModelSource, models: ScratchSource): Promise<ModelRuntime> {
  if ('id' in source) return models.scratchCopy(source.id);
  const { model } = await prepareModel(source.spec);
  return startRuntime(model, { historyCapacity: 0 });
}

/**
 * Simulates a live model (its private copy: the model itself is not touched) or a spec.
 * Runs behind the simulation gate (simulationGate).
 * @throws CalcError INVALID_ARGUMENT, MODEL_NOT_FOUND, SPEC_INVALID, BUSY; the signal's reason when cancelled
 */
export async function runSimulation(
  models: ScratchSource,
  args: SimulateArgs,
  limits: SimulationLimits,
  control: SimulationControl = {},
): Promise<SimulationResult> {
  const { source, request } = decodeSimulateArgs(args);
  return simulationGate().run(
    async () => simulate(await runtimeFor(source, models), request, limits, control),
    control.signal,
  );
}

export const SIMULATION_GATE_SETTINGS: GateSettings = {
  runningEnv: 'MODELWORKS_SIMULATE_CONCURRENCY',
  queueEnv: 'MODELWORKS_SIMULATE_QUEUE',
  defaults: { running: 2, queue: 4 },
};

let gate: WorkGate | undefined;

/**
 * The process's one gate for simulations (settings read on first use): three 100,000-run
 * simulations side by side each got a third of the time and all hit their time limit; now two
 * run, four wait (their time limit starts when they run), and more are refused BUSY.
 */
export function simulationGate(): WorkGate {
  gate ??= new WorkGate(
    'simulations',
    gateLimitsFromEnv(SIMULATION_GATE_SETTINGS),
    SIMULATION_GATE_SETTINGS,
    (message, details) => new CalcError('BUSY', message, details),
  );
  return gate;
}
