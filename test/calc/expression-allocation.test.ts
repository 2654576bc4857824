/**
 * Issue 47: the allocation budget of one evaluation, checked inside the built-ins before they
 * allocate, and the event loop given back while an evaluation runs. Budgets here are set low so
 * that, on code without the budget, these expressions succeed (and the tests fail) without
 * exhausting the test runner's memory; the full-size attacks run in a child process
 * (test/hostile/expression-crash.test.ts).
 */
import jsonata from 'jsonata';
import { afterEach, describe, expect, it } from 'vitest';
import { isProvenCheap } from '../../src/calc/expression-budget.js';
import {
  compileExpression,
  configureExpressionLimits,
  DEFAULT_LIMITS,
  expressionLimits,
} from '../../src/calc/expression.js';
import { evalExpression } from '../../src/calc/lifecycle.js';
import { applyCalcBudgets } from '../../src/cli/calc-budgets.js';
import { live } from './helpers/model.js';

afterEach(() => configureExpressionLimits(DEFAULT_LIMITS));

const BUDGET =
  /^EVAL_ALLOCATION_BUDGET: .* past the evaluation's allocation budget of 100000 \(setting MODELWORKS_CALC_EVAL_MAX_ALLOCATION\)/;

describe('allocation budget (100,000 characters or elements)', () => {
  it.each([
    ['$pad of a long width', '$length($pad("", 2000000, "y"))'],
    ['$pad in a mapping, then $join', '$length($join([1..10000].($pad("", 200, "y"))))'],
    [
      'string doubling by recursion',
      '($f := function($s,$n){$n=0 ? $s : $f($s & $s, $n-1)}; $length($f("y", 24)))',
    ],
    [
      'string doubling through bindings',
      '($a := $pad("", 1000, "y"); $b := $a & $a; $c := $b & $b; $d := $c & $c; $e := $d & $d; $f := $e & $e; $g := $f & $f; $h := $g & $g; $length($h & $h))',
    ],
    ['$string of a large structure', '$length($string([1..50000].{"k": $}))'],
    ['$split into characters', '$count($split($pad("", 60000, "y"), ""))'],
    ['$replace by a longer text', '$length($replace($pad("", 50000, "y"), "y", "zzzzz"))'],
    ['$replace by a regular expression', '$length($replace($pad("", 50000, "y"), /y/, "zzzzz"))'],
    ['a large range', '$count([1..200000])'],
    ['a mapping of a range', '$count([1..60000].($ * 2))'],
    ['$append growth', '$count($append([1..60000], [1..60000]))'],
    ['$zip growth', '$count($zip([1..40000], [1..40000]))'],
    ['$spread of a large object', '$count($spread($merge([1..40000].{$string($): $})))'],
    ['$keys of a constructed object', '$count($keys($merge([1..40000].{$string($): $})))'],
    ['an object built by grouping', '$count($keys([1..60000]{$string($): $}))'],
    ['$formatNumber inside a large mapping', '$count([1..60000].$formatNumber($, "#,##0.00"))'],
    ['$formatBase inside a large mapping', '$length($join([1..10000].$formatBase($ * 1e15, 2)))'],
    ['$eval of a runaway', '$eval(\'$pad("", 2000000, "y")\')'],
  ])('%s fails its evaluation with our code and message', async (_name, expr) => {
    configureExpressionLimits({ maxAllocation: 100_000 });
    const outcome = await evalExpression(expr);
    expect(outcome).toMatchObject({ ok: false, error: 'evaluation' });
    const message = (outcome as { message: string }).message;
    // $eval reports the failure of the text it evaluated inside its own error
    if (expr.startsWith('$eval'))
      expect(message).toMatch(/past the evaluation's allocation budget of 100000/);
    else expect(message).toMatch(BUDGET);
  });

  it('refuses before allocating: a 500-million-character $pad fails at once', async () => {
    const t0 = Date.now();
    const outcome = await evalExpression('$pad("", 5e8, "y")');
    expect(Date.now() - t0).toBeLessThan(500);
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { message: string }).message).toMatch(/about 500000000 characters/);
  });

  it('deep recursion fails on the depth limit, not the process', async () => {
    const outcome = await evalExpression('($f := function($n){$n=0 ? 0 : 1 + $f($n-1)}; $f(1000000))');
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { message: string }).message).toMatch(/^D1011/);
  });

  it.each([
    ['$pad("ab", 6, "-")', { items: [] }],
    ['$join(items.name, ",")', { items: [{ name: 'a' }, { name: 'b' }] }],
    ['$string(items, true)', { items: [{ name: 'a' }] }],
    ['$split("a,b,c", ",")', {}],
    ['$replace("a-b-c", "-", "+")', {}],
    ['$count([1..1000].($pad("", 10, "y")))', {}],
    ['$append([1,2], [3])', {}],
    ['$zip([1,2], [3,4])', {}],
    ['$spread({"a": 1, "b": 2})', {}],
    ['$keys({"a": 1, "b": 2})', {}],
    ['$formatBase(255, 2) & $formatNumber(1234.5, "#,##0.00")', {}],
    ['($f := function($s,$n){$n=0 ? $s : $f($s & $s, $n-1)}; $length($f("y", 10)))', {}],
  ])('%s within the budget gives what plain JSONata gives', async (expr, input) => {
    const outcome = await evalExpression(expr, input);
    // as JSON: JSONata marks its result sequences with extra properties
    const plain: unknown = JSON.parse(JSON.stringify(await jsonata(expr).evaluate(input)));
    expect(outcome).toMatchObject({ ok: true, result: plain });
  });

  it('each evaluation has its own budget: the same expression succeeds again and again', async () => {
    configureExpressionLimits({ maxAllocation: 100_000 });
    for (let i = 0; i < 5; i++)
      expect(await evalExpression('$length($pad("", 60000, "y"))')).toMatchObject({
        ok: true,
        result: 60000,
      });
  });

  it('a library function is charged to the evaluation that calls it', async () => {
    configureExpressionLimits({ maxAllocation: 100_000 });
    const library = '( $wide := function($n){ $pad("", $n, "y") }; ["wide"] )';
    expect(await evalExpression('$length($wide(1000))', {}, library)).toMatchObject({
      ok: true,
      result: 1000,
    });
    const outcome = await evalExpression('$length($wide(2000000))', {}, library);
    expect(outcome).toMatchObject({ ok: false });
    expect((outcome as { message: string }).message).toMatch(BUDGET);
  });

  it('a derivation over the budget fails its own field; the cycle commits', async () => {
    configureExpressionLimits({ maxAllocation: 100_000 });
    const { runtime } = await live({
      derivations: [
        { path: '$.wide', expr: '$length($pad("", n, "y"))' },
        { path: '$.double', expr: 'n * 2' },
      ],
    });
    await runtime.mutate({ '$.n': 1000 });
    expect(await runtime.getValue('$.wide')).toBe(1000);
    await runtime.mutate({ '$.n': 2_000_000 });
    expect(await runtime.getValue('$.double')).toBe(4_000_000);
    expect(await runtime.getValue('$.wide')).toBeNull();
  });

  it('MODELWORKS_CALC_EVAL_MAX_ALLOCATION sets it, within bounds that cannot switch it off', () => {
    applyCalcBudgets({ MODELWORKS_CALC_EVAL_MAX_ALLOCATION: '5000' });
    expect(expressionLimits().maxAllocation).toBe(5000);
    expect(() => applyCalcBudgets({ MODELWORKS_CALC_EVAL_MAX_ALLOCATION: '10' })).toThrow(
      /MODELWORKS_CALC_EVAL_MAX_ALLOCATION must be a whole number from 1000 to 1000000000/,
    );
  });
});

describe('time budget and the event loop during long evaluations', () => {
  /** Runs `work` with a 10 ms timer; the longest gap between its ticks. */
  async function longestTimerGap(work: () => Promise<unknown>): Promise<{ gapMs: number; value: unknown }> {
    let last = Date.now();
    let gapMs = 0;
    const timer = setInterval(() => {
      const now = Date.now();
      gapMs = Math.max(gapMs, now - last);
      last = now;
    }, 10);
    try {
      const value = await work();
      return { gapMs: Math.max(gapMs, Date.now() - last), value };
    } finally {
      clearInterval(timer);
    }
  }

  it('timers keep firing while a long mapping runs (the loop is given back every few ms)', async () => {
    configureExpressionLimits({ timeoutMs: 60_000 });
    const { gapMs, value } = await longestTimerGap(() =>
      evalExpression('$count([1..100000].($pad("", 3, "y") & "z"))'),
    );
    expect(value).toMatchObject({ ok: true, result: 100000 });
    expect(gapMs).toBeLessThan(250);
  });

  it('the time budget still stops a long evaluation, near its limit', async () => {
    configureExpressionLimits({ timeoutMs: 300 });
    const t0 = Date.now();
    const { gapMs, value } = await longestTimerGap(() =>
      evalExpression('($f := function($n){$n=0 ? 0 : $f($n-1)}; [1..200000].($f(5)))'),
    );
    expect(value).toMatchObject({ ok: false });
    expect((value as { message: string }).message).toMatch(/^D1012/);
    expect(Date.now() - t0).toBeLessThan(300 + 700);
    expect(gapMs).toBeLessThan(250);
  });
});

describe('proven-cheap expressions skip the budget hooks', () => {
  const ast = (text: string): unknown => {
    const r = compileExpression(text);
    if (!r.ok) throw new Error(r.message);
    return r.expr.ast;
  };

  it.each([
    'a + b',
    '$sum(items.(price * qty))',
    '$parent.price * $parent.qty',
    '$count($keys($parent)[$ != "fields"])',
    '$round(total * rate, 2)',
    'items[price > 50].name ~> $join(",")',
  ])('%s is cheap', (text) => expect(isProvenCheap(ast(text))).toBe(true));

  it.each([
    '$pad("", n, "y")',
    'a & b',
    '[1..n]',
    '($x := a; $x)',
    'function($x){$x}',
    '$count(items[price > $parent.price])',
    'items.($$.items.price)',
    '$string(items)',
    '$myLibraryFunction(a)',
    '$eval("1")',
  ])('%s is not', (text) => expect(isProvenCheap(ast(text))).toBe(false));
});
