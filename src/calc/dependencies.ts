/**
 * Static dependency extraction: which document addresses an expression reads, as address patterns.
 * Schema-blind, like the reference engine, with its known gaps closed: predicate fields resolve
 * against the element, variable tails record nothing, element scopes survive nested calls,
 * `items.{…}` is an element scope, `$$` is the evaluation's input, and a bare `$`, `$$` or `$parent`
 * (`$count($keys($))`, `$string($parent)`) reads the whole of what it names.
 *
 * Each pattern also says whether it is read through the expression's own row (`$parent.x` in a
 * `[*]` derivation, element names in a `[*]` meta): such a read depends on that row alone, which is
 * what lets a write inside one row recompute that row only.
 */
import { WILDCARD, type Path, type Segment } from './address.js';
import { shapeMemberOf, type CompiledExpression, type JsonataNode } from './expression.js';
import { SLOT_PREFIX, slotIndex, type SharedShape } from './expression-shape.js';
import { isObject } from './json.js';

/** Where a name resolves, and whether that place lies inside the expression's own row. */
interface Base {
  path: Segment[];
  local: boolean;
}

interface Scope {
  /** Where plain field names resolve; null = not the document (a variable's value), record nothing. */
  base: Base | null;
  /** What `$parent` resolves to (element pattern of a `[*]` target), or null outside one. */
  parent: Segment[] | null;
  /** What `$$` resolves to: the evaluation's input. */
  root: Base;
}

type Node = Record<string, unknown>;
type Record_ = (p: Segment[], local: boolean) => void;

export interface ExtractOptions {
  /** Context the expression runs against; default the root. Also what `$$` is. */
  scope?: Path;
  /** The `[*]` element pattern `$parent` is bound to. */
  parent?: Path;
  /** The scope is one row of a `[*]` pattern (a `[*]` meta's element): reads under it are row-local. */
  scopeIsRow?: boolean;
}

/** One extracted pattern and whether it is read through the expression's own row only. */
export interface Dependency {
  path: Path;
  local: boolean;
}

function keyOf(p: readonly Segment[]): string {
  return p.map((s) => (s === WILDCARD ? '[*]' : typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
}

/** Extracts dependency patterns with their row locality (deduplicated, in first-seen order). */
export function extractDependencyInfo(ast: JsonataNode, options: ExtractOptions = {}): Dependency[] {
  const deduplicate = deduplicator();
  walkAll(ast, options, deduplicate.record);
  return deduplicate.result();
}

/** Collects recorded patterns: one per address pattern, in first-seen order. */
function deduplicator(): { record: Record_; result: () => Dependency[] } {
  const seen = new Map<string, Dependency>();
  return {
    record: (p, local) => {
      const key = keyOf(p);
      const hit = seen.get(key);
      // a pattern read both through the row and otherwise depends on more than the row
      if (hit) hit.local = hit.local && local;
      else seen.set(key, { path: p.slice(), local });
    },
    result: () => [...seen.values()],
  };
}

/**
 * Every pattern the walk records, in order and not deduplicated, per shape and options: a shape's
 * members differ in their field names only, and the walk copies names into patterns without
 * reading them, so one walk over the shape's slotted tree (a placeholder per name) answers for
 * every member once its names are put back.
 */
const recordedByShape = new WeakMap<SharedShape, Map<string, Recorded>>();

/** What the walk over a shape's slotted tree recorded, under one set of options. */
interface Recorded {
  patterns: [Segment[], boolean][];
  /**
   * Every segment is a number, `[*]`, a slot or a string without `.`, `[` or `]` (and a member's
   * names are identifiers): then two patterns have the same `keyOf` exactly when their segments
   * are equal, so a member's few patterns are deduplicated by comparing segments, no key strings.
   */
  plain: boolean;
}

/** Up to this many recorded patterns are deduplicated pairwise (see `Recorded.plain`). */
const PAIRWISE = 8;

const isPlainSegment = (seg: Segment): boolean =>
  typeof seg === 'number' ||
  seg === WILDCARD ||
  slotIndex(seg) >= 0 ||
  !(seg.includes('.') || seg.includes('[') || seg.includes(']'));

function samePath(a: readonly Segment[], b: readonly Segment[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * `extractDependencyInfo(expr.ast, options)`, done once per expression shape (expression-shape.ts)
 * for expressions that share one; `test/calc/shape-analyses.test.ts` holds it to the direct walk.
 */
export function dependencyInfoOf(expr: CompiledExpression, options: ExtractOptions = {}): Dependency[] {
  const member = shapeMemberOf(expr);
  const optionsKey = member && keyOfOptions(options);
  if (!member || optionsKey === undefined) return extractDependencyInfo(expr.ast, options);
  let byOptions = recordedByShape.get(member.shape);
  if (!byOptions) recordedByShape.set(member.shape, (byOptions = new Map()));
  let recorded = byOptions.get(optionsKey);
  if (!recorded) {
    const patterns: [Segment[], boolean][] = [];
    walkAll(member.shape.slotTree() as JsonataNode, options, (p, local) => patterns.push([p.slice(), local]));
    const plain = patterns.every(([pattern]) => pattern.every(isPlainSegment));
    byOptions.set(optionsKey, (recorded = { patterns, plain }));
  }
  const names = member.names;
  const put = (pattern: Segment[]): Segment[] =>
    pattern.map((seg) => {
      const k = slotIndex(seg);
      return k < 0 ? seg : names[k]!;
    });
  const patterns = recorded.patterns;
  if (patterns.length === 1) return [{ path: put(patterns[0]![0]), local: patterns[0]![1] }];
  if (recorded.plain && patterns.length <= PAIRWISE) {
    const out: Dependency[] = [];
    for (const [pattern, local] of patterns) {
      const path = put(pattern);
      const hit = out.find((d) => samePath(d.path, path));
      // a pattern read both through the row and otherwise depends on more than the row
      if (hit) hit.local = hit.local && local;
      else out.push({ path, local });
    }
    return out;
  }
  const deduplicate = deduplicator();
  for (const [pattern, local] of patterns) deduplicate.record(put(pattern), local);
  return deduplicate.result();
}

/** `extractDependencies` through `dependencyInfoOf`. */
export function dependenciesOf(expr: CompiledExpression, options: ExtractOptions = {}): Path[] {
  return dependencyInfoOf(expr, options).map((d) => d.path);
}

/**
 * The options as a cache key; undefined when a segment of theirs could be taken for a slot
 * placeholder (then the direct walk answers).
 */
function keyOfOptions(options: ExtractOptions): string | undefined {
  // the common case (a plain target: no scope, no parent) without building a key
  if (options.scope === undefined && options.parent === undefined)
    return options.scopeIsRow === true ? NO_PATHS_ROW : NO_PATHS;
  const paths = [options.scope, options.parent];
  for (const p of paths)
    if (p?.some((seg) => typeof seg === 'string' && seg.startsWith(SLOT_PREFIX))) return undefined;
  const part = (p: Path | undefined): string =>
    p === undefined ? '-' : `+${JSON.stringify(p.map(segmentKey))}`;
  return `${part(options.scope)}${part(options.parent)}${options.scopeIsRow === true}`;
}

const NO_PATHS = '--false';
const NO_PATHS_ROW = '--true';

const segmentKey = (seg: Segment): string | number[] =>
  seg === WILDCARD ? [] : typeof seg === 'number' ? [seg] : seg;

/** Whether the expression reads `$name`, once per expression shape (variables are not slots). */
export function readsVariableOf(expr: CompiledExpression, name: string): boolean {
  const member = shapeMemberOf(expr);
  return readsVariable((member ? member.shape.firstTree : expr.ast) as JsonataNode, name);
}

function walkAll(ast: JsonataNode, options: ExtractOptions, record: Record_): void {
  const scopePath = options.scope ? [...options.scope] : [];
  const local = options.scopeIsRow === true && options.scope !== undefined;
  walk(
    ast,
    {
      base: { path: scopePath, local },
      parent: options.parent ? [...options.parent] : null,
      root: { path: [...scopePath], local },
    },
    record,
  );
}

/** Extracts dependency patterns (deduplicated, in first-seen order). */
export function extractDependencies(ast: JsonataNode, options: ExtractOptions = {}): Path[] {
  return extractDependencyInfo(ast, options).map((d) => d.path);
}

function walk(node: unknown, scope: Scope, record: Record_): void {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, scope, record);
    return;
  }
  if (!isObject(node)) return;
  switch (node.type) {
    case 'path':
      walkPath(node, scope, record);
      return;
    case 'name':
      // A bare name outside a path (rare in the parser's output): treat as a one-step path.
      walkPath({ type: 'path', steps: [node] }, scope, record);
      return;
    case 'variable': {
      // a bare `$`, `$$` or `$parent` (`$keys($)`, `$string($$)`, `$count($parent)`) reads all of it
      const whole = variableBase(node.value, scope);
      if (whole) record(whole.path, whole.local);
      walkStages(node, { ...scope, base: null }, record);
      return;
    }
    case 'wildcard':
    case 'descendant':
      if (scope.base) record(scope.base.path, scope.base.local);
      return;
    case 'lambda':
      walk(node.body, scope, record);
      return;
    case 'function':
    case 'partial':
      walk(node.arguments, scope, record);
      walkStages(node, { ...scope, base: null }, record);
      return;
    case 'bind':
      walk(node.rhs, scope, record);
      return;
    default:
      // own keys without Object.entries' pair arrays (a walk per expression: garbage adds up)
      for (const key in node) {
        if (!Object.hasOwn(node, key) || key === 'position' || key === 'type' || key === 'value') continue;
        const child = node[key];
        if (key === 'stages' || key === 'predicate') walk(child, { ...scope, base: null }, record);
        else walk(child, scope, record);
      }
  }
}

/** What a variable names in the document: `$` the context, `$$` the input, `$parent` the row. */
function variableBase(name: unknown, scope: Scope): Base | null {
  if (name === '') return scope.base ? { path: [...scope.base.path], local: scope.base.local } : null;
  if (name === '$') return { path: [...scope.root.path], local: scope.root.local };
  if (name === 'parent' && scope.parent) return { path: [...scope.parent], local: true };
  return null;
}

/** Predicates and filters attached to a non-path node run against that node's value. */
function walkStages(node: Node, scope: Scope, record: Record_): void {
  for (const key of ['stages', 'predicate']) {
    const stages = node[key];
    if (!Array.isArray(stages)) continue;
    for (const st of stages) if (isObject(st)) walk(st.expr, scope, record);
  }
}

function filterExprs(step: Node): Node[] {
  const out: Node[] = [];
  for (const key of ['stages', 'predicate']) {
    const stages = step[key];
    if (!Array.isArray(stages)) continue;
    for (const st of stages) if (isObject(st) && st.type === 'filter' && isObject(st.expr)) out.push(st.expr);
  }
  return out;
}

/** The element pattern of an array path: one `[*]`, never two in a row. */
function element(cur: Base): Base {
  const p = cur.path;
  return { path: p[p.length - 1] === WILDCARD ? [...p] : [...p, WILDCARD], local: cur.local };
}

function walkPath(node: Node, scope: Scope, record: Record_): void {
  const steps = Array.isArray(node.steps) ? (node.steps as Node[]) : [];
  let cur: Base | null = scope.base ? { path: [...scope.base.path], local: scope.base.local } : null;
  let recordedNames = false; // has the path added a name to `cur` yet?
  let ended = false;

  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const last = i === steps.length - 1;
    if (ended) {
      walk(step, { ...scope, base: null }, record);
      continue;
    }
    switch (step.type) {
      case 'variable': {
        if (step.value === '$')
          cur = variableBase('$', scope); // $$: the input, wherever it appears
        else if (step.value === '') {
          // `$` first is the context; later (`items.$`) it is the current item, which `cur` already is
          if (i === 0) cur = variableBase('', scope);
        } else if (step.value === 'parent') {
          // $parent outside a [*] derivation resolves against the root (an empty prefix)
          cur = scope.parent ? { path: [...scope.parent], local: true } : { path: [], local: false };
          if (last && !scope.parent) cur = null; // bare $parent outside a row names nothing
        } else cur = null; // any other variable: its value is not the document
        walkStages(step, { ...scope, base: null }, record);
        // a path that ends on `$$`, `$` or `$parent` reads all of it (`$$[0]` is a filter, not a path)
        if (last && cur) record(cur.path, cur.local);
        if (last) cur = null;
        break;
      }
      case 'name': {
        if (cur) {
          cur.path.push(String(step.value));
          recordedNames = true;
        }
        const filters = filterExprs(step);
        for (const f of filters) {
          if (f.type === 'number') {
            if (cur) record(cur.path, cur.local); // an index reads the array; later steps continue without it
          } else if (f.type === 'wildcard') {
            if (cur && !last) cur = element(cur);
          } else {
            // a predicate: its names resolve against the element
            walk(f, { ...scope, base: cur ? element(cur) : null }, record);
            if (cur && !last) cur = element(cur);
          }
        }
        break;
      }
      case 'sort': {
        // `items^(price).name`: sort keys resolve per element, and the path goes on per element
        const el = cur && recordedNames ? element(cur) : null;
        walk(step.terms, { ...scope, base: el }, record);
        for (const f of filterExprs(step)) {
          if (f.type !== 'number' && f.type !== 'wildcard') walk(f, { ...scope, base: el }, record);
        }
        if (el) cur = el;
        else cur = null;
        break;
      }
      case 'block':
      case 'unary':
      case 'function':
      case 'condition':
      case 'apply':
      case 'lambda':
      case 'transform': {
        // `items.( … )`, `items.{ … }`, `items.$f(x)`: an element scope over what came before.
        const base = cur ? (recordedNames ? element(cur) : cur) : null;
        walk(step, { ...scope, base }, record);
        ended = true;
        cur = null;
        break;
      }
      case 'wildcard':
      case 'descendant':
        if (cur) record(cur.path, cur.local);
        ended = true;
        cur = null;
        break;
      default:
        walk(step, { ...scope, base: null }, record);
        ended = true;
        cur = null;
    }
  }
  if (cur && recordedNames) record(cur.path, cur.local);
  // `items{key: value}` grouping: keys and values resolve per element.
  if (isObject(node.group) && Array.isArray(node.group.lhs)) {
    walk(node.group.lhs, { ...scope, base: groupBase(node, scope) }, record);
  }
}

function groupBase(node: Node, scope: Scope): Base | null {
  const steps = Array.isArray(node.steps) ? (node.steps as Node[]) : [];
  if (!scope.base) return null;
  const base: Segment[] = [...scope.base.path];
  for (const s of steps) {
    if (s.type !== 'name') return null;
    base.push(String(s.value));
  }
  return { path: [...base, WILDCARD], local: scope.base.local };
}

/** Whether the expression reads the variable `$name` anywhere (a local binding of it counts too). */
export function readsVariable(ast: JsonataNode, name: string): boolean {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const n of node) stack.push(n);
      continue;
    }
    if (!isObject(node)) continue;
    if (node.type === 'variable' && node.value === name) return true;
    for (const key in node) if (Object.hasOwn(node, key) && key !== 'position') stack.push(node[key]);
  }
  return false;
}
