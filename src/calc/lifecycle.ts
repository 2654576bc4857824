/**
 * Model lifecycle operations shared by every surface: prepare (validate + compile), start,
 * evolve, snapshot/restore, dry run, and one-off expression evaluation.
 */
import { formatPath, parseAddress, type Path } from './address.js';
import { CalcError, schemaViolationError } from './errors.js';
import { findUnsafeValue, unsafeValueViolation } from './safe-keys.js';
import { applyEvolution, type SpecEvolution } from './evolution.js';
import { compileExpression, describeJsonataError } from './expression.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from './json.js';
import { compileLibrary, type LibraryExport } from './library.js';
import { compileModel, type CompiledModel } from './program.js';
import { ModelRuntime, type MutationResult, type RuntimeOptions } from './runtime.js';
import { checkValue, effectiveSchema, schemaAt, type SchemaViolation } from './schema.js';
import { normalizeSpec, type ModelSpec } from './spec.js';
import { validateAndCompile, validateSpec, type ValidationReport } from './validator.js';

export interface ModelInfo {
  id: string;
  version: string;
  derivationCount: number;
  metaDerivationCount: number;
  constraintCount: number;
  effectCount: number;
}

export function modelInfo(spec: ModelSpec): ModelInfo {
  return {
    id: spec.id,
    version: spec.version,
    derivationCount: spec.derivations.length,
    metaDerivationCount: spec.metaDerivations.length,
    constraintCount: spec.constraints.length,
    effectCount: spec.effects.length,
  };
}

/**
 * Validates (embedded tests included unless `runTests` is false: a spec whose own tests fail is
 * refused) and compiles a spec.
 * @throws CalcError (SPEC_INVALID) with `details.errors` listing every finding
 */
export async function prepareModel(
  input: unknown,
  options: { runTests?: boolean } = {},
): Promise<{ model: CompiledModel; report: ValidationReport }> {
  const { result: report, model } = await validateAndCompile(input, { runTests: options.runTests ?? true });
  if (!report.valid || !model) {
    throw new CalcError('SPEC_INVALID', 'Model spec validation failed', {
      errors: report.errors,
      warnings: report.warnings,
    });
  }
  // the model validation compiled (from the same normalised spec) is the one creation uses
  return { model, report };
}

/**
 * A runtime seeded the way creation seeds: defaults, one cycle if anything was seeded, then every
 * eager derivation and meta computed.
 */
export async function startRuntime(
  model: CompiledModel,
  options: RuntimeOptions = {},
): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(model, options);
  await runtime.initialize({ recomputeAll: true });
  return runtime;
}

export interface Snapshot {
  modelId: string;
  modelVersion: string;
  baseDoc: JsonObject;
  derivedCache: Record<string, JsonValue>;
  metaCache: Record<string, JsonValue>;
}

export function takeSnapshot(runtime: ModelRuntime): Snapshot {
  const state = runtime.exportState();
  return {
    modelId: runtime.model.spec.id,
    modelVersion: runtime.model.spec.version,
    baseDoc: state.base,
    derivedCache: state.derived,
    metaCache: state.meta,
  };
}

function leafEntries(value: unknown, at: Path, out: [Path, unknown][]): void {
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) leafEntries(v, [...at, k], out);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => leafEntries(v, [...at, i], out));
  } else if (at.length > 0) {
    out.push([at, value]);
  }
}

/**
 * Puts a snapshot back: every leaf of its base document is checked against the static schema
 * plus the snapshot's own meta (read-only fields allowed), then the caches are replaced verbatim.
 * @throws CalcError SCHEMA_VIOLATION (nothing changed) or INVALID_ARGUMENT for a malformed snapshot
 */
export function restoreSnapshot(runtime: ModelRuntime, snapshot: unknown): void {
  if (!isObject(snapshot) || !isObject(snapshot.baseDoc)) {
    throw new CalcError(
      'INVALID_ARGUMENT',
      'a snapshot needs a baseDoc object (and derivedCache, metaCache)',
    );
  }
  const unsafe = findUnsafeValue(snapshot);
  if (unsafe) throw schemaViolationError([unsafeValueViolation('snapshot', unsafe)]);
  const derived = isObject(snapshot.derivedCache) ? (snapshot.derivedCache as Record<string, JsonValue>) : {};
  const meta = isObject(snapshot.metaCache) ? (snapshot.metaCache as Record<string, JsonValue>) : {};
  const metaMap = new Map(Object.entries(meta));
  const leaves: [Path, unknown][] = [];
  leafEntries(snapshot.baseDoc, [], leaves);
  const violations: SchemaViolation[] = [];
  for (const [path, value] of leaves) {
    const address = formatPath(path);
    violations.push(
      ...checkValue(effectiveSchema(runtime.model.spec.schema, path, address, metaMap), value, address, {
        ignoreReadOnly: true,
      }),
    );
  }
  if (violations.length > 0) throw schemaViolationError(violations);
  runtime.loadState({ base: snapshot.baseDoc as JsonObject, derived, meta });
}

export interface EvolutionOutcome {
  runtime: ModelRuntime;
  warnings: { location: string; message: string }[];
}

const SCHEMA_FIELDS: (keyof SpecEvolution)[] = [
  'newSchema',
  'upsertSchemaDefs',
  'removeSchemaDefs',
  'upsertSchemaNodes',
  'removeSchemaNodes',
];

/**
 * Evolves a live model into a new runtime; the caller swaps it in. The live runtime is never
 * touched, so any failure leaves the model as it was.
 * @throws CalcError VERSION_CONFLICT, EVOLUTION_INVALID (errors or incompatibilities), or the
 *   backfill mutation's own errors
 */
export async function evolveRuntime(
  current: ModelRuntime,
  evolution: SpecEvolution,
): Promise<EvolutionOutcome> {
  const spec = current.model.spec;
  if (!isObject(evolution))
    throw new CalcError('EVOLUTION_INVALID', 'a SpecEvolution must be an object', { errors: [] });
  if (evolution.expectedVersion !== undefined && evolution.expectedVersion !== spec.version) {
    throw new CalcError(
      'VERSION_CONFLICT',
      `expected version ${evolution.expectedVersion} but the model is at ${spec.version}; re-read it and retry`,
      {
        expected: evolution.expectedVersion,
        actual: spec.version,
      },
    );
  }
  const evolved = applyEvolution(spec, evolution);
  if (evolved.id !== spec.id) evolved.id = spec.id;
  const report = await validateSpec(evolved, { runTests: true });
  if (!report.valid) {
    throw new CalcError('EVOLUTION_INVALID', 'The evolved spec is invalid', {
      errors: report.errors,
      warnings: report.warnings,
    });
  }
  const model = await compileModel(normalizeSpec(evolved).spec);
  const next = new ModelRuntime(model, { now: current.now });
  const state = current.exportState();
  const derived = Object.fromEntries(
    Object.entries(state.derived).filter(([k]) => model.derivedTargets.has(k)),
  );
  const meta = Object.fromEntries(Object.entries(state.meta).filter(([k]) => metaStillDefined(model, k)));
  next.loadState({ base: state.base, derived, meta });

  if (isObject(evolution.backfill)) {
    const writes: Record<string, unknown> = {};
    for (const [address, value] of Object.entries(evolution.backfill)) {
      const v = await next.getValue(address);
      if (v === undefined || v === null) writes[address] = value;
    }
    if (Object.keys(writes).length > 0) await next.mutate(writes);
  }
  if (SCHEMA_FIELDS.some((f) => evolution[f] !== undefined)) {
    const incompatibilities = strandedValues(model.spec.schema, next.baseDocument());
    if (incompatibilities.length > 0) {
      throw new CalcError(
        'EVOLUTION_INVALID',
        `The schema change would strand ${incompatibilities.length} live value(s)`,
        { incompatibilities },
      );
    }
  }
  await next.recomputeAll();
  return { runtime: next, warnings: report.warnings };
}

/**
 * The runtime under `spec` with `current`'s state unchanged: for a spec change that computes
 * nothing differently (an approval recorded on an effect), so no value is recomputed.
 */
export async function runtimeWithSpec(current: ModelRuntime, spec: ModelSpec): Promise<ModelRuntime> {
  const next = new ModelRuntime(await compileModel(spec), { now: current.now });
  next.loadState(current.exportState());
  return next;
}

function metaStillDefined(model: CompiledModel, key: string): boolean {
  const hash = key.lastIndexOf('#');
  const address = key.slice(0, hash);
  const suffix = key.slice(hash);
  return model.metas.some((m) => {
    if (!m.key.endsWith(suffix)) return false;
    if (m.address === address) return true;
    const parsed = parseAddress(address);
    return (
      m.element !== null &&
      parsed.ok &&
      parsed.path.length === m.path.length &&
      m.path.every((s, i) => s === '*' || s === parsed.path[i])
    );
  });
}

/** Every node of the base document checked against a schema (keyword subset, read-only ignored). */
export function strandedValues(
  schema: JsonObject,
  base: Readonly<Record<string, unknown>>,
): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const walk = (value: unknown, at: Path): void => {
    if (at.length > 0) {
      const address = formatPath(at);
      for (const v of checkValue(schemaAt(schema, at), value, address, { ignoreReadOnly: true }))
        out.push({ path: v.path, message: v.message });
    }
    if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...at, i]));
  };
  walk(base, []);
  return out;
}

/**
 * Compiles a candidate spec in a throwaway runtime, applies optional mutations, returns the merged
 * state. Nothing is registered anywhere.
 * @throws CalcError SPEC_INVALID, or the mutation's own errors
 */
export async function dryRun(
  input: unknown,
  mutations?: Record<string, unknown>,
): Promise<{ state: JsonObject; result: MutationResult | null }> {
  // a dry run previews the spec whatever its tests say (they are what one may be investigating)
  const { model } = await prepareModel(input, { runTests: false });
  const runtime = await startRuntime(model, { historyCapacity: 0 });
  const result = mutations && Object.keys(mutations).length > 0 ? await runtime.mutate(mutations) : null;
  return { state: await runtime.getState(), result };
}

export type EvalExpressionResult =
  | { ok: true; undefined: boolean; result: JsonValue; libraryExports?: LibraryExport[] }
  | { ok: false; error: 'compile' | 'evaluation' | 'library'; message: string };

/** Evaluates one expression against a sample input, with an optional library and constants. */
export async function evalExpression(
  expr: string,
  input: unknown = {},
  library?: unknown,
  constants: Record<string, unknown> = {},
): Promise<EvalExpressionResult> {
  let bindings: Record<string, unknown> = { const: constants };
  let libraryExports: LibraryExport[] | undefined;
  if (library !== undefined && library !== null) {
    const lib = await compileLibrary(library, constants);
    const errors = lib.findings.filter((f) => f.severity === 'error');
    if (errors.length > 0 || !lib.library) {
      return {
        ok: false,
        error: 'library',
        message: errors.map((e) => e.message).join('; ') || 'library did not compile',
      };
    }
    bindings = { ...lib.library.bindings, const: constants };
    libraryExports = lib.library.exports;
  }
  const compiled = compileExpression(expr);
  if (!compiled.ok) return { ok: false, error: 'compile', message: compiled.message };
  try {
    const value = await compiled.expr.evaluate(input, bindings);
    const result: EvalExpressionResult = {
      ok: true,
      undefined: value === undefined,
      result: value === undefined ? null : (cloneJson(value) as JsonValue),
    };
    if (libraryExports) result.libraryExports = libraryExports;
    return result;
  } catch (err) {
    return { ok: false, error: 'evaluation', message: describeJsonataError(err) };
  }
}
