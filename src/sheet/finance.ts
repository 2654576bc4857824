/**
 * Depreciation (SLN, SYD, DDB), loans (PPMT), growth (RRI), YEARFRAC and the statistics of two
 * paired ranges (SLOPE, INTERCEPT, FORECAST, CORREL, RSQ, COVARIANCE.S/.P) plus VAR.S/.P, compiled
 * to the helpers of finance-library.ts.
 */
import type { Formula } from './formula.js';
import type { HelperName } from './library.js';
import type { Compiled } from './references.js';

/** The functions this module compiles, for messages and docs. */
export const FINANCE_FUNCTIONS = [
  'SLN',
  'SYD',
  'DDB',
  'PPMT',
  'RRI',
  'YEARFRAC',
  'SLOPE',
  'INTERCEPT',
  'FORECAST',
  'FORECAST.LINEAR',
  'CORREL',
  'PEARSON',
  'RSQ',
  'COVARIANCE.S',
  'COVARIANCE.P',
  'COVAR',
  'VAR',
  'VAR.S',
  'VAR.P',
  'VARP',
];

export interface FinanceContext {
  /** Checks the argument count (rejecting the formula otherwise). */
  args(name: string, args: Formula[], min: number, max: number): void;
  /** Argument `i` as a number expression; `fallback` when it is left out. */
  scalar(args: Formula[], i: number, fallback?: string): string;
  /** A range argument as an ordered list, blanks and text kept in place (lookups' list). */
  list(arg: Formula): string;
  /** A range argument's numbers (as SUM reads it), as list items. */
  items(arg: Formula, name: string): string[];
  helper(name: HelperName): string;
}

const num = (code: string): Compiled => ({ code, type: 'number' });

/** The function compiled, or undefined when it is not one of this module's. */
export function compileFinance(name: string, args: Formula[], ctx: FinanceContext): Compiled | undefined {
  const s = (i: number, fallback?: string): string => ctx.scalar(args, i, fallback);
  const call = (helper: HelperName, parts: string[]): Compiled =>
    num(`${ctx.helper(helper)}(${parts.join(', ')})`);
  switch (name) {
    case 'SLN':
      ctx.args(name, args, 3, 3);
      return call('xl_sln', [s(0), s(1), s(2)]);
    case 'SYD':
      ctx.args(name, args, 4, 4);
      return call('xl_syd', [s(0), s(1), s(2), s(3)]);
    case 'DDB':
      ctx.args(name, args, 4, 5);
      return call('xl_ddb', [s(0), s(1), s(2), s(3), s(4, '2')]);
    case 'PPMT': {
      ctx.args(name, args, 4, 6);
      // an empty argument is 0, as in Excel (and PMT, PV, FV, IPMT: functions.ts)
      const z = (i: number, fallback?: string): string =>
        args[i]?.kind === 'missing' ? '0' : s(i, fallback);
      return call('xl_ppmt', [z(0), z(1), z(2), z(3), z(4, '0'), z(5, '0')]);
    }
    case 'RRI':
      ctx.args(name, args, 3, 3);
      return call('xl_rri', [s(0), s(1), s(2)]);
    case 'YEARFRAC':
      ctx.args(name, args, 2, 3);
      return call('xl_yearfrac', [s(0), s(1), s(2, '0')]);
    case 'SLOPE':
    case 'INTERCEPT':
    case 'CORREL':
    case 'PEARSON':
    case 'RSQ': {
      ctx.args(name, args, 2, 2);
      const helper: Record<string, HelperName> = {
        SLOPE: 'xl_slope',
        INTERCEPT: 'xl_intercept',
        CORREL: 'xl_correl',
        PEARSON: 'xl_correl',
        RSQ: 'xl_rsq',
      };
      return call(helper[name]!, [ctx.list(args[0]!), ctx.list(args[1]!)]);
    }
    case 'FORECAST':
    case 'FORECAST.LINEAR':
      ctx.args(name, args, 3, 3);
      return call('xl_forecast', [s(0), ctx.list(args[1]!), ctx.list(args[2]!)]);
    case 'COVARIANCE.S':
    case 'COVARIANCE.P':
    case 'COVAR':
      ctx.args(name, args, 2, 2);
      return call('xl_covar', [ctx.list(args[0]!), ctx.list(args[1]!), name === 'COVARIANCE.S' ? '1' : '0']);
    case 'VAR':
    case 'VAR.S':
    case 'VAR.P':
    case 'VARP': {
      ctx.args(name, args, 1, 255);
      const list = `[${args.flatMap((a) => ctx.items(a, name)).join(', ')}]`;
      return call('xl_var', [list, name === 'VAR' || name === 'VAR.S' ? '1' : '0']);
    }
    default:
      return undefined;
  }
}
