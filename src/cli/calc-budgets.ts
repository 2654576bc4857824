/**
 * The calc engine's per-evaluation budgets, read once from the environment by every command before
 * it runs (a server applies them to every request it serves). A value that is not a whole number in
 * range stops the command with exit 2 and names the setting. The CLI loads this module (and with it
 * the engine) only when a setting is given (`calcBudgetsSet`).
 */
import {
  configureExpressionLimits,
  EXPRESSION_LIMIT_RANGES as LIMIT_RANGES,
  type ExpressionLimits,
} from '../calc/index.js';
import { CALC_BUDGET_SETTINGS } from './calc-budget-settings.js';

/** @throws Error naming the setting when a value is malformed or out of range */
export function applyCalcBudgets(env: NodeJS.ProcessEnv): void {
  const limits: Partial<ExpressionLimits> = {};
  for (const [setting, key] of Object.entries(CALC_BUDGET_SETTINGS)) {
    const text = env[setting]?.trim();
    if (text === undefined || text === '') continue;
    const [min, max] = LIMIT_RANGES[key];
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max)
      throw new Error(`${setting} must be a whole number from ${min} to ${max} (got '${text}')`);
    limits[key] = value;
  }
  configureExpressionLimits(limits);
}
