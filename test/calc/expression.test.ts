import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  DEFAULT_LIMITS,
  isTruthy,
  mustCompile,
  ExpressionCompileError,
} from '../../src/calc/expression.js';
import { live } from './helpers/model.js';

describe('compileExpression', () => {
  it('compiles once per text and reports a compile error as a message', () => {
    const a = compileExpression('a + 1');
    expect(a.ok).toBe(true);
    expect(compileExpression('a + 1')).toBe(a);
    const bad = compileExpression('a +');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message.length).toBeGreaterThan(0);
    expect(() => mustCompile('(')).toThrow(ExpressionCompileError);
  });

  it('evaluates with bindings', async () => {
    expect(await mustCompile('a * $k').evaluate({ a: 3 }, { k: 2 })).toBe(6);
  });

  it('uses the documented default limits', () => {
    expect(DEFAULT_LIMITS).toEqual({
      timeoutMs: 2000,
      maxDepth: 1000,
      maxSequence: 1_000_001,
      maxAllocation: 10_000_000,
    });
  });
});

describe('truthiness (calc-spec §6)', () => {
  it.each<[unknown, boolean]>([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    [Number.NaN, false],
    ['x', true],
    ['', false],
    [null, false],
    [undefined, false],
    [{}, false],
    [[1], false],
  ])('%j → %s', (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });
});

describe('expression limits: a runaway derivation fails alone (calc-spec §4, §17)', () => {
  const SPEC = {
    derivations: [
      { path: '$.tail', expr: 'go = "tail" ? ($f := function($x){ $f($x) }; $f(1)) : 0' },
      { path: '$.deep', expr: 'go = "deep" ? ($g := function($x){ 1 + $g($x) }; $g(1)) : 0' },
      { path: '$.ok', expr: 'n + 1' },
    ],
  };

  it('infinite tail recursion times out: error trace, value null, the cycle commits, the next mutation works', async () => {
    const { runtime } = await live(SPEC);
    // no stopwatch: the budget shows in the trace's timeout error; a hang fails at the test timeout
    const r = await runtime.mutate({ '$.go': 'tail', '$.n': 1 });
    expect(r.success).toBe(true);
    const trace = r.traces.find((t) => t.targetPath === '$.tail');
    expect(trace?.errorMessage).toMatch(/timeout|infinite/i);
    expect(trace?.result).toBeNull();
    expect(await runtime.getValue('$.tail')).toBeNull();
    expect(await runtime.getValue('$.ok')).toBe(2);
    expect(runtime.explain('$.tail').at(-1)?.errorMessage).toBe(trace?.errorMessage);

    const next = await runtime.mutate({ '$.go': 'none', '$.n': 5 });
    expect(await runtime.getValue('$.tail')).toBe(0);
    expect(await runtime.getValue('$.ok')).toBe(6);
    expect(next.traces.every((t) => t.errorMessage === null)).toBe(true);
  });

  it('non-tail infinite recursion overflows: error trace, value null, the process lives', async () => {
    const { runtime } = await live(SPEC);
    const r = await runtime.mutate({ '$.go': 'deep', '$.n': 1 });
    const trace = r.traces.find((t) => t.targetPath === '$.deep');
    expect(trace?.errorMessage).toMatch(/stack|recursi/i);
    expect(trace?.result).toBeNull();
    expect(await runtime.getValue('$.deep')).toBeNull();
    expect(await runtime.getValue('$.ok')).toBe(2);
    await runtime.mutate({ '$.go': 'none' });
    expect(await runtime.getValue('$.deep')).toBe(0);
  });

  it('an ordinary runtime error (type mismatch) is a null value with the JSONata code in the trace', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.bad', expr: 'a + "x"' }] });
    const r = await runtime.mutate({ '$.a': 1 });
    expect(r.traces[0]!.errorMessage).toMatch(/^T\d{4}: /);
    expect(await runtime.getValue('$.bad')).toBeNull();
  });
});

describe('compiled syntax trees', () => {
  // each parse makes its own symbol table; a node inheriting from it kept ~12 KB alive per expression
  const TEXTS = [
    'price * qty + $sum(items[qty > 2].(price * qty))',
    '$map(rows, function($r, $i) { {"n": $r.name & "-" & $string($i)} })',
    'a ? b : (c ~> $uppercase())',
    '$count($keys($)) > 0 and $$.x in [1, 2, "three"]',
    'items^(>price)[0].name',
    '$contains(c, /X/i)',
  ];

  it("hold no node of the parser's symbol table, and evaluate as before", async () => {
    for (const text of TEXTS) {
      const compiled = compileExpression(text);
      if (!compiled.ok) throw new Error(compiled.message);
      const stack: unknown[] = [compiled.expr.ast];
      const seen = new Set<unknown>();
      while (stack.length > 0) {
        const node = stack.pop();
        if (node === null || typeof node !== 'object' || seen.has(node)) continue;
        seen.add(node);
        const proto: unknown = Object.getPrototypeOf(node);
        if (!(node instanceof RegExp)) expect([Object.prototype, Array.prototype]).toContain(proto);
        stack.push(...Object.values(node));
      }
    }
    const input = {
      price: 2,
      qty: 3,
      items: [
        { price: 1, qty: 3 },
        { price: 5, qty: 1 },
      ],
      a: false,
      c: 'x',
      x: 2,
    };
    for (const text of TEXTS) {
      const compiled = compileExpression(text);
      if (!compiled.ok) throw new Error(compiled.message);
      expect(await compiled.expr.evaluate(input)).toEqual(await jsonata(text).evaluate(input));
    }
  });
});
