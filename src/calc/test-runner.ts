/**
 * Runs a spec's embedded tests (or ad-hoc cases): each test gets a fresh runtime, seeded without
 * the create-time recompute, then `given` as one mutation, then every `expect` compared.
 */
import { parseAddress } from './address.js';
import { CalcError, publicMessage } from './errors.js';
import { isObject, jsonEqual, type JsonValue } from './json.js';
import { compileModel, type CompiledModel } from './program.js';
import { ModelRuntime } from './runtime.js';
import { isMetaProperty, META_KEYWORDS, META_PROPERTIES, type ModelSpec, type SpecTest } from './spec.js';

export interface TestFailure {
  path: string;
  expected: JsonValue;
  actual: JsonValue;
  message: string;
}

export interface TestCaseResult {
  description: string;
  passed: boolean;
  failures?: TestFailure[];
}

export interface TestReport {
  total: number;
  passed: number;
  failed: number;
  results: TestCaseResult[];
}

const show = (v: unknown): string => (v === undefined ? 'missing' : JSON.stringify(v));

/** Numbers compare numerically; expected null matches null or missing; otherwise deep equality. */
export function expectationHolds(expected: unknown, actual: unknown): boolean {
  if (expected === null) return actual === null || actual === undefined;
  if (actual === null || actual === undefined) return false;
  return jsonEqual(expected, actual);
}

/** Runs tests against a compiled model; `tests` defaults to the spec's own. */
export async function runTests(
  specOrModel: ModelSpec | CompiledModel,
  tests?: SpecTest[],
): Promise<TestReport> {
  let model: CompiledModel | undefined;
  let compileError: string | undefined;
  const spec = 'graph' in specOrModel ? specOrModel.spec : specOrModel;
  try {
    model = 'graph' in specOrModel ? specOrModel : await compileModel(specOrModel);
  } catch (err) {
    compileError = publicMessage(err);
  }
  const cases = tests ?? spec.tests;
  const results: TestCaseResult[] = [];
  for (let i = 0; i < cases.length; i++) {
    const t = cases[i]!;
    const description = t.description ?? `test ${i + 1}`;
    const failures = model
      ? await runOne(model, t)
      : [{ path: 'spec', expected: null, actual: null, message: `Spec compilation failed: ${compileError}` }];
    results.push(
      failures.length === 0 ? { description, passed: true } : { description, passed: false, failures },
    );
  }
  const passed = results.filter((r) => r.passed).length;
  return { total: results.length, passed, failed: results.length - passed, results };
}

async function runOne(model: CompiledModel, t: SpecTest): Promise<TestFailure[]> {
  const runtime = new ModelRuntime(model, { historyCapacity: 0 });
  try {
    await runtime.initialize({ recomputeAll: false });
  } catch (err) {
    return [
      {
        path: 'initialize',
        expected: null,
        actual: null,
        message: `Applying defaultValues failed: ${publicMessage(err)}`,
      },
    ];
  }
  if (Object.keys(t.given).length > 0) {
    try {
      await runtime.mutate(t.given);
    } catch (err) {
      const rejected = err instanceof CalcError && err.code === 'CONSTRAINT_VIOLATION';
      const message = rejected
        ? `Mutation rejected by constraint: ${err.message}`
        : `Mutation failed: ${publicMessage(err)}`;
      return [{ path: 'given', expected: null, actual: null, message }];
    }
  }
  const failures: TestFailure[] = [];
  for (const [path, expected] of Object.entries(t.expect)) {
    if (isObject(expected) && isObject(expected.$meta)) {
      failures.push(...checkMeta(runtime, path, expected.$meta));
      continue;
    }
    let actual: JsonValue | undefined;
    try {
      actual = await runtime.getValue(path);
    } catch (err) {
      failures.push({ path, expected, actual: null, message: `${path}: ${publicMessage(err)}` });
      continue;
    }
    if (!expectationHolds(expected, actual)) {
      failures.push({
        path,
        expected,
        actual: actual ?? null,
        message: `${path} expected ${show(expected)} but was ${show(actual)}`,
      });
    }
  }
  return failures;
}

/** `$meta` assertions read meta properties (`relevant`, `readOnly`, …): live value, else the static keyword. */
function checkMeta(runtime: ModelRuntime, path: string, meta: Record<string, JsonValue>): TestFailure[] {
  const failures: TestFailure[] = [];
  const parsed = parseAddress(path);
  const staticSchema = parsed.ok ? runtime.staticSchemaAt(parsed.path) : {};
  for (const [key, expected] of Object.entries(meta)) {
    let actual: JsonValue | undefined;
    if (isMetaProperty(key)) {
      const live = runtime.getMeta(`${path}#${META_PROPERTIES[key]}`);
      actual = live !== undefined && live !== null ? live : staticSchema[META_KEYWORDS[key]];
    } else {
      actual = staticSchema[key];
    }
    if (!expectationHolds(expected, actual)) {
      failures.push({
        path: `${path}#${key}`,
        expected,
        actual: actual ?? null,
        message: `${path}#${key} expected ${show(expected)} but was ${show(actual)}`,
      });
    }
  }
  return failures;
}
