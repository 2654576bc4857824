/**
 * Expression budgets: a range or sequence past the limit fails its own evaluation at once (nothing is
 * allocated), an expression too deep to parse is a validation error in our words, and the limits are
 * configurable within bounds that cannot switch them off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  compileExpression,
  configureExpressionLimits,
  DEFAULT_LIMITS,
  expressionLimits,
  mustCompile,
} from '../../src/calc/expression.js';
import { validateSpec } from '../../src/calc/validator.js';
import { applyCalcBudgets } from '../../src/cli/calc-budgets.js';
import { evalExpression as evaluateExpression } from '../../src/calc/lifecycle.js';
import { live } from './helpers/model.js';

afterEach(() => configureExpressionLimits(DEFAULT_LIMITS));

const ENGINE_TEXT = /Maximum call stack|Cannot read properties|is not a function|undefined \(reading/;

describe('sequence budget', () => {
  it('refuses a ten-million-element range before allocating it, in our words', async () => {
    const outcome = await evaluateExpression('$count([1..10000000])');
    expect(outcome).toMatchObject({ ok: false, error: 'evaluation' });
    expect(JSON.stringify(outcome)).toMatch(
      /D2015: a sequence .* would exceed the limit of 1000001 elements/,
    );
  });

  it('admits a sequence as long as the longest array a state may hold', async () => {
    expect(await evaluateExpression('$count([1..1000001])')).toMatchObject({ ok: true, result: 1_000_001 });
  });

  it('a derivation over a too-long range fails its own field; the cycle commits', async () => {
    configureExpressionLimits({ maxSequence: 1000 });
    const { runtime } = await live({
      derivations: [
        { path: '$.big', expr: '$sum([1..n])' },
        { path: '$.double', expr: 'n * 2' },
      ],
    });
    await runtime.mutate({ '$.n': 5000 });
    expect(await runtime.getValue('$.double')).toBe(10_000);
    expect(await runtime.getValue('$.big')).toBeNull();
  });
});

describe('parse depth', () => {
  it.each([
    ['nested brackets', `${'('.repeat(5000)}1${')'.repeat(5000)}`],
    ['a long operator chain', Array(100_000).fill('1').join('+')],
    ['a long path', `a${'.a'.repeat(100_000)}`],
  ])('%s: a compile error of ours, no engine text', (_name, text) => {
    const r = compileExpression(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toMatch(/nests too deeply to compile/);
      expect(r.message).not.toMatch(ENGINE_TEXT);
    }
  });

  it('in a spec it is a validation error at the derivation', async () => {
    const report = await validateSpec({
      id: 'deep',
      version: '1.0.0',
      schema: { type: 'object' },
      derivations: [{ path: '$.x', expr: Array(100_000).fill('1').join('+') }],
    });
    expect(report.valid).toBe(false);
    expect(report.errors[0]!.location).toMatch(/^derivations\[0\]/);
    expect(report.errors[0]!.message).toMatch(/nests too deeply to compile/);
  });
});

describe('configuration', () => {
  it('applies the settings and refuses values that would switch a budget off', () => {
    applyCalcBudgets({ MODELWORKS_CALC_MAX_SEQUENCE: '50', MODELWORKS_CALC_EVAL_TIMEOUT_MS: '500' });
    expect(expressionLimits()).toEqual({ ...DEFAULT_LIMITS, maxSequence: 50, timeoutMs: 500 });
    expect(() => applyCalcBudgets({ MODELWORKS_CALC_MAX_SEQUENCE: '0' })).toThrow(
      /MODELWORKS_CALC_MAX_SEQUENCE must be a whole number from 1 to 10000000 \(got '0'\)/,
    );
    expect(() => applyCalcBudgets({ MODELWORKS_CALC_EVAL_MAX_DEPTH: 'lots' })).toThrow(
      /MODELWORKS_CALC_EVAL_MAX_DEPTH/,
    );
    expect(() => applyCalcBudgets({ MODELWORKS_CALC_EVAL_TIMEOUT_MS: '-1' })).toThrow(/TIMEOUT_MS/);
  });

  it('a new limit takes effect for expressions compiled before it', async () => {
    const before = mustCompile('$count([1..100])');
    expect(await before.evaluate({})).toBe(100);
    configureExpressionLimits({ maxSequence: 10 });
    await expect(mustCompile('$count([1..100])').evaluate({})).rejects.toMatchObject({ code: 'D2015' });
  });
});
