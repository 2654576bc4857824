/**
 * JSONata expressions: compiled once per text, evaluated with a time and depth limit so a runaway
 * expression fails its own evaluation, never the process; `/…/` literals run on RE2 (safe-regex.ts),
 * since a backtracking match is one step the limit cannot interrupt.
 */
import jsonata from 'jsonata';
import { MAX_ARRAY_INDEX } from './document.js';
import {
  ALLOCATION_BUDGET_CODE,
  budgetBindings,
  isProvenCheap,
  markLibraryFrame,
} from './expression-budget.js';
import { isEngineError, publicMessage } from './errors.js';
import {
  asMember,
  SharedShape,
  shapeOf,
  type ExpressionShape,
  type MemberContext,
} from './expression-shape.js';
import { fastArithmetic } from './fast-arithmetic.js';
import { fastEvaluation, NOT_HANDLED } from './fast-sum.js';
import { SafeRegexEngine } from './safe-regex.js';

export type JsonataNode = jsonata.ExprNode;

export interface ExpressionLimits {
  /** Milliseconds one evaluation may run. */
  timeoutMs: number;
  /** Nested evaluation depth (guards non-terminating recursion). */
  maxDepth: number;
  /**
   * Most elements one sequence may hold: a range (`[1..n]`), an `$append`, a path's results. JSONata
   * applies one limit to all three, so it must admit the longest array a state may hold.
   */
  maxSequence: number;
  /**
   * Characters and elements one evaluation may allocate: string lengths and array and object sizes
   * the budgeted built-ins and the evaluator's own steps produce (expression-budget.ts).
   */
  maxAllocation: number;
}

export const DEFAULT_LIMITS: Readonly<ExpressionLimits> = Object.freeze({
  timeoutMs: 2000,
  maxDepth: 1000,
  maxSequence: MAX_ARRAY_INDEX + 1,
  maxAllocation: 10_000_000,
});

/** Bounds on each setting, so a configuration cannot switch a budget off. */
export const LIMIT_RANGES: Readonly<Record<keyof ExpressionLimits, readonly [number, number]>> = {
  timeoutMs: [1, 600_000],
  maxDepth: [10, 10_000],
  maxSequence: [1, 10_000_000],
  maxAllocation: [1000, 1_000_000_000],
};

let configured: Readonly<ExpressionLimits> = DEFAULT_LIMITS;

/** The limits every evaluation uses unless a caller passes its own. */
export function expressionLimits(): Readonly<ExpressionLimits> {
  return configured;
}

/**
 * Sets the process-wide limits (a server does this once at start from its settings).
 * @throws RangeError naming the setting when a value is not an integer within LIMIT_RANGES
 */
export function configureExpressionLimits(limits: Partial<ExpressionLimits>): void {
  const next = { ...configured };
  for (const key of Object.keys(LIMIT_RANGES) as (keyof ExpressionLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    const [min, max] = LIMIT_RANGES[key];
    if (!Number.isInteger(value) || value < min || value > max)
      throw new RangeError(`${key} must be an integer from ${min} to ${max} (got ${value})`);
    next[key] = value;
  }
  configured = Object.freeze(next);
  cache.clear();
  shapes.clear();
}

export interface CompiledExpression {
  readonly text: string;
  readonly ast: JsonataNode;
  evaluate(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
  /**
   * The fast path alone, synchronously: the value `evaluate` would give, or NOT_HANDLED when only
   * JSONata can answer (then call `evaluate`). Absent where no fast path can exist; a cycle of
   * thousands of arithmetic rules spares two promises per rule with it. Called as a method.
   */
  evaluateNow?(input: unknown, bindings?: Record<string, unknown>): unknown;
}

export type CompileResult = { ok: true; expr: CompiledExpression } | { ok: false; message: string };

/** A JSONata error rendered as one line: code, message and position where known. */
export function describeJsonataError(err: unknown): string {
  if (isEngineError(err)) return publicMessage(err);
  if (err && typeof err === 'object' && (err as { code?: unknown }).code === 'D2015') {
    // JSONata's own text names the attempted size as if it were the limit
    const max = configured.maxSequence;
    return `D2015: a sequence (a range such as [1..n], an $append, or a path's results) would exceed the limit of ${max} elements`;
  }
  if (err && typeof err === 'object' && (err as { code?: unknown }).code === ALLOCATION_BUDGET_CODE)
    return `${ALLOCATION_BUDGET_CODE}: ${(err as Error).message}`;
  if (err && typeof err === 'object') {
    const e = err as { code?: string; message?: string; position?: number; token?: string };
    const where = typeof e.position === 'number' ? ` (at position ${e.position})` : '';
    const text = e.message ?? String(err);
    return e.code ? `${e.code}: ${text}${where}` : `${text}${where}`;
  }
  return String(err);
}

/**
 * How many evaluations are running and when the newest began. Library functions are lambdas
 * created by the library's own one-time evaluation, so JSONata would time them against that
 * evaluation's clock; instead their guard uses the newest running evaluation's start (see
 * `guardLibraryFrames`). A counter, not a set, because this runs on every evaluation.
 */
export const evaluationClock = {
  active: 0,
  newest: 0,
  start(): void {
    this.active++;
    this.newest = Date.now();
  },
  end(): void {
    this.active--;
  },
  /** Start of the newest evaluation begun while some are running (now when none is). */
  newestStart(): number {
    return this.active > 0 ? this.newest : Date.now();
  },
};

/** The JSONata frame shape we touch: the evaluation base every nested frame points to. */
interface JsonataBase {
  depth: number;
  guardrails: () => void;
}

/**
 * Re-arms the guard of the frames a library's lambdas close over, so a call made from any later
 * evaluation is limited by that evaluation's time and depth, not by the library's compile time.
 */
export function guardLibraryFrames(values: Iterable<unknown>, limits: ExpressionLimits = configured): void {
  for (const v of values) {
    const base = (v as { environment?: { base?: JsonataBase } } | null)?.environment?.base;
    if (!base || typeof base.guardrails !== 'function') continue;
    markLibraryFrame(base);
    base.guardrails = () => {
      // `value` too: JSONata rewrites a coded error's message from its template, which names it
      if (base.depth > limits.maxDepth) {
        throw Object.assign(new Error('Stack overflow. Check for non-terminating recursive function.'), {
          code: 'D1011',
          value: limits.maxDepth,
        });
      }
      if (Date.now() - evaluationClock.newestStart() > limits.timeoutMs) {
        throw Object.assign(
          new Error(`Evaluation timeout after ${limits.timeoutMs} milliseconds. Check for infinite loop`),
          { code: 'D1012', value: limits.timeoutMs },
        );
      }
    };
  }
}

/**
 * Compilations by limits, then by text. Two levels, not one map keyed by `limits + text`: that key
 * was a new string per compile, hashed and kept for every expression of a large spec.
 */
const cache = new Map<string, Map<string, CompileResult>>();
/** Limits in use at once are few (the configured ones, a test's own): beyond this the maps restart. */
const LIMITS_KEPT = 16;

function byLimits<T>(maps: Map<string, Map<string, T>>, limitsKey: string): Map<string, T> {
  let map = maps.get(limitsKey);
  if (!map) {
    if (maps.size >= LIMITS_KEPT) maps.clear();
    maps.set(limitsKey, (map = new Map()));
  }
  return map;
}
const TOO_DEEP_TO_COMPILE =
  'the expression nests too deeply to compile (a very long operator chain or many nested brackets); split it, or move parts into the library';
const CACHE_LIMIT = 20_000;

/**
 * Shared programs by shape (expression-shape.ts), keyed by limits and shape; null for a shape whose
 * first member's tree did not match the scan (never shared).
 */
const shapes = new Map<string, Map<string, SharedProgram | null>>();

interface SharedProgram {
  shared: SharedShape;
  evaluate: (input: unknown, bindings?: Record<string, unknown>) => Promise<unknown>;
  /**
   * Whether the `$sum` fast path (fast-sum.ts) can apply to the shape's members: it decides on the
   * tree's structure (any string name passes), so a shape the first tree fails fails for all.
   */
  sumShape?: boolean;
}

/**
 * The cache-key prefix of a limits object; remembered for a frozen one (the configured limits are
 * frozen), since it was built afresh for every compile.
 */
const limitsKeys = new WeakMap<ExpressionLimits, string>();
function keyOfLimits(limits: ExpressionLimits): string {
  const known = limitsKeys.get(limits);
  if (known !== undefined) return known;
  const key = `${limits.timeoutMs}/${limits.maxDepth}/${limits.maxSequence}/${limits.maxAllocation}/`;
  if (Object.isFrozen(limits)) limitsKeys.set(limits, key);
  return key;
}

/** Compiles (or returns the cached compilation of) an expression text. */
export function compileExpression(text: string, limits: ExpressionLimits = configured): CompileResult {
  const limitsKey = keyOfLimits(limits);
  const compiled = byLimits(cache, limitsKey);
  const hit = compiled.get(text);
  if (hit) return hit;
  const shape = shapeOf(text);
  const programs = byLimits(shapes, limitsKey);
  const shapeKey = shape && shape.names.length > 0 ? shape.key : undefined;
  const program = shapeKey === undefined ? undefined : programs.get(shapeKey);
  let result: CompileResult;
  if (program && shape) {
    result = { ok: true, expr: memberOf(program, shape, text, limits) };
  } else {
    const alone = compileAlone(text, limits);
    result = alone.result;
    if (alone.jsonata && shape && shapeKey !== undefined && program === undefined) {
      const shared = SharedShape.from(shape, alone.result.ok ? alone.result.expr.ast : undefined);
      if (programs.size >= CACHE_LIMIT) programs.clear();
      programs.set(shapeKey, shared && { shared, evaluate: alone.jsonata });
      // the first member, too, evaluates as a member (its tree now reads the evaluating member)
      if (shared) result = { ok: true, expr: memberOf(programs.get(shapeKey)!, shape, text, limits) };
    }
  }
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(text, result);
  return result;
}

/** A compilation that shares its shape's program: the shape and this member's names by slot. */
export interface ShapeMember {
  shape: SharedShape;
  names: readonly string[];
}

/**
 * A compilation that evaluates a shared program carries its shape under this key (a property, not
 * a WeakMap entry: 30,000 weak entries were work for every collection).
 */
const SHAPE_MEMBER = Symbol('shape member');
type WithShape = CompiledExpression & { readonly [SHAPE_MEMBER]?: ShapeMember };

/** Whether a compilation evaluates a program shared with other texts of its shape. */
export function sharesProgram(expr: CompiledExpression): boolean {
  return (expr as WithShape)[SHAPE_MEMBER] !== undefined;
}

/**
 * The shape of a compilation that shares one (expression-shape.ts), for analyses done once per
 * shape instead of once per member; undefined for a text compiled on its own.
 */
export function shapeMemberOf(expr: CompiledExpression): ShapeMember | undefined {
  return (expr as WithShape)[SHAPE_MEMBER];
}

type Answer = (input: unknown, bindings?: Record<string, unknown>) => unknown;
type ArithmeticOfShape = NonNullable<ReturnType<SharedShape['arithmetic']>>;

/**
 * A member of a shared shape: its names, its own tree and fast path built when something reads
 * them, the shared program run in its context. One object with its methods on the prototype: the
 * closures, position shifts and scan results each member held were most of what a 30,000-formula
 * create kept alive from compiling (the collector copies what survives).
 */
class MemberExpression implements CompiledExpression, ShapeMember {
  private tree: JsonataNode | undefined;
  private running: MemberContext | undefined;
  /** The `$sum` fast path on the member's own tree (fast-sum.ts), when its shape has one. */
  sum: Answer | undefined;
  /** Otherwise the shape's arithmetic fast path, shared by its members (they differ in names only). */
  arithmetic: ArithmeticOfShape | null = null;

  constructor(
    private readonly program: SharedProgram,
    readonly text: string,
    readonly names: readonly string[],
  ) {}

  get shape(): SharedShape {
    return this.program.shared;
  }

  get [SHAPE_MEMBER](): ShapeMember {
    return this;
  }

  /** The member's own tree: the validator and the dependency extractor analyse the shape once. */
  get ast(): JsonataNode {
    return (this.tree ??= this.program.shared.treeOf(this.names, this.context()) as JsonataNode);
  }

  evaluate(input: unknown, bindings?: Record<string, unknown>): Promise<unknown> {
    return this.sum || this.arithmetic
      ? this.evaluateFast(input, bindings)
      : this.evaluateShared(input, bindings);
  }

  /** The member's fast path synchronously; NOT_HANDLED when its shape has none or it declines. */
  evaluateNow(input: unknown, bindings?: Record<string, unknown>): unknown {
    if (this.sum) return this.sum(input, bindings);
    return this.arithmetic ? this.arithmetic(input, bindings, this.names) : NOT_HANDLED;
  }

  private async evaluateFast(input: unknown, bindings?: Record<string, unknown>): Promise<unknown> {
    const value = this.sum ? this.sum(input, bindings) : this.arithmetic!(input, bindings, this.names);
    return value === NOT_HANDLED ? await this.evaluateShared(input, bindings) : value;
  }

  private evaluateShared(input: unknown, bindings?: Record<string, unknown>): Promise<unknown> {
    return asMember(this.context(), () => this.program.evaluate(input, bindings));
  }

  /** What the shared program reads while evaluating this member (made on first need). */
  private context(): MemberContext {
    return (this.running ??= this.program.shared.member(this.names));
  }
}

function memberOf(
  program: SharedProgram,
  shape: ExpressionShape,
  text: string,
  limits: ExpressionLimits,
): CompiledExpression {
  program.sumShape ??= fastEvaluation(program.shared.firstTree as JsonataNode, limits) !== undefined;
  const expr = new MemberExpression(program, text, shape.names);
  if (program.sumShape) expr.sum = fastEvaluation(expr.ast, limits);
  if (!expr.sum) expr.arithmetic = program.shared.arithmetic() ?? null;
  return expr;
}

/** A tail-call thunk whose call is `$sort(…)`. */
function isSortThunk(node: unknown): node is { body: JsonataNode } {
  if (node === null || typeof node !== 'object') return false;
  const n = node as {
    type?: unknown;
    thunk?: unknown;
    body?: { type?: unknown; procedure?: { type?: unknown; value?: unknown } };
  };
  return (
    n.type === 'lambda' &&
    n.thunk === true &&
    n.body?.type === 'function' &&
    n.body.procedure?.type === 'variable' &&
    n.body.procedure.value === 'sort'
  );
}

/**
 * JSONata 2.2.2 evaluates a call in a function body's tail position as a thunk, and on that path
 * a function argument reaches the built-in unwrapped: `$sort($a, function($l, $r) {…})` as a
 * function's last step failed with "comp is not a function" (`$map` and `$filter` apply their
 * function through JSONata's own apply, so only `$sort` calls its comparator directly). Such a
 * call is evaluated as an ordinary call instead: the same value, one stack frame more.
 */
function sortCallsOutOfTailPosition(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (isSortThunk(value)) record[key] = value.body;
    if (Array.isArray(value))
      value.forEach((item, i) => {
        if (isSortThunk(item)) value[i] = item.body;
      });
    sortCallsOutOfTailPosition(record[key]);
  }
}

/** One text compiled by JSONata on its own, and its JSONata evaluation without the fast path. */
function compileAlone(
  text: string,
  limits: ExpressionLimits,
): { result: CompileResult; jsonata?: SharedProgram['evaluate'] } {
  let result: CompileResult;
  let viaJsonata: SharedProgram['evaluate'] | undefined;
  try {
    const compiled = jsonata(text, {
      timeout: limits.timeoutMs,
      stack: limits.maxDepth,
      sequence: limits.maxSequence,
      RegexEngine: SafeRegexEngine,
    });
    const ast = compiled.ast();
    sortCallsOutOfTailPosition(ast);
    // only an expression that could amplify its input pays for the budget's hooks
    if (!isProvenCheap(ast))
      for (const [name, value] of budgetBindings(text, limits.maxAllocation))
        compiled.assign(name as string, value);
    releaseParserTables(ast);
    const evaluateWithJsonata = async (input: unknown, bindings?: Record<string, unknown>) => {
      evaluationClock.start();
      try {
        return await compiled.evaluate(input, bindings);
      } finally {
        evaluationClock.end();
      }
    };
    viaJsonata = evaluateWithJsonata;
    // a hot shape (fast-sum.ts, fast-arithmetic.ts) is answered directly where the answer is certain to be JSONata's
    const fast = fastEvaluation(ast, limits) ?? fastArithmetic(ast);
    result = {
      ok: true,
      expr: {
        text,
        ast,
        evaluate: fast
          ? async (input, bindings) => {
              const value = fast(input, bindings);
              return value === NOT_HANDLED ? evaluateWithJsonata(input, bindings) : value;
            }
          : evaluateWithJsonata,
        evaluateNow: fast,
      },
    };
  } catch (err) {
    // the parser recurses once per nesting level (and per term of an operator chain)
    result = {
      ok: false,
      message: err instanceof RangeError ? TOO_DEEP_TO_COMPILE : describeJsonataError(err),
    };
  }
  return { result, jsonata: viaJsonata };
}

/**
 * JSONata builds its syntax-tree nodes on prototypes from a symbol table the parser makes afresh for
 * every expression, so each compiled expression kept that whole table alive (about 12 KB; 30,000
 * derivations held 360 MB and the collector's work grew faster than the spec). Evaluation reads
 * only the nodes' data fields, so each node gets those as its own and drops the prototype; the
 * parser's functions (`nud`, `led`) are left behind with the table.
 */
function releaseParserTables(root: unknown): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && isParserNode(node)) {
      const own = node as Record<string, unknown>;
      for (const key in node) {
        if (Object.prototype.hasOwnProperty.call(node, key)) continue;
        const value = own[key];
        if (typeof value !== 'function') own[key] = value;
      }
      Object.setPrototypeOf(node, Object.prototype);
    }
    for (const value of Object.values(node))
      if (value !== null && typeof value === 'object') stack.push(value);
  }
}

/** A node the parser made from a symbol: it inherits the symbol's `nud` function. */
function isParserNode(node: object): boolean {
  const proto: unknown = Object.getPrototypeOf(node);
  if (proto === null || proto === Object.prototype) return false;
  return (
    typeof (node as { nud?: unknown }).nud === 'function' &&
    !Object.prototype.hasOwnProperty.call(node, 'nud')
  );
}

/**
 * Expressions one pass (a validation) compiled, by text, for a later pass over the same spec (the
 * compiler) to take instead of compiling again. The process-wide cache holds at most CACHE_LIMIT
 * texts and is cleared when full, so on a spec with more expressions than that the compiler missed
 * it and compiled (and cloned a syntax tree for) most expressions a second time. Valid only under
 * the limits it was filled with: `take` answers undefined once the configured limits changed.
 */
export class CompiledExpressions {
  private readonly byText = new Map<string, CompiledExpression>();
  private readonly limits = configured;

  add(expr: CompiledExpression): void {
    this.byText.set(expr.text, expr);
  }

  take(text: string): CompiledExpression | undefined {
    return this.limits === configured ? this.byText.get(text) : undefined;
  }
}

/** Thrown by `mustCompile` for texts the validator should already have refused. */
export class ExpressionCompileError extends Error {}

export function mustCompile(text: string, limits?: ExpressionLimits): CompiledExpression {
  const r = compileExpression(text, limits);
  if (!r.ok) throw new ExpressionCompileError(r.message);
  return r.expr;
}

/** JSONata's own function library (names bound as `$name`). */
export const JSONATA_BUILTINS: ReadonlySet<string> = new Set([
  'sum',
  'count',
  'max',
  'min',
  'average',
  'string',
  'substring',
  'substringBefore',
  'substringAfter',
  'lowercase',
  'uppercase',
  'length',
  'trim',
  'pad',
  'split',
  'join',
  'match',
  'contains',
  'replace',
  'now',
  'millis',
  'fromMillis',
  'toMillis',
  'formatNumber',
  'formatBase',
  'formatInteger',
  'parseInteger',
  'number',
  'abs',
  'floor',
  'ceil',
  'round',
  'power',
  'sqrt',
  'random',
  'boolean',
  'not',
  'exists',
  'keys',
  'lookup',
  'append',
  'spread',
  'merge',
  'reverse',
  'shuffle',
  'sort',
  'zip',
  'each',
  'error',
  'assert',
  'type',
  'base64encode',
  'base64decode',
  'encodeUrlComponent',
  'encodeUrl',
  'decodeUrlComponent',
  'decodeUrl',
  'eval',
  'sift',
  'filter',
  'single',
  'map',
  'reduce',
  'distinct',
  'clone',
]);

/** Names the engine binds itself in expressions. */
export const RESERVED_BINDINGS: ReadonlySet<string> = new Set([
  'const',
  'parent',
  'index',
  'self',
  'response',
  'now',
  'status',
]);

/** JSONata truthiness as constraints and triggers use it. */
export function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  return false;
}
