/** Calculate's expression language (§5). */
import { describe, expect, it } from 'vitest';
import { compileExpression, MAX_NESTING } from '../../src/synth/calculate/expression.js';

function run(source: string, x: number[]): number[] {
  const p = compileExpression(source);
  const xs = Float64Array.from(x);
  const y = Float64Array.from(x);
  p.run(xs, y);
  return Array.from(y);
}

describe('Calculate expressions', () => {
  it.each([
    ['y[0] = x[0] + x[1] * x[2]', [1, 2, 3], 7],
    ['y[0] = (x[0] + x[1]) * x[2]', [1, 2, 3], 9],
    ['y[0] = x[0] - x[1] - x[2]', [10, 2, 3], 5],
    ['y[0] = x[0] / x[1] / x[2]', [24, 2, 3], 4],
    ['y[0] = -x[0] * -2', [3], 6],
    ['y[0] = floor(2.7) + ceiling(2.1) + ceil(0.2) + abs(-4)', [0], 10],
    ['y[0] = round(2.5) + round(-2.5)', [0], 1],
    ['y[0] = sqrt(16) + exp(0) + log(1) + ln(1)', [0], 5],
    ['y[0] = min(3, x[0]) + max(3, x[0]) + pow(2, 10)', [5], 1032],
    ['y[0] = mod(-7, 3)', [0], -1],
    ['y[0] = 1.5e2 + .5', [0], 150.5],
  ])('%s', (source, x, expected) => {
    expect(run(source, x)[0]).toBe(expected);
  });

  it('copies unassigned outputs and lets every assignment see the original x', () => {
    expect(run('y[0] = x[1]; y[1] = x[0]', [1, 2, 3])).toEqual([2, 1, 3]);
  });

  it('follows IEEE rules for log(0), log(-1) and division by zero', () => {
    expect(run('y[0] = log(0)', [0])[0]).toBe(-Infinity);
    expect(run('y[0] = log(-1)', [0])[0]).toBeNaN();
    expect(run('y[0] = 1 / 0', [0])[0]).toBe(Infinity);
  });

  it('keeps literals exact, double negation and long chains', () => {
    expect(run('y[0] = 1e999 - -x[0]', [1])[0]).toBe(Infinity);
    expect(run('y[0] = - - -x[0]', [2])[0]).toBe(-2);
    expect(run('y[0] = 0.1 + 0.2', [0])[0]).toBe(0.1 + 0.2);
    const chain = Array.from({ length: 500 }, (_, i) => `x[${i % 3}]`).join(' + ');
    expect(run(`y[0] = ${chain}`, [1, 2, 3])[0]).toBe(167 * 1 + 167 * 2 + 166 * 3);
  });

  it('refuses nesting deeper than the limit with a load error, not a stack overflow', () => {
    expect(run(`y[0] = ${'('.repeat(MAX_NESTING - 1)}x[0]${')'.repeat(MAX_NESTING - 1)}`, [4])[0]).toBe(4);
    expect(() => compileExpression(`y[0] = ${'('.repeat(100_000)}1${')'.repeat(100_000)}`)).toThrow(
      /nested deeper than 256 levels/,
    );
    expect(() => compileExpression(`y[0] = ${'-'.repeat(100_000)}1`)).toThrow(/nested deeper/);
  });

  it.each([
    'y[0] = constructor(1)',
    'y[0] = toString(1)',
    'y[0] = hasOwnProperty(1, 2)',
    'y[0] = x[0]; process.exit(1)',
    'y[0] = x[0]) ; (globalThis.hacked = 1',
    'y[0] = F[0](1)',
    'y[0] = C[0]',
    'y[0] = x["0"]',
  ])('compiles nothing but its own grammar: %s is refused', (source) => {
    expect(() => compileExpression(source)).toThrow(/expression/);
    expect((globalThis as { hacked?: unknown }).hacked).toBeUndefined();
  });

  it.each(['y[0] = ', 'z[0] = 1', 'y[0] = foo(1)', 'y[0] = min(1)', 'y[0] = x[0] +* 2', 'y[0] = (1'])(
    'rejects %s',
    (source) => {
      expect(() => compileExpression(source)).toThrow(/expression/);
    },
  );
});

describe('Calculate programs shared between graphs', () => {
  it('gives the program compiled before for the same text, so every graph calls one function', () => {
    const a = compileExpression('y[0] = x[0] * 3 + 1');
    expect(compileExpression('y[0] = x[0] * 3 + 1')).toBe(a);
    expect(compileExpression('y[0] = x[0] * 3 + 2')).not.toBe(a);
  });

  it('keeps a bounded number of them, the oldest going first', () => {
    const first = compileExpression('y[0] = x[0] + 0.5');
    for (let i = 0; i < 300; i++) compileExpression(`y[0] = x[0] + ${i}`);
    const again = compileExpression('y[0] = x[0] + 0.5');
    expect(again).not.toBe(first); // compiled again once it had been pushed out
    expect(run('y[0] = x[0] + 0.5', [2])).toEqual([2.5]);
  });

  it('compiles a long text each time rather than keep it', () => {
    // many short assignments: each within the operator limit, the text past 4,096 characters
    const long = Array.from({ length: 400 }, (_, i) => `y[0] = x[0] + ${i}`).join('; ');
    expect(long.length).toBeGreaterThan(4096);
    expect(compileExpression(long)).not.toBe(compileExpression(long));
    expect(run(long, [1])).toEqual([400]); // every assignment reads the original x: the last wins
  });

  it('gives each graph sharing a program its own results, calls interleaved', () => {
    const source = 'y[0] = x[0] * 2; y[1] = x[0] + x[1]';
    const [a, b] = [compileExpression(source), compileExpression(source)];
    expect(a).toBe(b);
    const [xa, ya] = [Float64Array.of(1, 2), new Float64Array(2)];
    const [xb, yb] = [Float64Array.of(10, 20), new Float64Array(2)];
    a.run(xa, ya);
    b.run(xb, yb);
    a.run(xa, ya);
    expect(Array.from(ya)).toEqual([2, 3]);
    expect(Array.from(yb)).toEqual([20, 30]);
  });
});
