/**
 * The authoring operations: pure functions over a candidate spec that never touch a registry, so
 * the embedded service and a remote client both run them in-process.
 */
import {
  CalcError,
  dryRun,
  evalExpression,
  isObject,
  normalizeSpec,
  runTests,
  validateSpec,
  type EvalExpressionResult,
  type JsonObject,
  type TestReport,
  type ValidationReport,
} from '../calc/index.js';

function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (!isObject(value)) throw new CalcError('INVALID_ARGUMENT', `${what} must be a JSON object`);
  return value;
}

export const authoring = {
  validateSpec(spec: unknown): Promise<ValidationReport> {
    return validateSpec(spec, { runTests: true });
  },

  evalExpression(
    expr: string,
    input?: unknown,
    library?: unknown,
    constants?: Record<string, unknown>,
  ): Promise<EvalExpressionResult> {
    return evalExpression(expr, input ?? {}, library, constants ?? {});
  },

  /** Runs the spec's embedded tests, or the given cases instead. */
  async testSpec(spec: unknown, tests?: unknown): Promise<TestReport> {
    const { spec: normalized } = normalizeSpec(requireObject(spec, 'spec'));
    if (tests === undefined) return runTests(normalized);
    if (!Array.isArray(tests))
      throw new CalcError('INVALID_ARGUMENT', 'tests must be an array of {description?, given, expect}');
    const { spec: withTests } = normalizeSpec({ ...(spec as object), tests });
    return runTests(normalized, withTests.tests);
  },

  async dryRun(spec: unknown, mutations?: unknown): Promise<JsonObject> {
    const m =
      mutations === undefined || mutations === null ? undefined : requireObject(mutations, 'mutations');
    return (await dryRun(spec, m)).state;
  },
};
