// The `$sum(a.b…)` fast path must answer exactly what JSONata answers (value, type, error) on any
// document: generated documents mix the shapes it handles with every shape it must leave to JSONata.
import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_LIMITS, type ExpressionLimits } from '../../src/calc/expression.js';
import { fastEvaluation, NOT_HANDLED } from '../../src/calc/fast-sum.js';
import { evaluateSoon } from './helpers/evaluate-soon.js';

const NAMES = ['items', 'total', 'a', 'constructor', 'x y'];

const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 0.1, 0.2, 1e308, -1e308, Number.MAX_SAFE_INTEGER),
);

const { value: documentValue } = fc.letrec<{ value: unknown; row: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    { arbitrary: number, weight: 6 },
    { arbitrary: tie('row'), weight: 3 },
    { arbitrary: fc.array(tie('row'), { maxLength: 5 }), weight: 4 },
    { arbitrary: fc.array(number, { maxLength: 5 }), weight: 2 },
    fc.array(tie('value'), { maxLength: 3 }),
    fc.constantFrom(null, true, 'text', '3', [], {}),
  ),
  row: fc.dictionary(fc.constantFrom(...NAMES), tie('value'), { maxKeys: 4 }),
}));

const root = fc.dictionary(fc.constantFrom(...NAMES), documentValue, { maxKeys: 5 });
const pathText = fc
  .array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 })
  .map((names) => `$sum(${names.map((n) => (n.includes(' ') ? `\`${n}\`` : n)).join('.')})`);

/** What an evaluation gave: its value, or its error code. */
async function outcome(run: () => Promise<unknown>): Promise<{ value?: unknown; code?: unknown }> {
  try {
    return { value: await run() };
  } catch (err) {
    return { code: (err as { code?: unknown }).code ?? 'no code' };
  }
}

function jsonataWith(text: string, limits: ExpressionLimits) {
  return jsonata(text, { timeout: limits.timeoutMs, stack: limits.maxDepth, sequence: limits.maxSequence });
}

describe('$sum fast path', () => {
  it('answers what JSONata answers, value, type and error, on generated documents', async () => {
    let handled = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        pathText,
        root,
        fc.constantFrom(DEFAULT_LIMITS.maxSequence, 3),
        async (text, doc, maxSequence) => {
          runs++;
          const limits = { ...DEFAULT_LIMITS, maxSequence };
          const compiled = compileExpression(text, limits);
          if (!compiled.ok) throw new Error(compiled.message);
          const fast = fastEvaluation(compiled.expr.ast, limits);
          expect(fast).toBeDefined();
          if (fast!(doc, undefined) !== NOT_HANDLED) handled++;
          const ours = await outcome(() => evaluateSoon(compiled.expr, doc));
          const reference = await outcome(() => jsonataWith(text, limits).evaluate(doc));
          expect(ours.code).toEqual(reference.code);
          // Object.is: -0 and 0 differ, and a number never equals a string
          expect(Object.is(ours.value, reference.value)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
    // the generator reaches the fast path often, or the comparison above proves little
    expect(handled).toBeGreaterThan(runs / 5);
  });

  it('answers JSONata on the shapes of a long row array', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ total: (i % 13) * 0.1, qty: i }));
    const doc = { items: rows, empty: [], one: [{ total: -0 }] };
    for (const text of ['$sum(items.total)', '$sum(empty.total)', '$sum(empty)', '$sum(one.total)']) {
      const compiled = compileExpression(text);
      if (!compiled.ok) throw new Error(compiled.message);
      expect(fastEvaluation(compiled.expr.ast, DEFAULT_LIMITS)!(doc, undefined)).not.toBe(NOT_HANDLED);
      const reference = await jsonata(text).evaluate(doc);
      expect(Object.is(await compiled.expr.evaluate(doc), reference)).toBe(true);
    }
  });

  it('refuses what outgrows the sequence budget as JSONata does', async () => {
    const limits = { ...DEFAULT_LIMITS, maxSequence: 3 };
    const docs = [
      { items: [{ total: 1 }, { total: 2 }, { total: 3 }, { total: 4 }] }, // 4 rows at the first step
      { items: [{ total: [1, 2] }, { total: [3, 4] }] }, // 2 rows, 4 values at the last
      { items: [{ total: [1, 2] }, { total: 3 }] }, // 3 values: within the budget
    ];
    for (const doc of docs) {
      const compiled = compileExpression('$sum(items.total)', limits);
      if (!compiled.ok) throw new Error(compiled.message);
      const ours = await outcome(() => evaluateSoon(compiled.expr, doc));
      const reference = await outcome(() => jsonataWith('$sum(items.total)', limits).evaluate(doc));
      expect(ours).toEqual(reference);
    }
    expect((await outcome(() => jsonataWith('$sum(items.total)', limits).evaluate(docs[1]))).code).toBe(
      'D2015',
    );
  });

  it('leaves other shapes, a short time budget and a $sum binding to JSONata', async () => {
    for (const text of [
      '$sum(items[0].total)',
      '$sum(items.total) + 1',
      '$sum($.items.total)',
      '$sum(items.(total))',
      '$sum(items#$i.total)',
      '$max(items.total)',
      '$sum(items.total, 1)',
    ]) {
      const compiled = compileExpression(text);
      if (!compiled.ok) continue;
      expect(fastEvaluation(compiled.expr.ast, DEFAULT_LIMITS)).toBeUndefined();
    }
    const compiled = compileExpression('$sum(items.total)');
    if (!compiled.ok) throw new Error(compiled.message);
    expect(fastEvaluation(compiled.expr.ast, { ...DEFAULT_LIMITS, timeoutMs: 5 })).toBeUndefined();
    const fast = fastEvaluation(compiled.expr.ast, DEFAULT_LIMITS)!;
    expect(fast({ items: [{ total: 1 }] }, { sum: () => 7 })).toBe(NOT_HANDLED);
    expect(await compiled.expr.evaluate({ items: [{ total: 1 }] }, { sum: () => 7 })).toBe(7);
  });
});
