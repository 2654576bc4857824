/**
 * Issue 47, property: random compositions of the built-ins that allocate, with large arguments,
 * never crash and never run much past the time budget; each either answers or fails with our
 * allocation code or the time-budget code. fast-check prints the seed and the shrunk expression of
 * a failure; set MODELWORKS_PROPERTY_SEED to replay one.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureExpressionLimits, DEFAULT_LIMITS } from '../../src/calc/expression.js';
import { evalExpression } from '../../src/calc/lifecycle.js';

const TIMEOUT_MS = 500;
/**
 * Slack past the time budget: a single step (a million-element range, one built-in call over it)
 * runs to its end, and this machine may be shared.
 */
const SLACK_MS = 1500;

beforeAll(() => configureExpressionLimits({ timeoutMs: TIMEOUT_MS, maxAllocation: 2_000_000 }));
afterAll(() => configureExpressionLimits(DEFAULT_LIMITS));

const big = fc.constantFrom('1', '3', '1000', '100000', '1000000', '1e7', '1e8', '5e8', '1e12');

const { str, arr } = fc.letrec<{ str: string; arr: string }>((tie) => ({
  str: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant('"y"'),
    fc.tuple(tie('str'), big).map(([s, n]) => `$pad(${s}, ${n}, "y")`),
    fc.tuple(tie('arr'), tie('str')).map(([a, s]) => `$join(${a}.$string($), ${s})`),
    fc.tuple(tie('arr'), fc.boolean()).map(([a, pretty]) => `$string(${a}, ${pretty})`),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `(${a} & ${b})`),
    fc.tuple(tie('str'), tie('str')).map(([s, r]) => `$replace(${s}, "y", ${r})`),
    big.map((n) => `$formatBase(${n}, 2)`),
    big.map((n) => `$formatNumber(${n}, "#,##0.00")`),
    fc
      .tuple(tie('str'), fc.integer({ min: 1, max: 40 }))
      .map(([s, n]) => `($f := function($s,$n){$n=0 ? $s : $f($s & $s, $n-1)}; $f(${s}, ${n}))`),
  ),
  arr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    big.map((n) => `[1..${n}]`),
    fc.tuple(tie('arr'), tie('str')).map(([a, s]) => `${a}.(${s})`),
    tie('str').map((s) => `$split(${s}, "")`),
    fc.tuple(tie('arr'), tie('arr')).map(([a, b]) => `$append(${a}, ${b})`),
    fc.tuple(tie('arr'), tie('arr')).map(([a, b]) => `$zip(${a}, ${b})`),
    tie('arr').map((a) => `$keys($merge(${a}.{$string($): $}))`),
    tie('arr').map((a) => `$spread($merge(${a}.{$string($): 1}))`),
  ),
}));

const ALLOWED = /^(EVAL_ALLOCATION_BUDGET|D1012|D1011|D2015|D3121|D\d{4}|T\d{4})/;

describe('random compositions of allocating built-ins', () => {
  it(
    'never crash, stay near the time budget, fail only with a stable code',
    { timeout: 600_000 },
    async () => {
      const seed = process.env.MODELWORKS_PROPERTY_SEED;
      await fc.assert(
        fc.asyncProperty(fc.oneof(str, arr), async (expr) => {
          const t0 = Date.now();
          const outcome = await evalExpression(`$count(${expr})`);
          const elapsed = Date.now() - t0;
          expect(elapsed, expr).toBeLessThan(TIMEOUT_MS + SLACK_MS);
          if (!outcome.ok) expect(outcome.message, expr).toMatch(ALLOWED);
        }),
        { numRuns: 60, verbose: true, ...(seed ? { seed: Number(seed) } : {}) },
      );
    },
  );
});
