/**
 * The stateless runner behind model cards: a spec travels with the card, nothing is registered.
 * Compiled specs are cached by the SHA-256 of their canonical JSON (200 specs, one hour idle), so
 * every edit recomputes on a fresh runtime without compiling again. A spec the cache has dropped is
 * answered with `spec_unknown`; the card then sends it again.
 */
import { createHash } from 'node:crypto';
import {
  CalcError,
  canonicalJson,
  cardState,
  compileModel,
  explainValue,
  inputValues,
  isObject,
  modelGraph,
  normalizeSpec,
  outputValues,
  runTests,
  startRuntime,
  validateSpec,
  type CardState,
  type CompiledModel,
  type ConstraintViolation,
  type JsonObject,
  type JsonValue,
  type ModelGraph,
  type ModelRuntime,
  type ModelSpec,
  type ValueExplanation,
} from '../calc/index.js';

export const MAX_SPEC_BYTES = 64 * 1024;
export const MAX_EXPRESSIONS = 200;
export const CACHE_SPECS = 200;
export const CACHE_IDLE_MS = 60 * 60 * 1000;

export interface Finding {
  location: string;
  message: string;
}

/** A refusal the card tools turn into a structured error result. */
export class CardError extends Error {
  constructor(readonly payload: { error: string; [key: string]: unknown }) {
    super(typeof payload.message === 'string' ? payload.message : payload.error);
  }
}

/** `{valid:false, errors}`: what the assistant fixes and sends again. */
function invalid(errors: Finding[], warnings: Finding[] = []): CardError {
  return new CardError({
    error: 'Invalid spec',
    valid: false,
    errors,
    warnings,
    message: errors.map((e) => `${e.location}: ${e.message}`).join('; '),
  });
}

export interface CompiledCard {
  specHash: string;
  spec: ModelSpec;
  model: CompiledModel;
  graph: ModelGraph;
  warnings: Finding[];
}

export interface RejectedInput {
  path: string;
  value: unknown;
  reason: string;
}

/** One rejection, path-attributed where the refusal names one. */
export interface Issue {
  path?: string;
  constraintId?: string;
  message: string;
}

export interface ComputedCard extends CardState {
  compiled: CompiledCard;
  inputs: Record<string, JsonValue>;
  outputs: Record<string, JsonValue>;
  /** Only the failing flag rules (a rollback rule never stays failing in a committed state). */
  flags: ConstraintViolation[];
  rejectedInputs: RejectedInput[];
}

export type RecomputeOutcome =
  | { specHash: string; rejected: false; card: ComputedCard }
  | { specHash: string; rejected: true; issues: Issue[] };

/** What valem_recompute answers (the MCP tool and the share page's endpoint alike). */
export function recomputeAnswer(outcome: RecomputeOutcome): Record<string, unknown> {
  if (outcome.rejected) return { specHash: outcome.specHash, rejected: true, issues: outcome.issues };
  const { card } = outcome;
  return {
    specHash: outcome.specHash,
    state: card.state,
    meta: card.meta,
    flags: card.flags,
    views: card.views,
    outputs: card.outputs,
  };
}

/** The SHA-256 of a spec's canonical JSON (key order does not matter). */
export function specHash(spec: unknown): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

/** Expressions a spec asks the server to evaluate (rules, rules' parts, and view display texts). */
export function countExpressions(spec: ModelSpec): number {
  let n = spec.derivations.length + spec.metaDerivations.length + spec.constraints.length;
  n += spec.defaultValues.length;
  for (const e of spec.effects) {
    n += ['trigger', 'dedupeKey', 'requests', 'prompt', 'at', 'afterMs'].filter(
      (k) => (e as unknown as Record<string, unknown>)[k] !== undefined,
    ).length;
    n += Object.keys(e.payload ?? {}).length;
  }
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) {
      for (const f of ['text', 'value', 'delta', 'caption', 'trend'])
        if (typeof v[f] === 'string' && v[f].includes('$')) n++;
      for (const f of ['visible', 'enabled', 'readOnly', 'required']) if (typeof v[f] === 'string') n++;
      for (const x of Object.values(v)) if (typeof x === 'object') walk(x);
    }
  };
  walk(spec.viewDefinition);
  return n;
}

/** A calc refusal as issues: schema violations name their path, rollbacks their rule. */
export function issuesOf(err: unknown): Issue[] | undefined {
  if (!(err instanceof CalcError)) return undefined;
  if (err.code === 'SCHEMA_VIOLATION')
    return (err.details.violations as { path: string; message: string }[]).map((v) => ({
      path: v.path,
      message: v.message,
    }));
  if (err.code === 'CONSTRAINT_VIOLATION')
    return (err.details.violations as ConstraintViolation[]).map((v) => ({
      constraintId: v.constraintId,
      message: v.message,
    }));
  if (err.code === 'DERIVED_TARGET_WRITE' || err.code === 'INDEX_LIMIT' || err.code === 'INVALID_ARGUMENT')
    return [{ message: err.message }];
  return undefined;
}

export interface CardRunnerOptions {
  now?: () => number;
  maxSpecs?: number;
  idleMs?: number;
}

/** What the card renders from: everything it needs without asking the server again. */
export function cardPayload(
  card: ComputedCard,
  given: Record<string, unknown>,
  canShare: boolean,
): JsonObject {
  return {
    mode: 'stateless',
    modelId: card.compiled.spec.id,
    version: card.compiled.spec.version,
    specHash: card.compiled.specHash,
    spec: card.compiled.spec as unknown as JsonObject,
    given: given as JsonObject,
    state: card.state,
    meta: card.meta,
    flags: card.flags as unknown as JsonObject[],
    views: card.views as unknown as JsonObject[],
    graph: card.compiled.graph as unknown as JsonObject,
    rejectedInputs: card.rejectedInputs as unknown as JsonObject[],
    canShare,
  };
}

export class CardRunner {
  private readonly cache = new Map<string, { card: CompiledCard; usedAt: number }>();
  private readonly now: () => number;
  private readonly maxSpecs: number;
  private readonly idleMs: number;

  constructor(options: CardRunnerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxSpecs = options.maxSpecs ?? CACHE_SPECS;
    this.idleMs = options.idleMs ?? CACHE_IDLE_MS;
  }

  /** How many compiled specs the cache holds now (after dropping idle ones). */
  size(): number {
    this.evictIdle();
    return this.cache.size;
  }

  private evictIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [hash, entry] of this.cache) if (entry.usedAt <= cutoff) this.cache.delete(hash);
  }

  /** A cached compiled spec, touched; undefined when unknown or idle too long. */
  lookup(hash: string): CompiledCard | undefined {
    this.evictIdle();
    const hit = this.cache.get(hash);
    if (!hit) return undefined;
    this.cache.delete(hash); // re-insert: Map order is least recently used first
    this.cache.set(hash, { card: hit.card, usedAt: this.now() });
    return hit.card;
  }

  /**
   * Checks the limits, validates, runs the embedded tests (a failing test is an error), compiles,
   * and caches. A known hash skips all of it.
   * @throws CardError `{valid:false, errors}`
   */
  async compile(input: unknown): Promise<CompiledCard> {
    if (!isObject(input)) throw invalid([{ location: 'spec', message: 'spec must be a JSON object' }]);
    const bytes = Buffer.byteLength(JSON.stringify(input), 'utf8');
    if (bytes > MAX_SPEC_BYTES)
      throw invalid([
        { location: 'spec', message: `the spec is ${bytes} bytes; a card takes at most ${MAX_SPEC_BYTES}` },
      ]);
    const hash = specHash(input);
    const known = this.lookup(hash);
    if (known) return known;
    const report = await validateSpec(input, { runTests: false });
    if (!report.valid) throw invalid(report.errors, report.warnings);
    const { spec } = normalizeSpec(input);
    const count = countExpressions(spec);
    if (count > MAX_EXPRESSIONS)
      throw invalid([
        {
          location: 'spec',
          message: `the spec has ${count} expressions; a card takes at most ${MAX_EXPRESSIONS}`,
        },
      ]);
    if (!isObject(spec.viewDefinition) || !Array.isArray(spec.viewDefinition.views))
      throw invalid([
        { location: 'viewDefinition', message: 'a card needs a viewDefinition with at least one view' },
      ]);
    const model = await compileModel(spec);
    const tests = await runTests(model);
    const failed = tests.results
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => !r.passed)
      .map(({ r, i }) => ({
        location: `tests[${i}]`,
        message: `Test '${r.description}' failed: ${r.failures?.map((f) => f.message).join('; ') ?? 'unknown failure'}`,
      }));
    if (failed.length > 0) throw invalid(failed, report.warnings);
    const card: CompiledCard = {
      specHash: hash,
      spec,
      model,
      graph: modelGraph(model),
      warnings: report.warnings,
    };
    this.cache.set(hash, { card, usedAt: this.now() });
    while (this.cache.size > this.maxSpecs) this.cache.delete(this.cache.keys().next().value!);
    return card;
  }

  /** The compiled spec for a hash, compiling `spec` when given; spec_unknown otherwise. */
  async resolve(hash: string, spec?: unknown): Promise<CompiledCard> {
    const hit = this.lookup(hash);
    if (hit) return hit;
    if (spec === undefined || spec === null)
      throw new CardError({
        error: 'spec_unknown',
        specHash: hash,
        message: 'this server no longer holds that spec; call again with the spec attached',
      });
    return this.compile(spec);
  }

  /**
   * A fresh runtime with the inputs layered on the defaults. Inputs a rollback rule or the schema
   * refuses fall back to the defaults and are listed; the rest are kept (tried together first,
   * then one by one until nothing more goes in, so their order does not matter).
   */
  async render(compiled: CompiledCard, inputs: Record<string, unknown> = {}): Promise<ComputedCard> {
    const runtime = await startRuntime(compiled.model, { historyCapacity: 0 });
    const rejectedInputs: RejectedInput[] = [];
    const entries = Object.entries(inputs);
    if (entries.length > 0) {
      try {
        await runtime.mutate(inputs);
      } catch (err) {
        if (!issuesOf(err)) throw err;
        let pending = entries;
        const reasons = new Map<string, string>();
        for (let progress = true; progress && pending.length > 0;) {
          progress = false;
          const left: [string, unknown][] = [];
          for (const [path, value] of pending) {
            try {
              await runtime.mutate({ [path]: value });
              progress = true;
            } catch (e) {
              const issues = issuesOf(e);
              if (!issues) throw e;
              reasons.set(path, issues.map((i) => i.message).join('; '));
              left.push([path, value]);
            }
          }
          pending = left;
        }
        for (const [path, value] of pending)
          rejectedInputs.push({ path, value, reason: reasons.get(path) ?? 'rejected' });
      }
    }
    return this.computed(compiled, runtime, rejectedInputs);
  }

  /** Every input applied in one cycle, or the refusal as issues (nothing half-applied). */
  async recompute(hash: string, inputs: Record<string, unknown>, spec?: unknown): Promise<RecomputeOutcome> {
    const compiled = await this.resolve(hash, spec);
    const applied = await withInputs(compiled, inputs);
    if ('issues' in applied) return { specHash: compiled.specHash, rejected: true, issues: applied.issues };
    return {
      specHash: compiled.specHash,
      rejected: false,
      card: await this.computed(compiled, applied.runtime, []),
    };
  }

  /** "Why is this number?" for the spec and inputs given. */
  async explain(
    hash: string,
    path: string,
    inputs: Record<string, unknown> = {},
    spec?: unknown,
  ): Promise<ValueExplanation> {
    const compiled = await this.resolve(hash, spec);
    const applied = await withInputs(compiled, inputs);
    if ('issues' in applied) {
      throw new CardError({
        error: 'Inputs rejected',
        issues: applied.issues,
        message: applied.issues.map((i) => i.message).join('; '),
      });
    }
    return explainValue(applied.runtime, compiled.graph, path);
  }

  private async computed(
    compiled: CompiledCard,
    runtime: ModelRuntime,
    rejectedInputs: RejectedInput[],
  ): Promise<ComputedCard> {
    const state = await cardState(runtime);
    return {
      ...state,
      flags: state.flags.filter((f) => f.policy === 'flag'),
      compiled,
      inputs: inputValues(runtime),
      outputs: await outputValues(runtime),
      rejectedInputs,
    };
  }
}

/** A fresh runtime of the card with every input applied in one cycle, or why they were refused. */
async function withInputs(
  compiled: CompiledCard,
  inputs: Record<string, unknown>,
): Promise<{ runtime: ModelRuntime } | { issues: NonNullable<ReturnType<typeof issuesOf>> }> {
  const runtime = await startRuntime(compiled.model, { historyCapacity: 0 });
  if (Object.keys(inputs).length === 0) return { runtime };
  try {
    await runtime.mutate(inputs);
    return { runtime };
  } catch (err) {
    const issues = issuesOf(err);
    if (!issues) throw err;
    return { issues };
  }
}
