/**
 * The names of the calc engine's per-evaluation budget settings, apart from the engine: every
 * command checks the environment for them before it runs, and only loads the engine when one is set.
 */
import type { ExpressionLimits } from '../calc/index.js';

/** Setting → limit. Defaults and ranges: DEFAULT_EXPRESSION_LIMITS and EXPRESSION_LIMIT_RANGES of the calc engine. */
export const CALC_BUDGET_SETTINGS: Readonly<Record<string, keyof ExpressionLimits>> = {
  MODELWORKS_CALC_EVAL_TIMEOUT_MS: 'timeoutMs',
  MODELWORKS_CALC_EVAL_MAX_DEPTH: 'maxDepth',
  MODELWORKS_CALC_MAX_SEQUENCE: 'maxSequence',
  MODELWORKS_CALC_EVAL_MAX_ALLOCATION: 'maxAllocation',
};

/** Whether the environment gives any calc budget a value (blank values count as unset). */
export function calcBudgetsSet(env: NodeJS.ProcessEnv): boolean {
  return Object.keys(CALC_BUDGET_SETTINGS).some((setting) => (env[setting]?.trim() ?? '') !== '');
}
