/**
 * A compiled spec: every expression compiled once, the library bound, the dependency graph built.
 * Shared by every runtime of the same spec version (tests, dry runs, live models).
 */
import { firstWildcard, formatPath, mustParse, type Path } from './address.js';
import { dependenciesOf, dependencyInfoOf, readsVariableOf } from './dependencies.js';
import {
  mustCompile as compileText,
  type CompiledExpression,
  type CompiledExpressions,
} from './expression.js';
import { DependencyGraph, type GraphInput, type GraphJson } from './graph.js';
import { compileLibrary, type CompiledLibrary } from './library.js';
import { metaKey, type Constraint, type Effect, type MetaProperty, type ModelSpec } from './spec.js';
import { CalcError, publicMessage } from './errors.js';

export interface DerivationNode {
  id: number;
  address: string;
  path: Path;
  expr: CompiledExpression;
  lazy: boolean;
  deps: Path[];
  depStrings: string[];
  /** For `[*]` targets: the array before the first `[*]` and the rest after it. */
  rows: { array: Path; suffix: Path } | null;
  /** A `[*]` rule that reads `$index` (its row's position): recomputed in every row, never one. */
  positional?: boolean;
}

export interface MetaNode {
  id: number;
  key: string;
  address: string;
  path: Path;
  property: MetaProperty;
  expr: CompiledExpression;
  /** For `[*]` paths: the element pattern (up to and including the first `[*]`). */
  element: Path | null;
}

export interface ConstraintNode {
  id: number;
  spec: Constraint;
  expr: CompiledExpression;
  scopes: Path[] | null;
}

export interface EffectNode {
  id: number;
  spec: Effect;
  trigger: CompiledExpression | null;
  dedupeKey: CompiledExpression | null;
  payload: [string, CompiledExpression][];
  requests: CompiledExpression | null;
  prompt: CompiledExpression | null;
  /** A write-link's value (`body`, an expression over the source's state; composition.ts). */
  linkBody: CompiledExpression | null;
  at: CompiledExpression | null;
  afterMs: CompiledExpression | null;
  statusPath: Path | null;
}

export interface DefaultRuleNode {
  path: Path;
  expr: CompiledExpression;
}

export interface CompiledModel {
  spec: ModelSpec;
  library?: CompiledLibrary;
  /** `$const` plus library exports, bound into every evaluation. */
  bindings: Record<string, unknown>;
  derivations: DerivationNode[];
  metas: MetaNode[];
  constraints: ConstraintNode[];
  effects: EffectNode[];
  defaults: DefaultRuleNode[];
  graph: DependencyGraph;
  /** Exact derivation target addresses (writes to them are refused). */
  derivedTargets: Map<string, DerivationNode>;
  graphJson(): GraphJson;
}

export interface CompileOptions {
  /** Expressions the validator compiled for this spec: taken as they are, not compiled again. */
  compiled?: CompiledExpressions;
}

const NO_OPTIONS = Object.freeze({});

/**
 * Per dependency, whether it is read through the node's own row; undefined when none is (the
 * graph reads an absent list as all false), so a plain formula keeps no list of falses.
 */
function localFlags(info: readonly { local: boolean }[]): boolean[] | undefined {
  return info.some((x) => x.local) ? info.map((x) => x.local) : undefined;
}

/**
 * Compiles a spec that the validator accepted.
 * @throws CalcError (SPEC_INVALID) when a library fails, a path is not canonical, or derivations loop
 */
export async function compileModel(spec: ModelSpec, options: CompileOptions = {}): Promise<CompiledModel> {
  try {
    return await compileUnchecked(spec, options.compiled);
  } catch (err) {
    if (err instanceof CalcError) throw err;
    throw new CalcError('SPEC_INVALID', `spec does not compile: ${publicMessage(err)}`);
  }
}

async function compileUnchecked(spec: ModelSpec, known?: CompiledExpressions): Promise<CompiledModel> {
  const mustCompile = (text: string): CompiledExpression => known?.take(text) ?? compileText(text);
  const optionalExpr = (text: string | number | undefined): CompiledExpression | null =>
    text === undefined ? null : mustCompile(String(text));
  const lib = await compileLibrary(spec.library, spec.constants);
  const libErrors = lib.findings.filter((f) => f.severity === 'error');
  if (libErrors.length > 0) {
    throw new CalcError('SPEC_INVALID', `${libErrors[0]!.location}: ${libErrors[0]!.message}`);
  }
  const bindings: Record<string, unknown> = { ...(lib.library?.bindings ?? {}), const: spec.constants };

  const inputs: GraphInput[] = [];
  const derivations: DerivationNode[] = spec.derivations.map((d) => {
    const path = mustParse(d.path);
    const w = firstWildcard(path);
    if (w >= 0 && path.indexOf('*', w + 1) > 0) {
      throw new CalcError(
        'SPEC_INVALID',
        `${d.path}: a derivation target may have at most one [*]; derive the inner rows from the outer row instead`,
      );
    }
    const expr = mustCompile(d.expr);
    const parent = w >= 0 ? path.slice(0, w + 1) : undefined;
    const info = dependencyInfoOf(expr, parent ? { parent } : NO_OPTIONS);
    const deps = info.map((x) => x.path);
    const positional = parent !== undefined && readsVariableOf(expr, 'index');
    const node: DerivationNode = {
      id: inputs.length,
      address: d.path,
      path,
      expr,
      lazy: d.evaluation === 'lazy',
      deps,
      // frozen: every trace of the rule shares this list, and the audit hash keeps its text by it
      depStrings: Object.freeze(deps.map((p) => formatPath(p))) as string[],
      rows: w >= 0 ? { array: path.slice(0, w), suffix: path.slice(w + 1) } : null,
    };
    if (positional) node.positional = true;
    // a row's value depends on where the row stands, so no read is through its own row alone
    const local = positional ? undefined : localFlags(info);
    const input: GraphInput = {
      kind: 'DERIVED',
      key: d.path,
      target: path,
      deps,
      wildcard: w >= 0,
      element: parent ?? null,
      positional,
    };
    if (local) input.local = local;
    inputs.push(input);
    return node;
  });
  const metas: MetaNode[] = spec.metaDerivations.map((m) => {
    const path = mustParse(m.path);
    const w = firstWildcard(path);
    const element = w >= 0 ? path.slice(0, w + 1) : null;
    const expr = mustCompile(m.expr);
    // a [*] meta runs on one row at a time: names in it (and `$$`) are that row's
    const info = dependencyInfoOf(expr, element ? { scope: element, scopeIsRow: true } : {});
    const key = metaKey(m.path, m.property);
    const node: MetaNode = {
      id: inputs.length,
      key,
      address: m.path,
      path,
      property: m.property,
      expr,
      element,
    };
    inputs.push({
      kind: 'META',
      key,
      target: path,
      deps: info.map((x) => x.path),
      local: info.map((x) => x.local),
      wildcard: w >= 0,
      element,
    });
    return node;
  });
  const constraints: ConstraintNode[] = spec.constraints.map((c) => {
    const expr = mustCompile(c.expr);
    const scopes =
      c.path === undefined ? null : (Array.isArray(c.path) ? c.path : [c.path]).map((p) => mustParse(p));
    const deps: Path[] = [];
    if (scopes) {
      for (const s of scopes) {
        deps.push(s);
        deps.push(...dependenciesOf(expr, { scope: s }));
      }
    } else {
      deps.push(...dependenciesOf(expr));
    }
    const node: ConstraintNode = { id: inputs.length, spec: c, expr, scopes };
    inputs.push({ kind: 'CONSTRAINT', key: `$constraint:${c.id}`, target: null, deps, wildcard: false });
    return node;
  });
  const effects: EffectNode[] = spec.effects.map((e) => {
    const node: EffectNode = {
      id: inputs.length,
      spec: e,
      trigger: optionalExpr(e.trigger),
      dedupeKey: optionalExpr(e.dedupeKey),
      payload: Object.entries(e.payload ?? {}).map(([k, v]) => [k, mustCompile(v)]),
      requests: optionalExpr(e.requests),
      prompt: optionalExpr(e.prompt),
      linkBody: e.target && typeof e.body === 'string' ? optionalExpr(e.body) : null,
      at: optionalExpr(e.at),
      afterMs: optionalExpr(e.afterMs),
      statusPath: e.statusPath ? mustParse(e.statusPath) : null,
    };
    const deps: Path[] = [];
    for (const x of [
      node.trigger,
      node.dedupeKey,
      node.requests,
      node.prompt,
      node.linkBody,
      node.at,
      node.afterMs,
    ]) {
      if (x) deps.push(...dependenciesOf(x));
    }
    inputs.push({ kind: 'EFFECT', key: `$effect:${e.id}`, target: null, deps, wildcard: false });
    return node;
  });
  const defaults: DefaultRuleNode[] = spec.defaultValues.map((d) => ({
    path: mustParse(d.path),
    expr: mustCompile(d.expr),
  }));

  const graph = new DependencyGraph(inputs);
  if (graph.cycle.length > 0) {
    throw new CalcError(
      'SPEC_INVALID',
      `Cyclic dependency detected among nodes: [${graph.cycle.join(', ')}]`,
      { cycle: [...graph.cycle] },
    );
  }
  const derivedTargets = new Map<string, DerivationNode>();
  for (const d of derivations) derivedTargets.set(d.address, d);
  // node ids run derivations, metas, constraints, effects in that order
  const expressions: (string | null)[] = [
    ...derivations.map((d) => d.expr.text),
    ...metas.map((m) => m.expr.text),
    ...constraints.map((c) => c.expr.text),
    ...effects.map((e) => e.trigger?.text ?? null),
  ];
  const labels = inputs.map((n) => n.key);

  const model: CompiledModel = {
    spec,
    bindings,
    derivations,
    metas,
    constraints,
    effects,
    defaults,
    graph,
    derivedTargets,
    graphJson: () => graph.toJson(expressions, labels),
  };
  if (lib.library) model.library = lib.library;
  return model;
}
