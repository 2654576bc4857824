/**
 * Read-only reports over a compiled model that only the REST API and the console serve: the
 * dependency graph and the verification report (which embedded tests can be checked, and do they pass).
 */
import { isObject, runTests, type CompiledModel, type JsonValue } from '../calc/index.js';

/** The graph shape lives with the engine (src/calc/graph-export.ts); REST and cards share it. */
export type { ModelGraph } from '../calc/index.js';

export interface VerificationCase {
  description: string;
  verifiable: boolean;
  passed: boolean | null;
  given: Record<string, JsonValue>;
  expect: Record<string, JsonValue>;
  /** Actual values of the failed verifiable fields only. */
  actual: Record<string, JsonValue>;
  reason: string | null;
}

export interface VerificationReport {
  modelId: string;
  specVersion: string;
  state: 'green' | 'amber' | 'neutral';
  checkedCount: number;
  passedCount: number;
  unverifiableCount: number;
  cases: VerificationCase[];
}

/** Clock-reading derivations give a different answer on every run: their assertions are not checked. */
const CLOCK = /\$(now|millis)\(/;

const reports = new WeakMap<CompiledModel, Promise<VerificationReport>>();

/** The verification report of a compiled spec version (computed once per compiled model). */
export function verificationReport(model: CompiledModel): Promise<VerificationReport> {
  let report = reports.get(model);
  if (!report) {
    report = buildReport(model);
    reports.set(model, report);
  }
  return report;
}

async function buildReport(model: CompiledModel): Promise<VerificationReport> {
  const { spec } = model;
  const clockPaths = new Set(spec.derivations.filter((d) => CLOCK.test(d.expr)).map((d) => d.path));
  const cases: VerificationCase[] = [];
  let unverifiableCount = 0;
  for (const [i, t] of spec.tests.entries()) {
    const description = t.description ?? `test ${i + 1}`;
    const checkable: Record<string, JsonValue> = {};
    const skipped: string[] = [];
    for (const [path, expected] of Object.entries(t.expect)) {
      if (isObject(expected) || Array.isArray(expected)) skipped.push(`${path} expects a structure`);
      else if (clockPaths.has(path)) skipped.push(`${path} reads the clock`);
      else checkable[path] = expected;
    }
    unverifiableCount += skipped.length;
    const base = { description, given: t.given, expect: t.expect };
    if (Object.keys(checkable).length === 0) {
      cases.push({ ...base, verifiable: false, passed: null, actual: {}, reason: skipped.join('; ') });
      continue;
    }
    const run = await runTests(model, [{ ...t, expect: checkable }]);
    const result = run.results[0];
    const actual: Record<string, JsonValue> = {};
    for (const f of result?.failures ?? []) actual[f.path] = f.actual;
    const failure = result?.failures?.map((f) => f.message).join('; ');
    cases.push({
      ...base,
      verifiable: true,
      passed: result?.passed ?? false,
      actual,
      reason: failure ?? (skipped.length > 0 ? `not checked: ${skipped.join('; ')}` : null),
    });
  }
  const checked = cases.filter((c) => c.verifiable);
  const passedCount = checked.filter((c) => c.passed === true).length;
  return {
    modelId: spec.id,
    specVersion: spec.version,
    state: checked.length === 0 ? 'neutral' : passedCount === checked.length ? 'green' : 'amber',
    checkedCount: checked.length,
    passedCount,
    unverifiableCount,
    cases,
  };
}
