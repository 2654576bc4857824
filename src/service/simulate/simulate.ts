/**
 * `simulate`: a calc model run many times over inputs drawn from distributions (Monte Carlo). Each
 * run is one incremental reactive cycle on a private copy of the model (never the stored model,
 * never a rebuild): the inputs are written, the outputs read. The answer summarises the outputs,
 * how often each constraint would refuse (rollback) or flag a run, and how strongly each input
 * drives each output (rank correlation, in tornado order). The same seed gives the same answer.
 */
import { CalcError, parseAddress, patternMatches, type ModelRuntime } from '../../calc/index.js';
import { L64X128MixRandom } from '../../synth/index.js';
import { inputSource, type InputModel } from './inputs.js';
import { RunStatistics, SAMPLE_SIZE, type OutputSummary } from './statistics.js';

export const DEFAULT_PERCENTILES = [5, 50, 95] as const;
export const DEFAULT_RUNS = 1000;
/** Runs between two yields to the event loop (progress, cancellation, other requests). */
const RUNS_PER_SLICE = 256;

export interface SimulationRequest {
  inputs?: Record<string, unknown>;
  inputModel?: InputModel;
  outputs: string[];
  runs: number;
  seed: bigint;
  percentiles: number[];
}

export interface SimulationLimits {
  /** Most runs one simulation may ask for. */
  maxRuns: number;
  /** Wall-clock budget: a simulation still running then stops and answers for the runs done. */
  timeLimitMs: number;
}

export interface SimulationControl {
  signal?: AbortSignal;
  /** Called every slice of runs with the runs done so far. */
  progress?: (done: number, total: number) => void;
  now?: () => number;
}

export interface SimulationResult {
  runs: number;
  seed: string;
  /** Runs whose cycle did not commit (a rollback constraint, a schema refusal, …). */
  failedRuns: number;
  /** Failed runs by error code. */
  failures: Record<string, number>;
  outputs: Record<string, OutputSummary>;
  constraints: Record<string, { rollbackRate: number; flagRate: number }>;
  sensitivity: Record<string, Record<string, number | null>>;
  /** Why the simulation ended before `runs` (the time budget); absent when it ran them all. */
  stopped?: string;
  /** Runs the histograms and correlations are computed on (all of them up to SAMPLE_SIZE). */
  sampledRuns: number;
}

function invalid(message: string): CalcError {
  return new CalcError('INVALID_ARGUMENT', message);
}

/** The addresses are concrete paths the model can write (inputs) or read (outputs). */
function checkPaths(kind: string, paths: readonly string[]): void {
  for (const p of paths) {
    const parsed = parseAddress(p);
    if (!parsed.ok) throw invalid(`${kind} '${p}': ${parsed.message}`);
    if (p.includes('[*]')) throw invalid(`${kind} '${p}' has a wildcard; name one concrete path`);
  }
}

/**
 * An output must name something the model has: a computed field (a rule's target, or a row of a
 * `[*]` rule) or a value in its state. A typo would otherwise summarise nothing, run after run.
 */
async function checkOutputsExist(runtime: ModelRuntime, outputs: readonly string[]): Promise<void> {
  for (const p of outputs) {
    const parsed = parseAddress(p);
    if (!parsed.ok) continue; // checkPaths has refused it already
    const computed = runtime.model.derivations.some(
      (d) => d.address === p || patternMatches(d.path, parsed.path),
    );
    if (computed || (await runtime.getValue(p)) !== undefined) continue;
    const fields = runtime.model.derivations.map((d) => d.address);
    throw new CalcError(
      'PATH_NOT_FOUND',
      `output '${p}' names nothing in the model; its computed fields: ${fields.join(', ') || 'none'}`,
      { path: p, fields },
    );
  }
}

function counter(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}

/**
 * Runs the simulation on `runtime`, a private copy the caller gives up (its state changes).
 * @throws CalcError INVALID_ARGUMENT for a malformed request, PATH_NOT_FOUND for an output that names
 *   nothing in the model; the signal's reason when cancelled
 */
export async function simulate(
  runtime: ModelRuntime,
  request: SimulationRequest,
  limits: SimulationLimits,
  control: SimulationControl = {},
): Promise<SimulationResult> {
  if (!Number.isSafeInteger(request.runs) || request.runs < 1)
    throw invalid('runs must be a whole number of at least 1');
  if (request.runs > limits.maxRuns)
    throw invalid(
      `runs ${request.runs} is over the limit of ${limits.maxRuns} (MODELWORKS_SIMULATE_MAX_RUNS)`,
    );
  if (request.outputs.length === 0) throw invalid('name at least one output path');
  for (const p of request.percentiles)
    if (!(typeof p === 'number' && p >= 0 && p <= 100))
      throw invalid('percentiles are numbers from 0 to 100');
  checkPaths('output', request.outputs);
  await checkOutputsExist(runtime, request.outputs);
  const source = inputSource(request.inputs, request.inputModel, request.seed);
  checkPaths('input', source.paths);

  // the reservoir draws from its own stream, so sampling never shifts the inputs' draws
  const sampling = new L64X128MixRandom(request.seed ^ 0x5eed_5a3e_11f0_d00dn);
  const stats = new RunStatistics(source.paths, request.outputs, () => sampling.nextDouble());
  const rollbacks = counter();
  const flags = counter();
  const failures = counter();
  const now = control.now ?? (() => performance.now());
  const deadline = now() + limits.timeLimitMs;
  let done = 0;
  let failed = 0;
  let stopped: string | undefined;
  const writes: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const values: unknown[] = new Array<unknown>(request.outputs.length);

  while (done < request.runs) {
    if (done > 0 && done % RUNS_PER_SLICE === 0) {
      control.progress?.(done, request.runs);
      await new Promise<void>((resolve) => setImmediate(resolve));
      control.signal?.throwIfAborted();
      if (now() > deadline) {
        stopped = `time limit of ${limits.timeLimitMs / 1000} s reached (MODELWORKS_SIMULATE_TIME_LIMIT_SECONDS)`;
        break;
      }
    }
    const inputs = source.next();
    for (let i = 0; i < inputs.length; i++) writes[source.paths[i]!] = inputs[i];
    done++;
    try {
      const result = await runtime.mutate(writes);
      for (const v of result.flaggedConstraints) flags[v.constraintId] = (flags[v.constraintId] ?? 0) + 1;
    } catch (err) {
      failed++;
      const code = err instanceof CalcError ? err.code : 'INTERNAL';
      failures[code] = (failures[code] ?? 0) + 1;
      if (err instanceof CalcError && err.code === 'CONSTRAINT_VIOLATION') {
        const violations = (err.details.violations ?? []) as { constraintId: string }[];
        for (const v of violations) rollbacks[v.constraintId] = (rollbacks[v.constraintId] ?? 0) + 1;
      }
      continue;
    }
    for (let j = 0; j < request.outputs.length; j++) values[j] = await runtime.getValue(request.outputs[j]!);
    stats.add(inputs, values);
  }
  control.progress?.(done, request.runs);

  const constraints = Object.create(null) as SimulationResult['constraints'];
  for (const c of runtime.model.spec.constraints ?? []) {
    constraints[c.id] = { rollbackRate: (rollbacks[c.id] ?? 0) / done, flagRate: (flags[c.id] ?? 0) / done };
  }
  return {
    runs: done,
    seed: request.seed.toString(),
    failedRuns: failed,
    failures,
    outputs: stats.summaries(request.percentiles),
    constraints,
    sensitivity: stats.sensitivity(),
    ...(stopped ? { stopped } : {}),
    sampledRuns: Math.min(done - failed, SAMPLE_SIZE),
  };
}
