/**
 * JSONata expressions: compiled once per text, evaluated with a time and depth limit so a runaway
 * expression fails its own evaluation, never the process.
 */
import jsonata from 'jsonata';

export type JsonataNode = jsonata.ExprNode;

export interface ExpressionLimits {
  /** Milliseconds one evaluation may run. */
  timeoutMs: number;
  /** Nested evaluation depth (guards non-terminating recursion). */
  maxDepth: number;
}

export const DEFAULT_LIMITS: ExpressionLimits = { timeoutMs: 2000, maxDepth: 1000 };

export interface CompiledExpression {
  readonly text: string;
  readonly ast: JsonataNode;
  evaluate(input: unknown, bindings?: Record<string, unknown>): Promise<unknown>;
}

export type CompileResult = { ok: true; expr: CompiledExpression } | { ok: false; message: string };

/** A JSONata error rendered as one line: code, message and position where known. */
export function describeJsonataError(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { code?: string; message?: string; position?: number; token?: string };
    const where = typeof e.position === 'number' ? ` (at position ${e.position})` : '';
    const text = e.message ?? String(err);
    return e.code ? `${e.code}: ${text}${where}` : `${text}${where}`;
  }
  return String(err);
}

const cache = new Map<string, CompileResult>();
const CACHE_LIMIT = 20_000;

/** Compiles (or returns the cached compilation of) an expression text. */
export function compileExpression(text: string, limits: ExpressionLimits = DEFAULT_LIMITS): CompileResult {
  const key = `${limits.timeoutMs}/${limits.maxDepth}/${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let result: CompileResult;
  try {
    const compiled = jsonata(text, { timeout: limits.timeoutMs, stack: limits.maxDepth });
    const ast = compiled.ast();
    result = {
      ok: true,
      expr: {
        text,
        ast,
        evaluate: (input, bindings) => compiled.evaluate(input, bindings),
      },
    };
  } catch (err) {
    result = { ok: false, message: describeJsonataError(err) };
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
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
