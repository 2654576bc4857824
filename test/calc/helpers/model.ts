/** Small helpers shared by the calc engine tests: build a live runtime from an inline spec. */
import { expect } from 'vitest';
import { CalcError, type CalcErrorCode } from '../../../src/calc/errors.js';
import { compileModel, type CompiledModel } from '../../../src/calc/program.js';
import { ModelRuntime, type MutationResult, type RuntimeOptions } from '../../../src/calc/runtime.js';
import { normalizeSpec } from '../../../src/calc/spec.js';

export interface Live {
  model: CompiledModel;
  runtime: ModelRuntime;
  /** What `initialize` returned (null when nothing was seeded). */
  init: MutationResult | null;
}

/** Fills `id` and `schema` so tests only write what they exercise. */
export function spec(partial: Record<string, unknown>): Record<string, unknown> {
  return { id: 'test', schema: {}, ...partial };
}

/** normalizeSpec → compileModel, failing the test on shape findings. */
export async function compile(raw: Record<string, unknown>): Promise<CompiledModel> {
  const { spec: normalized, findings } = normalizeSpec(spec(raw));
  expect(findings).toEqual([]);
  return compileModel(normalized);
}

/** The public creation flow: normalize, compile, construct, initialize with recompute-all. */
export async function live(raw: Record<string, unknown>, options: RuntimeOptions = {}): Promise<Live> {
  const model = await compile(raw);
  const runtime = new ModelRuntime(model, options);
  const init = await runtime.initialize({ recomputeAll: true });
  return { model, runtime, init };
}

/** Awaits a promise expected to reject with a CalcError of the given code, and returns the error. */
export async function rejectsWith(promise: Promise<unknown>, code: CalcErrorCode): Promise<CalcError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(CalcError);
  const err = caught as CalcError;
  expect(err.code).toBe(code);
  return err;
}

/** Same for a synchronous call. */
export function throwsWith(fn: () => unknown, code: CalcErrorCode): CalcError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(CalcError);
  const err = caught as CalcError;
  expect(err.code).toBe(code);
  return err;
}
