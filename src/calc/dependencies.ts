/**
 * Static dependency extraction: which document addresses an expression reads, as address patterns.
 * Schema-blind, like the reference engine, with its known gaps closed: predicate fields resolve
 * against the element, variable tails record nothing, element scopes survive nested calls,
 * `items.{…}` is an element scope, and `$$` is always the root.
 */
import { WILDCARD, type Path, type Segment } from './address.js';
import type { JsonataNode } from './expression.js';
import { isObject } from './json.js';

interface Scope {
  /** Where plain field names resolve; null = not the document (a variable's value), record nothing. */
  base: Segment[] | null;
  /** What `$parent` resolves to (element pattern of a `[*]` target), or null outside one. */
  parent: Segment[] | null;
}

type Node = Record<string, unknown>;

export interface ExtractOptions {
  /** Context the expression runs against; default the root. */
  scope?: Path;
  /** The `[*]` element pattern `$parent` is bound to. */
  parent?: Path;
}

/** Extracts dependency patterns (deduplicated, in first-seen order). */
export function extractDependencies(ast: JsonataNode, options: ExtractOptions = {}): Path[] {
  const seen = new Map<string, Path>();
  const record = (p: Segment[]): void => {
    const key = p.map((s) => (s === WILDCARD ? '[*]' : typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
    if (!seen.has(key)) seen.set(key, p.slice());
  };
  walk(
    ast,
    { base: options.scope ? [...options.scope] : [], parent: options.parent ? [...options.parent] : null },
    record,
  );
  return [...seen.values()];
}

function walk(node: unknown, scope: Scope, record: (p: Segment[]) => void): void {
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
    case 'variable':
      walkStages(node, { ...scope, base: null }, record);
      return;
    case 'wildcard':
    case 'descendant':
      if (scope.base) record(scope.base);
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
      for (const [key, child] of Object.entries(node)) {
        if (key === 'position' || key === 'type' || key === 'value') continue;
        if (key === 'stages' || key === 'predicate') walk(child, { ...scope, base: null }, record);
        else walk(child, scope, record);
      }
  }
}

/** Predicates and filters attached to a non-path node run against that node's value. */
function walkStages(node: Node, scope: Scope, record: (p: Segment[]) => void): void {
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
function element(cur: Segment[]): Segment[] {
  return cur[cur.length - 1] === WILDCARD ? [...cur] : [...cur, WILDCARD];
}

function walkPath(node: Node, scope: Scope, record: (p: Segment[]) => void): void {
  const steps = Array.isArray(node.steps) ? (node.steps as Node[]) : [];
  let cur: Segment[] | null = scope.base ? [...scope.base] : null;
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
        if (i === 0 && step.value === '$')
          cur = []; // $$: always the root
        else if (i === 0 && step.value === '')
          cur = scope.base ? [...scope.base] : null; // $: the context
        else if (i === 0 && step.value === 'parent') cur = scope.parent ? [...scope.parent] : [];
        else cur = null; // any other variable: its value is not the document
        walkStages(step, { ...scope, base: null }, record);
        if (step.value === 'parent' && last) cur = null; // bare $parent records nothing
        break;
      }
      case 'name': {
        if (cur) {
          cur.push(String(step.value));
          recordedNames = true;
        }
        const filters = filterExprs(step);
        for (const f of filters) {
          if (f.type === 'number') {
            if (cur) record(cur); // an index reads the array; later steps continue without it
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
        if (cur) record(cur);
        ended = true;
        cur = null;
        break;
      default:
        walk(step, { ...scope, base: null }, record);
        ended = true;
        cur = null;
    }
  }
  if (cur && recordedNames) record(cur);
  // `items{key: value}` grouping: keys and values resolve per element.
  if (isObject(node.group) && Array.isArray(node.group.lhs)) {
    walk(node.group.lhs, { ...scope, base: groupBase(node, scope) }, record);
  }
}

function groupBase(node: Node, scope: Scope): Segment[] | null {
  const steps = Array.isArray(node.steps) ? (node.steps as Node[]) : [];
  if (!scope.base) return null;
  const base: Segment[] = [...scope.base];
  for (const s of steps) {
    if (s.type !== 'name') return null;
    base.push(String(s.value));
  }
  return [...base, WILDCARD];
}
