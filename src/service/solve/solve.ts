/**
 * `solve`: which inputs give an output its target value (goal seek), or make it as small or as
 * large as it can be (an objective), within bounds and constraints. Each point tried is one
 * incremental reactive cycle on a private copy of the model, as simulate runs them; the search
 * plan (src/calc/solve) proposes the points. A point the model's rollback constraints or schema
 * refuse, or that breaks an extra constraint, is infeasible: it ranks below every feasible one,
 * so an answer that breaks a constraint is never reported as met.
 */
import {
  CalcError,
  compareScores,
  gridEnds,
  parseAddress,
  patternMatches,
  search,
  snap,
  solveConstraint,
  type JsonValue,
  type ModelRuntime,
  type Score,
  type SolveConstraint,
  type SolveVariable,
} from '../../calc/index.js';

/** A varied input's bounds as asked for (`step` for a grid; integers get 1 from their schema). */
export interface VaryBounds {
  min: number;
  max: number;
  step?: number;
  start?: number;
}

export type SolveTarget =
  | { path: string; kind: 'value' | 'atMost' | 'atLeast'; value: number; tolerance?: number }
  | { path: string; kind: 'minimize' | 'maximize' };

export interface SolveRequest {
  vary: Map<string, VaryBounds>;
  goal: SolveTarget;
  constraints: string[];
  /** More paths to report at the answer, besides the goal's. */
  outputs: string[];
  seed: bigint;
  maxIterations: number;
  timeLimitMs: number;
}

export interface SolveControl {
  signal?: AbortSignal;
  /** Called every few cycles with the cycles run so far and the most allowed. */
  progress?: (done: number, total: number) => void;
  /** Uniform numbers in [0, 1) from the request's seed, for the restart points. */
  random: () => number;
  now?: () => number;
}

export type StopReason = 'converged' | 'bounds' | 'infeasible' | 'budget';

export interface SolveResult {
  /** The target is met within its tolerance (an objective: a point holding every constraint was found). */
  met: boolean;
  reason: StopReason;
  /** The varied inputs at the answer (the closest point found when the target cannot be met). */
  inputs: Record<string, number>;
  /** The goal's output and the other asked-for paths there. */
  outputs: Record<string, JsonValue | null>;
  target?: {
    path: string;
    value?: number;
    atMost?: number;
    atLeast?: number;
    tolerance: number;
    /** The output at the answer, and how far it misses the target (0: met exactly or inside the bound). */
    achieved: number | null;
    gap: number | null;
  };
  objective?: { minimize?: string; maximize?: string; value: number | null };
  /** Cycles run on the private copy. */
  iterations: number;
  seed: string;
  /** Varied inputs at one of their bounds at the answer. */
  atBounds: string[];
  /** Extra constraints (their text) and the model's constraints (their ids) the answer breaks. */
  broken: string[];
  /** The model's flag constraints flagged at the answer. */
  flagged: string[];
  /** What ended the search early (the iteration or time budget). */
  stopped?: string;
}

/** Evaluations between two yields to the event loop at most; a slow cycle yields after each. */
const CYCLES_PER_SLICE = 16;
const SLICE_MS = 20;
/** A point whose cycle the model refused has no measure of how far off it is: worse than any measured break. */
const REFUSED = 1e300;
const RESTARTS = 3;
/** The default tolerance is a millionth of the target (of 1 for a target under 1); a division keeps 400 / 1e6 exactly 0.0004. */
const TOLERANCE_DIVISOR = 1e6;

function problem(
  code: 'SOLVE_NOT_AN_INPUT' | 'SOLVE_BAD_BOUNDS' | 'SOLVE_NOT_NUMERIC',
  message: string,
  path: string,
) {
  return new CalcError(code, message, { path });
}

/** An input that can be varied: a concrete, writable, numeric path. */
async function variableOf(
  runtime: ModelRuntime,
  address: string,
  bounds: VaryBounds,
): Promise<SolveVariable> {
  const parsed = parseAddress(address);
  if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', `vary '${address}': ${parsed.message}`);
  if (address.includes('[*]'))
    throw new CalcError('INVALID_ARGUMENT', `vary '${address}' has a wildcard; name one concrete path`);
  const model = runtime.model;
  if (model.derivedTargets.has(address) || model.derivations.some((d) => patternMatches(d.path, parsed.path)))
    throw problem(
      'SOLVE_NOT_AN_INPUT',
      `'${address}' is computed by the model; vary one of its inputs`,
      address,
    );
  const schema = runtime.staticSchemaAt(parsed.path);
  if (schema.readOnly === true) throw problem('SOLVE_NOT_AN_INPUT', `'${address}' is read-only`, address);
  const current = await runtime.getValue(address);
  if (Object.keys(schema).length === 0 && current === undefined)
    throw new CalcError('PATH_NOT_FOUND', `vary '${address}' names nothing in the model`, { path: address });
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.includes('number') && !types.includes('integer'))
    throw problem(
      'SOLVE_NOT_NUMERIC',
      `'${address}' is not a number (its schema says ${types.join(' or ')})`,
      address,
    );
  if (current !== undefined && current !== null && typeof current !== 'number')
    throw problem('SOLVE_NOT_NUMERIC', `'${address}' holds ${typeof current}, not a number`, address);
  const integer = types.length > 0 && !types.includes('number');
  let { min, max } = bounds;
  if (!Number.isFinite(min) || !Number.isFinite(max) || !(min < max))
    throw problem('SOLVE_BAD_BOUNDS', `vary '${address}': min must be a number below max`, address);
  // the schema's own bounds narrow the box: points past them would only be refused
  if (typeof schema.minimum === 'number') min = Math.max(min, schema.minimum);
  if (typeof schema.maximum === 'number') max = Math.min(max, schema.maximum);
  if (!(min <= max))
    throw problem(
      'SOLVE_BAD_BOUNDS',
      `vary '${address}': the bounds lie outside the schema's ${String(schema.minimum)}..${String(schema.maximum)}`,
      address,
    );
  const step = bounds.step ?? (integer ? 1 : undefined);
  if (step !== undefined && !(Number.isFinite(step) && step > 0))
    throw problem('SOLVE_BAD_BOUNDS', `vary '${address}': step must be a number above 0`, address);
  if (integer && step !== undefined && !Number.isInteger(step))
    throw problem('SOLVE_BAD_BOUNDS', `vary '${address}' is an integer: its step must be whole`, address);
  const variable: SolveVariable = { min, max, ...(step !== undefined ? { step } : {}), start: min };
  const [lo, hi] = gridEnds(variable);
  if (!(lo <= hi))
    throw problem(
      'SOLVE_BAD_BOUNDS',
      `vary '${address}': no multiple of ${step} lies between ${min} and ${max}`,
      address,
    );
  if (bounds.start !== undefined && !Number.isFinite(bounds.start))
    throw problem('SOLVE_BAD_BOUNDS', `vary '${address}': start must be a number`, address);
  const from = bounds.start ?? (typeof current === 'number' ? current : (lo + hi) / 2);
  variable.start = snap(variable, from);
  return variable;
}

/** An output path must name something the model has (as simulate checks its outputs). */
async function checkOutput(runtime: ModelRuntime, address: string, what: string): Promise<void> {
  const parsed = parseAddress(address);
  if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', `${what} '${address}': ${parsed.message}`);
  if (address.includes('[*]'))
    throw new CalcError('INVALID_ARGUMENT', `${what} '${address}' has a wildcard; name one concrete path`);
  const computed = runtime.model.derivations.some(
    (d) => d.address === address || patternMatches(d.path, parsed.path),
  );
  if (computed || (await runtime.getValue(address)) !== undefined) return;
  const fields = runtime.model.derivations.map((d) => d.address);
  throw new CalcError(
    'PATH_NOT_FOUND',
    `${what} '${address}' names nothing in the model; its computed fields: ${fields.join(', ') || 'none'}`,
    { path: address, fields },
  );
}

interface Evaluated {
  score: Score;
  /** The goal's output where the cycle committed. */
  output?: JsonValue;
  committed: boolean;
}

/**
 * Solves on `runtime`, a private copy the caller gives up (its state changes).
 * @throws CalcError INVALID_ARGUMENT, PATH_NOT_FOUND, SOLVE_NOT_AN_INPUT, SOLVE_BAD_BOUNDS,
 *   SOLVE_NOT_NUMERIC; the signal's reason when cancelled
 */
export async function solve(
  runtime: ModelRuntime,
  request: SolveRequest,
  control: SolveControl,
): Promise<SolveResult> {
  const paths = [...request.vary.keys()];
  if (paths.length === 0) throw new CalcError('INVALID_ARGUMENT', 'name at least one input to vary');
  const variables: SolveVariable[] = [];
  for (const p of paths) variables.push(await variableOf(runtime, p, request.vary.get(p)!));
  const goal = request.goal;
  await checkOutput(
    runtime,
    goal.path,
    'kind' in goal && (goal.kind === 'minimize' || goal.kind === 'maximize') ? goal.kind : 'target',
  );
  for (const p of request.outputs) await checkOutput(runtime, p, 'output');
  const constraints: SolveConstraint[] = request.constraints.map(solveConstraint);
  const isTarget = goal.kind === 'value' || goal.kind === 'atMost' || goal.kind === 'atLeast';
  const targetValue = isTarget ? goal.value : 0;
  const tolerance = isTarget ? (goal.tolerance ?? Math.max(1, Math.abs(targetValue)) / TOLERANCE_DIVISOR) : 0;

  const now = control.now ?? (() => performance.now());
  const deadline = now() + request.timeLimitMs;
  let iterations = 0;
  let sliceStart = now();
  let sliceCycles = 0;
  let numericSeen = false;
  const cache = new Map<string, Evaluated>();

  const scoreOf = (output: JsonValue | undefined, violation: number): Score => {
    if (typeof output !== 'number' || !Number.isFinite(output))
      return { violation: violation + REFUSED, gap: 0, objective: 0 };
    const signed = output - targetValue;
    switch (goal.kind) {
      case 'value':
        return { violation, gap: Math.abs(signed), objective: 0, ...(violation === 0 ? { signed } : {}) };
      case 'atMost':
        return {
          violation,
          gap: Math.max(0, signed),
          objective: Math.max(0, -signed),
          ...(violation === 0 ? { signed } : {}),
        };
      case 'atLeast':
        return {
          violation,
          gap: Math.max(0, -signed),
          objective: Math.max(0, signed),
          ...(violation === 0 ? { signed } : {}),
        };
      case 'minimize':
        return { violation, gap: 0, objective: output };
      case 'maximize':
        return { violation, gap: 0, objective: -output };
    }
  };

  /** One cycle on the copy at this point, or the remembered answer for a point already tried. */
  const evaluate = async (point: number[]): Promise<Evaluated> => {
    const key = point.join(',');
    const known = cache.get(key);
    if (known) return known;
    const writes: Record<string, number> = Object.create(null) as Record<string, number>;
    point.forEach((v, i) => (writes[paths[i]!] = v));
    iterations++;
    let evaluated: Evaluated;
    try {
      await runtime.mutate(writes);
      const output = await runtime.getValue(goal.path);
      if (typeof output === 'number') numericSeen = true;
      else if (!numericSeen && output !== undefined && output !== null)
        throw problem('SOLVE_NOT_NUMERIC', `'${goal.path}' is ${typeof output}, not a number`, goal.path);
      let violation = 0;
      if (constraints.length > 0) {
        const state = await runtime.getState();
        for (const c of constraints) violation += await c.violation(state, runtime.model.bindings);
      }
      evaluated = {
        score: scoreOf(output ?? undefined, violation),
        committed: true,
        ...(output !== undefined ? { output } : {}),
      };
    } catch (err) {
      if (!(err instanceof CalcError) || err.code.startsWith('SOLVE_')) throw err;
      // the model refused the point (a rollback constraint, a value its schema refuses)
      evaluated = { score: { violation: REFUSED, gap: 0, objective: 0 }, committed: false };
    }
    cache.set(key, evaluated);
    return evaluated;
  };

  let best: { point: number[]; evaluated: Evaluated } | undefined;
  let stopped: string | undefined;
  const plan = search({
    variables,
    bracket: isTarget && variables.length === 1,
    random: control.random,
    restarts: RESTARTS,
  });
  let next = plan.next();
  while (!next.done) {
    const evaluated = await evaluate(next.value);
    if (!best || compareScores(evaluated.score, best.evaluated.score) < 0)
      best = { point: next.value, evaluated };
    if (goal.kind === 'value' && met(best.evaluated.score, tolerance)) break;
    if (++sliceCycles >= CYCLES_PER_SLICE || now() - sliceStart >= SLICE_MS) {
      control.progress?.(iterations, request.maxIterations);
      await new Promise<void>((resolve) => setImmediate(resolve));
      control.signal?.throwIfAborted();
      sliceCycles = 0;
      sliceStart = now();
    }
    if (iterations >= request.maxIterations) {
      stopped = `the iteration budget of ${request.maxIterations} cycles ran out`;
      break;
    }
    if (now() >= deadline) {
      stopped = `the time budget of ${request.timeLimitMs / 1000} s ran out`;
      break;
    }
    next = plan.next(evaluated.score);
  }
  control.progress?.(iterations, request.maxIterations);
  return report(runtime, request, best!, { tolerance, iterations, stopped, constraints, variables });
}

function met(score: Score, tolerance: number): boolean {
  return score.violation === 0 && score.gap <= tolerance;
}

/** The answer: the best point's inputs, its outputs re-read (the copy last ran another point). */
async function report(
  runtime: ModelRuntime,
  request: SolveRequest,
  best: { point: number[]; evaluated: Evaluated },
  run: {
    tolerance: number;
    iterations: number;
    stopped: string | undefined;
    constraints: SolveConstraint[];
    variables: SolveVariable[];
  },
): Promise<SolveResult> {
  const paths = [...request.vary.keys()];
  const goal = request.goal;
  const inputs: Record<string, number> = {};
  paths.forEach((p, i) => (inputs[p] = best.point[i]!));
  const outputs: Record<string, JsonValue | null> = {};
  const broken: string[] = [];
  let flagged: string[] = [];
  try {
    const cycle = await runtime.mutate(inputs);
    flagged = cycle.flaggedConstraints.map((f) => f.constraintId);
    for (const p of [goal.path, ...request.outputs]) outputs[p] = (await runtime.getValue(p)) ?? null;
    const state = await runtime.getState();
    for (const c of run.constraints)
      if ((await c.violation(state, runtime.model.bindings)) > 0) broken.push(c.text);
  } catch (err) {
    if (!(err instanceof CalcError)) throw err;
    const violations = (err.details.violations ?? []) as {
      constraintId?: string;
      path?: string;
      message?: string;
    }[];
    for (const v of violations) broken.push(v.constraintId ?? `${v.path ?? ''} ${v.message ?? ''}`.trim());
    if (violations.length === 0) broken.push(err.code);
    for (const p of [goal.path, ...request.outputs]) outputs[p] = null;
  }
  const score = best.evaluated.score;
  const achieved = typeof outputs[goal.path] === 'number' ? (outputs[goal.path] as number) : null;
  const isMet = best.evaluated.committed && met(score, run.tolerance) && broken.length === 0;
  const atBounds = paths.filter((_, i) => {
    const [lo, hi] = gridEnds(run.variables[i]!);
    return best.point[i] === lo || best.point[i] === hi;
  });
  const isTarget = goal.kind === 'value' || goal.kind === 'atMost' || goal.kind === 'atLeast';
  let reason: StopReason;
  if (isMet && isTarget) reason = 'converged';
  else if (run.stopped) reason = 'budget';
  else if (!isMet) reason = 'infeasible';
  else reason = atBounds.length > 0 ? 'bounds' : 'converged';
  const result: SolveResult = {
    met: isMet,
    reason,
    inputs,
    outputs,
    iterations: run.iterations,
    seed: request.seed.toString(),
    atBounds,
    broken,
    flagged,
    ...(run.stopped ? { stopped: run.stopped } : {}),
  };
  if (isTarget) {
    const gap =
      achieved === null
        ? null
        : goal.kind === 'value'
          ? Math.abs(achieved - goal.value)
          : goal.kind === 'atMost'
            ? Math.max(0, achieved - goal.value)
            : Math.max(0, goal.value - achieved);
    result.target = {
      path: goal.path,
      [goal.kind]: goal.value,
      tolerance: run.tolerance,
      achieved,
      gap,
    };
  } else {
    result.objective = { [goal.kind]: goal.path, value: achieved };
  }
  return result;
}
