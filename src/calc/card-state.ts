/**
 * What a model card shows, read from a live runtime: inputs and outputs as address → value maps,
 * the flag rules failing now (checked against the current state, not the last cycle), every
 * top-level view evaluated, and the answer to "why is this number?" for one address.
 */
import { formatPath, namesOnly, parseAddress, patternMatches, WILDCARD, type Path } from './address.js';
import { ABSENT, expandPattern, getAt } from './document.js';
import { CalcError, type ConstraintViolation } from './errors.js';
import { isTruthy } from './expression.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from './json.js';
import type { ModelGraph } from './graph-export.js';
import type { ModelRuntime } from './runtime.js';
import { evaluateViews, type EvaluatedView } from './views.js';

export interface CardState {
  /** The merged document. */
  state: JsonObject;
  /** Live meta values (`$.x#read_only` → value). */
  meta: Record<string, JsonValue>;
  /** Constraints failing on the current state (flag and rollback alike). */
  flags: ConstraintViolation[];
  views: EvaluatedView[];
}

/** Every constraint checked against the state as it is now; the failing ones. */
export async function failingConstraints(runtime: ModelRuntime): Promise<ConstraintViolation[]> {
  const merged = await runtime.getState();
  const base = runtime.baseDocument();
  const out: ConstraintViolation[] = [];
  for (const c of runtime.model.constraints) {
    const inputs: unknown[] = [];
    if (!c.scopes) inputs.push(merged);
    else if (c.scopes.length === 1 && c.scopes[0]!.includes(WILDCARD)) {
      for (const concrete of expandPattern(base, c.scopes[0]!)) inputs.push(getAt(merged, concrete));
    } else {
      for (const scope of c.scopes) {
        const v = getAt(merged, scope);
        inputs.push(v === ABSENT ? undefined : v);
      }
    }
    let failed = false;
    for (const input of inputs) {
      try {
        if (!isTruthy(await c.expr.evaluate(input, runtime.model.bindings))) failed = true;
      } catch {
        failed = true;
      }
      if (failed) break;
    }
    if (failed) out.push({ constraintId: c.spec.id, message: c.spec.message, policy: c.spec.policy });
  }
  return out;
}

/** Leaves of the base document as address → value (arrays of scalars kept whole). */
export function inputValues(runtime: ModelRuntime): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  const walk = (value: unknown, at: Path): void => {
    if (isObject(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
    } else if (Array.isArray(value) && value.some((v) => isObject(v) || Array.isArray(v))) {
      value.forEach((v, i) => walk(v, [...at, i]));
    } else if (at.length > 0 && value !== undefined) {
      out[formatPath(at)] = cloneJson(value) as JsonValue;
    }
  };
  walk(runtime.baseDocument(), []);
  return out;
}

/** Every computed value as address → value (lazy values brought up to date first). */
export async function outputValues(runtime: ModelRuntime): Promise<Record<string, JsonValue>> {
  await runtime.getState();
  return runtime.exportState().derived;
}

export async function cardState(runtime: ModelRuntime): Promise<CardState> {
  return {
    state: await runtime.getState(),
    meta: runtime.exportState().meta,
    flags: await failingConstraints(runtime),
    views: await evaluateViews(runtime),
  };
}

export interface ExplainedInput {
  path: string;
  label: string;
  value: JsonValue;
  kind: 'input' | 'computed';
}

export interface ValueExplanation {
  path: string;
  kind: 'input' | 'computed';
  label: string;
  value: JsonValue;
  expression: string | null;
  /** The values the expression read. */
  inputs: ExplainedInput[];
  /** The editable inputs it ultimately comes from; present when some direct input is computed. */
  baseInputs?: ExplainedInput[];
  text: string;
}

/** A names-only read over arrays the way JSONata maps it (`items.lineTotal` → every row's value). */
function readMapped(doc: unknown, path: Path): unknown {
  let nodes: unknown[] = [doc];
  let mapped = false;
  for (const seg of path) {
    const next: unknown[] = [];
    for (const n of nodes) {
      if (seg === WILDCARD) {
        if (Array.isArray(n)) for (const item of n as unknown[]) next.push(item);
        mapped = true;
      } else if (typeof seg === 'number') {
        if (Array.isArray(n) && seg < n.length) next.push(n[seg]);
      } else if (Array.isArray(n)) {
        mapped = true;
        for (const e of n as unknown[]) if (isObject(e) && e[seg] !== undefined) next.push(e[seg]);
      } else if (isObject(n) && n[seg] !== undefined) next.push(n[seg]);
    }
    nodes = next;
  }
  if (!mapped) return nodes[0];
  return nodes;
}

const show = (v: unknown): string => {
  const text = JSON.stringify(v ?? null);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/**
 * How a value came about: its rule (a row's through its `[*]` rule, with that row's values), the
 * values the rule read and the editable inputs behind them.
 * @throws CalcError PATH_NOT_FOUND listing the model's fields, INVALID_ARGUMENT for a malformed path
 */
export async function explainValue(
  runtime: ModelRuntime,
  graph: ModelGraph,
  address: string,
): Promise<ValueExplanation> {
  const parsed = parseAddress(address);
  if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', parsed.message);
  const path = parsed.path;
  const state = await runtime.getState();
  const nodes = new Map(graph.nodes.map((n) => [n.key, n]));
  const derivation = runtime.model.derivations.find(
    (d) => d.address === address || patternMatches(d.path, path),
  );
  // a row's [*] rule: the concrete row index replaces the rule's wildcard in what it reads
  const concretize = (pattern: Path): Path => {
    // a rule reading `$index` reads other rows too: its reads stay whole columns
    if (!derivation?.rows || derivation.positional) return pattern;
    const arr = derivation.rows.array;
    const row = path[arr.length];
    const same = pattern.length > arr.length && arr.every((s, i) => s === pattern[i]);
    return same && pattern[arr.length] === WILDCARD && typeof row === 'number'
      ? [...pattern.slice(0, arr.length), row, ...pattern.slice(arr.length + 1)]
      : pattern;
  };
  const valueOf = (p: Path): JsonValue => {
    const v = readMapped(state, p);
    return v === undefined ? null : (cloneJson(v) as JsonValue);
  };
  const ruleFor = (p: Path) => {
    const key = formatPath(p);
    const names = namesOnly(p).join('.');
    // a names-only read (`items.lineTotal`) reaches a `[*]` rule too
    return runtime.model.derivations.find(
      (d) => d.address === key || patternMatches(d.path, p) || namesOnly(d.path).join('.') === names,
    );
  };
  const isComputed = (p: Path): boolean => ruleFor(p) !== undefined;
  const labelOf = (p: Path): string => {
    const generic = formatPath(p.map((s) => (typeof s === 'number' ? WILDCARD : s)));
    const rule = ruleFor(p)?.address ?? '';
    return (
      nodes.get(formatPath(p))?.label ?? nodes.get(generic)?.label ?? nodes.get(rule)?.label ?? formatPath(p)
    );
  };

  const describe = (p: Path): ExplainedInput => ({
    path: formatPath(p),
    label: labelOf(p),
    value: valueOf(p),
    kind: isComputed(p) ? 'computed' : 'input',
  });

  if (!derivation) {
    const value = getAt(state, path);
    if (value === ABSENT) {
      const fields = [
        ...Object.keys(inputValues(runtime)),
        ...runtime.model.derivations.map((d) => d.address),
      ];
      throw new CalcError(
        'PATH_NOT_FOUND',
        `nothing at ${address}; the model's fields: ${fields.join(', ')}`,
        { fields },
      );
    }
    const label = labelOf(path);
    return {
      path: address,
      kind: 'input',
      label,
      value: cloneJson(value),
      expression: null,
      inputs: [],
      text: `${label} (${address}) is an input the user sets; it is ${show(value)} now.`,
    };
  }

  const inputs = derivation.deps.map((d) => describe(concretize(d)));
  const result: ValueExplanation = {
    path: address,
    kind: 'computed',
    label: labelOf(path),
    value: valueOf(path),
    expression: derivation.expr.text,
    inputs,
    text: '',
  };
  if (inputs.some((i) => i.kind === 'computed')) {
    // walk upstream through computed reads to the editable fields they start from
    const seen = new Set<string>();
    const base: ExplainedInput[] = [];
    const visit = (p: Path, depth: number): void => {
      const key = formatPath(p);
      if (seen.has(key) || depth > 50) return;
      seen.add(key);
      const d = ruleFor(p);
      if (!d) {
        base.push(describe(p));
        return;
      }
      for (const dep of d.deps) visit(concretize(dep), depth + 1);
    };
    for (const dep of derivation.deps) visit(concretize(dep), 0);
    result.baseInputs = base;
  }
  const read = inputs.map((i) => `${i.label} = ${show(i.value)}`).join(', ');
  result.text = `${result.label} (${address}) = ${show(result.value)}, computed as ${derivation.expr.text}${read ? ` from ${read}` : ''}.`;
  return result;
}
