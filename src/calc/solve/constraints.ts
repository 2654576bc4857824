/**
 * A solve's extra constraints: JSONata expressions over the model's state that must hold at the
 * answer. A constraint whose top-level operator is a comparison (`a + b <= 4`) is also measured:
 * how far it is broken (the two sides' difference), so the search can tell a nearly-feasible point
 * from a far one; any other expression counts 1 when it fails. Whether it holds is always the
 * whole expression's answer, so a measured difference never decides feasibility on its own.
 */
import { CalcError } from '../errors.js';
import { compileExpression, isTruthy } from '../expression.js';

export interface SolveConstraint {
  text: string;
  /** 0 where the constraint holds; how far it is broken (more than 0) where it does not. */
  violation(state: unknown, bindings: Record<string, unknown>): Promise<number>;
}

type Evaluate = (input: unknown, bindings?: Record<string, unknown>) => Promise<unknown>;

const COMPARISONS = new Set(['<', '<=', '>', '>=', '=']);

/** The two sides of a top-level comparison, compiled; undefined when the expression is not one. */
function sides(text: string, ast: unknown): [Evaluate, Evaluate] | undefined {
  const node = ast as { type?: string; value?: unknown; position?: number };
  if (node.type !== 'binary' || typeof node.value !== 'string' || !COMPARISONS.has(node.value))
    return undefined;
  if (typeof node.position !== 'number') return undefined;
  // the parser records where the operator token ends: the text either side is the two operands
  const left = compileExpression(text.slice(0, node.position - node.value.length));
  const right = compileExpression(text.slice(node.position));
  if (!left.ok || !right.ok) return undefined;
  const [l, r] = [left.expr, right.expr];
  return [(input, bindings) => l.evaluate(input, bindings), (input, bindings) => r.evaluate(input, bindings)];
}

/** @throws CalcError INVALID_ARGUMENT for an expression that does not compile */
export function solveConstraint(text: string): SolveConstraint {
  const result = compileExpression(text);
  if (!result.ok)
    throw new CalcError('INVALID_ARGUMENT', `constraint '${text}' does not compile: ${result.message}`);
  const expr = result.expr;
  const whole: Evaluate = (input, bindings) => expr.evaluate(input, bindings);
  const measured = sides(text, result.expr.ast);
  return {
    text,
    violation: async (state, bindings) => {
      let holds: boolean;
      try {
        holds = isTruthy(await whole(state, bindings));
      } catch {
        holds = false; // an expression that fails at a point does not hold there
      }
      if (holds) return 0;
      if (measured) {
        try {
          const [l, r] = await Promise.all([measured[0](state, bindings), measured[1](state, bindings)]);
          if (typeof l === 'number' && typeof r === 'number' && Number.isFinite(l - r))
            return Math.max(Math.abs(l - r), Number.MIN_VALUE);
        } catch {
          // fall through: counted as broken, unmeasured
        }
      }
      return 1;
    },
  };
}
