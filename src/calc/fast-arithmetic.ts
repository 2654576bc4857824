/**
 * A fast path for plain arithmetic: `+ - * / %`, unary minus, brackets, number literals and paths
 * of plain field names, from the document (`in12 * 3 + b12`) or from a bound variable
 * (`$parent.price * $parent.qty`). This is the shape of most generated and converted models, and
 * JSONata spends tens of microseconds on each such evaluation (an async step per node, a frame, a
 * sequence per path) where the arithmetic is a few nanoseconds. The fast path answers only when the
 * outcome is certain to be JSONata's: every path must reach a finite number through plain objects
 * (own fields, no arrays: those are sequences, with their own rules) and every intermediate result
 * must be finite; anything else (a missing field, a string, an array, an unbound variable, an
 * infinite or NaN result) gives NOT_HANDLED and JSONata evaluates as always, errors included.
 * JSONata computes `lhs op rhs` with JavaScript's operators, so every value is bit for bit the
 * same; `test/calc/fast-arithmetic.test.ts` holds it to JSONata on generated expressions and
 * documents.
 */
import type jsonata from 'jsonata';
import { NOT_HANDLED, type FastEvaluation } from './fast-sum.js';

type Node = Record<string, unknown>;
type Bindings = Record<string, unknown> | undefined;
/** The field names of the expression being evaluated, by slot (see `fastArithmeticOfShape`). */
type Names = readonly string[];
/** Evaluates one node: a finite number, or NOT_HANDLED. */
type Step = (input: Record<string, unknown>, bindings: Bindings, names: Names) => number | typeof NOT_HANDLED;
/** A name node's slot among a shape's field names, or undefined for a name written as is. */
type SlotOf = (node: Node) => number | undefined;
const NO_SLOTS: SlotOf = () => undefined;
const NO_NAMES: Names = [];

/** Keys each node kind may carry; any other key (a predicate, a group, keepArray …) means no. */
const ALLOWED: Record<string, ReadonlySet<string>> = {
  binary: new Set(['type', 'value', 'position', 'lhs', 'rhs', 'id', 'lbp']),
  unary: new Set(['type', 'value', 'position', 'expression', 'id', 'lbp']),
  number: new Set(['type', 'value', 'position', 'id', 'lbp']),
  block: new Set(['type', 'position', 'expressions', 'id', 'lbp', 'value']),
  path: new Set(['type', 'steps']),
  name: new Set(['type', 'value', 'position', 'id', 'lbp']),
  variable: new Set(['type', 'value', 'position', 'id', 'lbp']),
};

const ARITHMETIC = new Set(['+', '-', '*', '/', '%']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** JSONata reads own fields; a name Object.prototype also has is read only when own. */
function field(item: Record<string, unknown>, name: string): unknown {
  return name in Object.prototype && !Object.prototype.hasOwnProperty.call(item, name)
    ? undefined
    : item[name];
}

function shapeOk(node: Node): boolean {
  const allowed = typeof node.type === 'string' ? ALLOWED[node.type] : undefined;
  return allowed !== undefined && Object.keys(node).every((k) => allowed.has(k));
}

/** A path of names (a number: the evaluated expression's name in that slot) read from `start`. */
function pathStep(
  steps: (string | number)[],
  start: (input: Record<string, unknown>, bindings: Bindings) => unknown,
): Step {
  return (input, bindings, names) => {
    let at = start(input, bindings);
    for (const step of steps) {
      if (!isPlainObject(at)) return NOT_HANDLED;
      at = field(at, typeof step === 'number' ? names[step]! : step);
    }
    return typeof at === 'number' && Number.isFinite(at) ? at : NOT_HANDLED;
  };
}

function compileNode(node: unknown, depth: number, slotOf: SlotOf): Step | undefined {
  if (depth > 64 || node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const n = node as Node;
  if (!shapeOk(n)) return undefined;
  switch (n.type) {
    case 'number': {
      const v = n.value;
      if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
      return () => v;
    }
    case 'block': {
      const list = n.expressions;
      if (!Array.isArray(list) || list.length !== 1) return undefined;
      return compileNode(list[0], depth + 1, slotOf);
    }
    case 'unary': {
      if (n.value !== '-') return undefined;
      const inner = compileNode(n.expression, depth + 1, slotOf);
      if (!inner) return undefined;
      return (input, bindings, names) => {
        const v = inner(input, bindings, names);
        return v === NOT_HANDLED ? v : -v;
      };
    }
    case 'binary': {
      const op = n.value;
      if (typeof op !== 'string' || !ARITHMETIC.has(op)) return undefined;
      const lhs = compileNode(n.lhs, depth + 1, slotOf);
      const rhs = compileNode(n.rhs, depth + 1, slotOf);
      if (!lhs || !rhs) return undefined;
      const apply =
        op === '+'
          ? (a: number, b: number) => a + b
          : op === '-'
            ? (a: number, b: number) => a - b
            : op === '*'
              ? (a: number, b: number) => a * b
              : op === '/'
                ? (a: number, b: number) => a / b
                : (a: number, b: number) => a % b;
      return (input, bindings, names) => {
        const a = lhs(input, bindings, names);
        if (a === NOT_HANDLED) return a;
        const b = rhs(input, bindings, names);
        if (b === NOT_HANDLED) return b;
        const r = apply(a, b);
        return Number.isFinite(r) ? r : NOT_HANDLED;
      };
    }
    case 'path': {
      const steps = n.steps;
      if (!Array.isArray(steps) || steps.length === 0) return undefined;
      const names: (string | number)[] = [];
      let variable: string | undefined;
      for (let i = 0; i < steps.length; i++) {
        const s = steps[i] as Node;
        if (s === null || typeof s !== 'object' || !shapeOk(s) || typeof s.value !== 'string')
          return undefined;
        if (s.type === 'variable' && i === 0 && s.value !== '' && s.value !== '$') variable = s.value;
        else if (s.type === 'name') names.push(slotOf(s) ?? s.value);
        else return undefined;
      }
      if (variable === undefined) return pathStep(names, (input) => input);
      const name = variable;
      if (names.length === 0) return undefined;
      return pathStep(names, (_input, bindings) =>
        bindings !== undefined && Object.prototype.hasOwnProperty.call(bindings, name)
          ? bindings[name]
          : NOT_HANDLED,
      );
    }
    default:
      return undefined;
  }
}

/** The fast evaluation of a plain arithmetic expression, or undefined for any other. */
export function fastArithmetic(ast: jsonata.ExprNode): FastEvaluation | undefined {
  const shared = fastArithmeticOfShape(ast, NO_SLOTS);
  return shared && ((input, bindings) => shared(input, bindings, NO_NAMES));
}

/**
 * One fast evaluation for every expression of a shape (expression-shape.ts): compiled once from a
 * tree whose name nodes `slotOf` maps to slots, it reads each field name from the `names` it is
 * given. Whether the fast path applies depends on the tree's structure only (a name is any
 * string), so it applies to every member alike; 30,000 members of one shape built 30,000 closure
 * trees before.
 */
export function fastArithmeticOfShape(
  ast: unknown,
  slotOf: SlotOf,
): ((input: unknown, bindings: Bindings, names: Names) => number | typeof NOT_HANDLED) | undefined {
  const node = ast as Node;
  // a lone literal or path is no arithmetic: JSONata's own answer is as quick
  if (node.type !== 'binary' && node.type !== 'unary' && node.type !== 'block') return undefined;
  const step = compileNode(ast, 0, slotOf);
  if (!step) return undefined;
  return (input, bindings, names) => (isPlainObject(input) ? step(input, bindings, names) : NOT_HANDLED);
}
