/**
 * The allocation and time budget of one evaluation, enforced while it runs.
 *
 * JSONata checks its time limit between steps, and a single built-in call (`$pad("", 1e9, "y")`,
 * `$join` of a million strings) allocates whatever it is asked for in one step: V8 then ends the
 * process for lack of memory long before the next check. So the built-ins that allocate are
 * re-bound, in every compiled expression, to versions that work out the size of their result
 * *before* allocating it and charge it to the evaluation's allocation budget (characters of strings
 * plus elements of arrays and objects); what the evaluator builds itself (`&` results, ranges, path
 * and mapping results, array and object constructors) is charged by JSONata's evaluate-exit hook.
 * JSONata awaits its evaluate-entry hook, so that hook also hands the event loop back every few
 * milliseconds: other requests are answered while a long evaluation runs, and the time limit still
 * applies to it.
 */
import jsonata from 'jsonata';

/** The error code an evaluation over its allocation budget fails with. */
export const ALLOCATION_BUDGET_CODE = 'EVAL_ALLOCATION_BUDGET';

/** How long an evaluation may hold the event loop before it gives it back, in ms. */
export const YIELD_EVERY_MS = 5;

/** The running totals of one evaluation. */
export interface EvaluationBudget {
  /** Characters and elements this evaluation may still allocate. */
  remaining: number;
  readonly limit: number;
  /** When it last gave the event loop back. */
  lastYield: number;
  steps: number;
}

export function newBudget(limit: number): EvaluationBudget {
  return { remaining: limit, limit, lastYield: Date.now(), steps: 0 };
}

/** Our error, shaped like JSONata's (a `code` and a `message`) so it renders the same way. */
export function allocationBudgetError(limit: number, wanted: number, what: string): Error {
  return Object.assign(
    new Error(
      `${what} would allocate about ${Math.round(wanted)} characters or elements, past the evaluation's allocation budget of ${limit} (setting MODELWORKS_CALC_EVAL_MAX_ALLOCATION)`,
    ),
    { code: ALLOCATION_BUDGET_CODE },
  );
}

/** Charges `units` to the budget; throws (before anything is allocated) when they do not fit. */
export function charge(budget: EvaluationBudget, units: number, what: string): void {
  if (!(units <= budget.remaining))
    throw allocationBudgetError(budget.limit, budget.limit - budget.remaining + units, what);
  budget.remaining -= units;
}

/** The JSONata frame fields we read: every frame points at its evaluation's base frame. */
interface Frame {
  base: BaseFrame;
}
interface BaseFrame extends Frame {
  [BUDGET]?: EvaluationBudget;
  /** Set on library frames (their lambdas run inside later evaluations). */
  [LIBRARY]?: true;
}

const BUDGET = Symbol('modelworks.evaluationBudget');
const LIBRARY = Symbol('modelworks.libraryFrame');

/**
 * The budget of the newest evaluation started: a library lambda runs in its library's frames, so
 * its allocations are charged here (the same rule its time guard follows, `guardLibraryFrames`).
 */
let newest: EvaluationBudget | undefined;

/** Marks a library's frames so that work done in them is charged to the running evaluation. */
export function markLibraryFrame(base: object): void {
  (base as BaseFrame)[LIBRARY] = true;
}

/** The budget of the evaluation `environment` belongs to, begun at its first step. */
function budgetOf(environment: Frame, limit: number): EvaluationBudget {
  const base = environment.base;
  if (base[LIBRARY]) return newest ?? (newest = newBudget(limit));
  const own = base[BUDGET];
  if (own) return own;
  // each evaluation has its own base frame, so its first step begins its budget
  const budget = newBudget(limit);
  base[BUDGET] = budget;
  newest = budget;
  return budget;
}

interface NativeFunction {
  _jsonata_function: true;
  implementation: (this: { environment: Frame }, ...args: unknown[]) => unknown;
  signature?: unknown;
}

/** JSONata's own built-ins, read once from its static frame. */
const NATIVE = new Map<string, NativeFunction>();
{
  const names = [
    'pad',
    'join',
    'string',
    'split',
    'replace',
    'formatBase',
    'formatNumber',
    'formatInteger',
    'append',
    'zip',
    'spread',
    'keys',
    'merge',
    'base64encode',
    'base64decode',
    'encodeUrl',
    'encodeUrlComponent',
    'uppercase',
    'lowercase',
    'reverse',
    'sort',
    'distinct',
    'shuffle',
    'clone',
    'each',
    'lookup',
  ];
  const found = (await jsonata(`[${names.map((n) => `$${n}`).join(',')}]`).evaluate({})) as NativeFunction[];
  names.forEach((name, i) => NATIVE.set(name, found[i]!));
}

/** Length of a string or array argument, 0 for anything else. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return 0;
}

/**
 * An upper bound on what serialising `value` as JSON allocates (characters of the text plus the
 * structure walked), found without allocating it; stops counting once past `cap`.
 */
export function serialisedSize(value: unknown, cap: number, indent = 0): number {
  let total = 0;
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0 && total <= cap) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') total += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) total += 24;
    else if (typeof v === 'object') {
      if (seen.has(v)) continue;
      seen.add(v);
      // a function serialises as "" (its closure is not data and is not walked)
      if ('_jsonata_lambda' in v || '_jsonata_function' in v) {
        total += 2;
        continue;
      }
      const pad = indent * (depth + 1) + 1;
      if (Array.isArray(v)) {
        total += 2 + v.length * (pad + 1);
        for (const item of v) stack.push([item, depth + 1]);
      } else {
        for (const key of Object.keys(v)) {
          total += key.length + 4 + pad;
          stack.push([(v as Record<string, unknown>)[key], depth + 1]);
        }
        total += 2;
      }
    } else total += 8;
  }
  return total;
}

/** Occurrences of a non-empty `needle` in `text`, counting no further than `cap`. */
function occurrences(text: string, needle: string, cap: number): number {
  let count = 0;
  for (
    let at = text.indexOf(needle);
    at !== -1 && count <= cap;
    at = text.indexOf(needle, at + needle.length)
  )
    count++;
  return count;
}

type Estimate = (budget: EvaluationBudget, args: unknown[]) => number;

/**
 * For each budgeted built-in, what it is about to allocate, worked out before the call from its
 * arguments (an upper bound where the exact figure would cost the allocation itself).
 */
const BEFORE: ReadonlyMap<string, Estimate> = new Map<string, Estimate>([
  ['pad', (_b, [s, width]) => Math.max(sizeOf(s), Math.abs(Number(width) || 0))],
  [
    'join',
    (_b, [strings, separator]) => {
      if (!Array.isArray(strings)) return sizeOf(strings);
      let total = Math.max(strings.length - 1, 0) * sizeOf(separator);
      for (const s of strings) total += sizeOf(s);
      return total;
    },
  ],
  [
    'string',
    (b, [value, pretty]) =>
      typeof value === 'string' ? 0 : serialisedSize(value, b.remaining, pretty === true ? 2 : 0),
  ],
  ['split', (_b, [s]) => sizeOf(s) + 1],
  [
    'replace',
    (b, [s, pattern, replacement, limit]) => {
      const text = typeof s === 'string' ? s : '';
      if (typeof replacement !== 'string') return text.length;
      let matches =
        typeof pattern === 'string' && pattern.length > 0
          ? occurrences(text, pattern, b.remaining)
          : text.length + 1;
      if (typeof limit === 'number' && limit >= 0) matches = Math.min(matches, limit);
      return text.length + matches * replacement.length;
    },
  ],
  ['append', (_b, [a, c]) => (Array.isArray(a) ? a.length : 1) + (Array.isArray(c) ? c.length : 1)],
  [
    'zip',
    (_b, arrays) => {
      const lengths = arrays.map((a) => (Array.isArray(a) ? a.length : 1));
      return lengths.length === 0 ? 0 : Math.min(...lengths) * (lengths.length + 1);
    },
  ],
  ['spread', (b, [value]) => serialisedSize(value, b.remaining)],
  ['keys', (b, [value]) => serialisedSize(value, b.remaining)],
  ['merge', (b, [value]) => serialisedSize(value, b.remaining)],
  ['clone', (b, [value]) => serialisedSize(value, b.remaining)],
  ['base64encode', (_b, [s]) => Math.ceil((sizeOf(s) * 3 * 4) / 3) + 4],
  ['base64decode', (_b, [s]) => sizeOf(s)],
  ['encodeUrl', (_b, [s]) => sizeOf(s) * 9],
  ['encodeUrlComponent', (_b, [s]) => sizeOf(s) * 9],
  ['uppercase', (_b, [s]) => sizeOf(s)],
  ['lowercase', (_b, [s]) => sizeOf(s)],
  ['reverse', (_b, [a]) => sizeOf(a)],
  ['sort', (_b, [a]) => sizeOf(a)],
  ['distinct', (_b, [a]) => sizeOf(a)],
  ['shuffle', (_b, [a]) => sizeOf(a)],
  ['each', (b, [value]) => serialisedSize(value, b.remaining)],
  ['lookup', () => 0],
]);

/** Built-ins whose result is charged after the call (its size is bounded by small inputs). */
const AFTER: ReadonlySet<string> = new Set(['formatBase', 'formatNumber', 'formatInteger', 'lookup']);

/** The size of a value JSONata just built, as charged to the budget (strings and arrays only). */
function resultSize(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return 0;
}

const bindingsByLimit = new Map<number, Map<string | symbol, unknown>>();

/**
 * The budgeted built-ins and the evaluate hooks, to be bound (via `assign`) into a compiled
 * expression: only the built-ins its text names (an expression that calls `$eval` gets them all),
 * so that thousands of compiled derivations do not each hold a copy of every binding. Made once
 * per budget and shared.
 */
export function budgetBindings(text: string, limit: number): [string | symbol, unknown][] {
  let all = bindingsByLimit.get(limit);
  if (!all) {
    all = makeBindings(limit);
    bindingsByLimit.set(limit, all);
  }
  const evaluatesText = text.includes('$eval');
  return [...all].filter(([name]) => typeof name === 'symbol' || evaluatesText || text.includes(`$${name}`));
}

function makeBindings(limit: number): Map<string | symbol, unknown> {
  const bindings = new Map<string | symbol, unknown>();
  for (const [name, native] of NATIVE) {
    const before = BEFORE.get(name);
    const after = AFTER.has(name);
    const implementation = function (this: { environment: Frame }, ...args: unknown[]): unknown {
      const budget = budgetOf(this.environment, limit);
      if (before) charge(budget, before(budget, args), `$${name}`);
      const result = native.implementation.apply(this, args);
      if (after && !(result instanceof Promise)) charge(budget, resultSize(result), `$${name}`);
      return result;
    };
    bindings.set(name, { ...native, implementation });
  }
  bindings.set(Symbol.for('jsonata.__evaluate_entry'), entryHook(limit));
  bindings.set(Symbol.for('jsonata.__evaluate_exit'), exitHook(limit));
  return bindings;
}

interface Node {
  type: string;
  value?: unknown;
  group?: unknown;
}

/** Every 32 steps: give the event loop back if this evaluation has held it for YIELD_EVERY_MS. */
function entryHook(limit: number) {
  return (_expr: Node, _input: unknown, environment: Frame): Promise<void> | undefined => {
    const budget = budgetOf(environment, limit);
    if ((++budget.steps & 31) !== 0) return undefined;
    const now = Date.now();
    if (now - budget.lastYield < YIELD_EVERY_MS) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        budget.lastYield = Date.now();
        resolve();
      }),
    );
  };
}

/** Charges what the evaluator itself built at this step. */
function exitHook(limit: number) {
  return (expr: Node, _input: unknown, environment: Frame, result: unknown): undefined => {
    let units = 0;
    switch (expr.type) {
      case 'binary':
        if (expr.value === '&' || expr.value === '..') units = resultSize(result);
        break;
      case 'path':
      case 'function':
      case 'apply':
        if (Array.isArray(result)) units = result.length;
        break;
      case 'unary':
        if (expr.value === '[') units = resultSize(result);
        else if (expr.value === '{' && result && typeof result === 'object')
          units = Object.keys(result).length;
        break;
    }
    if (expr.group !== undefined && result && typeof result === 'object' && !Array.isArray(result))
      units += Object.keys(result).length;
    if (units > 0) charge(budgetOf(environment, limit), units, 'the expression');
    return undefined;
  };
}

/**
 * Built-ins whose result is no larger than their arguments (up to a constant): an expression that
 * calls only these cannot amplify what it is given.
 */
const NON_AMPLIFYING: ReadonlySet<string> = new Set([
  'sum',
  'count',
  'max',
  'min',
  'average',
  'abs',
  'floor',
  'ceil',
  'round',
  'sqrt',
  'power',
  'number',
  'boolean',
  'not',
  'exists',
  'length',
  'substring',
  'substringBefore',
  'substringAfter',
  'contains',
  'trim',
  'lowercase',
  'uppercase',
  'type',
  'keys',
  'lookup',
  'join',
  'reverse',
  'distinct',
  'now',
  'millis',
]);

/** Node types that cannot amplify on their own (their children are checked too). */
const PLAIN_NODES: ReadonlySet<string> = new Set([
  'path',
  'name',
  'string',
  'number',
  'value',
  'variable',
  'wildcard',
  'descendant',
  'parent',
  'condition',
  'block',
  'unary',
  'binary',
  'function',
  'apply',
  'regex',
  'filter',
]);

/**
 * Whether an expression is proven cheap: what it allocates is bounded by its input times its own
 * size, so it needs neither the budgeted built-ins nor the hooks (which cost about a third of
 * JSONata's evaluation time). It may not define or bind anything (no lambdas, no `:=`: so no
 * recursion and no doubling through variables), build ranges or join strings with `&`, call
 * anything outside NON_AMPLIFYING, or read a variable other than `$` inside a path's later steps
 * or a predicate (a path over the whole document for every element is quadratic).
 */
export function isProvenCheap(ast: unknown): boolean {
  const stack: [unknown, boolean][] = [[ast, false]];
  while (stack.length > 0) {
    const [value, nested] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, nested]);
      continue;
    }
    const node = value as Record<string, unknown>;
    const type = node.type;
    if (typeof type === 'string') {
      if (!PLAIN_NODES.has(type)) return false;
      if (type === 'binary' && (node.value === '..' || node.value === '&')) return false;
      if (type === 'variable' && nested && node.value !== '') return false;
      if (type === 'function') {
        const procedure = node.procedure as Record<string, unknown> | undefined;
        if (procedure?.type !== 'variable' || !NON_AMPLIFYING.has(String(procedure.value))) return false;
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'procedure') continue;
      if (type === 'path' && key === 'steps' && Array.isArray(child)) {
        child.forEach((step, i) => stack.push([step, nested || i > 0]));
        continue;
      }
      const inner = nested || key === 'predicate' || key === 'stages' || key === 'group';
      stack.push([child, inner]);
    }
  }
  return true;
}
