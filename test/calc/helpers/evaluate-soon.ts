/**
 * An expression evaluated the way a cycle evaluates it (src/calc/evaluation.ts `evaluateSoon`): the
 * synchronous fast path's answer when it gives one, else `evaluate`. The fast-path tests hold this
 * to JSONata, so a synchronous path that answered differently from `evaluate` fails them.
 */
import { answerNow } from '../../../src/calc/evaluation.js';
import type { CompiledExpression } from '../../../src/calc/expression.js';
import { NOT_HANDLED } from '../../../src/calc/fast-sum.js';

export const soonCount = { synchronous: 0 };

export function evaluateSoon(
  expr: CompiledExpression,
  input: unknown,
  bindings?: Record<string, unknown>,
): Promise<unknown> {
  const value = answerNow(expr, input, bindings);
  if (value === NOT_HANDLED) return expr.evaluate(input, bindings);
  soonCount.synchronous++;
  return Promise.resolve(value);
}
