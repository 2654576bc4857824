// The plain-arithmetic fast path (src/calc/fast-arithmetic.ts) must answer exactly what JSONata
// answers (value, type, error) on any document and bindings: generated expressions mix the shapes it
// handles with ones it must leave to JSONata, and generated documents put numbers, strings, arrays,
// nulls, missing fields, prototype names and non-finite results where the expressions look.
import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, sharesProgram } from '../../src/calc/expression.js';
import { fastArithmetic } from '../../src/calc/fast-arithmetic.js';
import { NOT_HANDLED } from '../../src/calc/fast-sum.js';
import { evaluateSoon, soonCount } from './helpers/evaluate-soon.js';

const NAMES = ['a', 'b', 'price', 'qty', 'constructor', 'toString'];

const number = fc.oneof(
  { arbitrary: fc.integer({ min: -100, max: 100 }), weight: 5 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 3 },
  fc.constantFrom(-0, 0, 0.1, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 5e-324),
);
const value = fc.oneof(
  { arbitrary: number, weight: 12 },
  fc.constantFrom(null, true, 'text', '3', [], [1], [1, 2], {}),
  fc.dictionary(fc.constantFrom(...NAMES), number, { maxKeys: 4 }),
);
/** Most fields hold a number, so whole expressions often reach the fast path; some are missing. */
const fields = (names: string[], arb: fc.Arbitrary<unknown>) =>
  fc
    .tuple(...names.map(() => fc.option(arb, { freq: 8, nil: undefined })))
    .map((vs) => Object.fromEntries(names.flatMap((n, i) => (vs[i] === undefined ? [] : [[n, vs[i]]]))));
const row = fields(NAMES, value);
const doc = fc.tuple(fields(NAMES, value), row).map(([d, r]) => ({ ...d, row: r }));

const { expr } = fc.letrec<{ expr: string; leaf: string }>((tie) => ({
  leaf: fc.oneof(
    { arbitrary: fc.constantFrom(...NAMES), weight: 6 },
    fc.tuple(fc.constantFrom(...NAMES, 'row'), fc.constantFrom(...NAMES)).map(([x, y]) => `${x}.${y}`),
    fc.constantFrom(...NAMES).map((n) => `$parent.${n}`),
    fc.constantFrom(
      '$unbound.a',
      '$parent',
      '1',
      '2.5',
      '0',
      '1e308',
      '0.1',
      'a[0]',
      '$sum(a)',
      '"s"',
      'row.a.b',
    ),
  ),
  expr: fc.oneof(
    { depthSize: 'small' },
    { arbitrary: tie('leaf'), weight: 3 },
    fc
      .tuple(tie('expr'), fc.constantFrom(' + ', ' - ', ' * ', ' / ', ' % ', ' & ', ' = '), tie('expr'))
      .map(([x, op, y]) => `${x}${op}${y}`),
    tie('expr').map((x) => `(${x})`),
    tie('expr').map((x) => `-${x}`),
  ),
}));

async function outcome(
  run: () => Promise<unknown>,
): Promise<{ value?: unknown; code?: unknown; position?: unknown }> {
  try {
    return { value: await run() };
  } catch (err) {
    const e = err as { code?: unknown; position?: unknown };
    return { code: e.code ?? 'no code', position: e.position };
  }
}

describe('plain arithmetic fast path', () => {
  it('answers what JSONata answers, value, type and error, on generated expressions and documents', async () => {
    let handled = 0;
    let runs = 0;
    const synchronous = soonCount.synchronous;
    await fc.assert(
      fc.asyncProperty(expr, doc, row, fc.boolean(), async (text, d, parent, bound) => {
        runs++;
        const compiled = compileExpression(text);
        let reference: jsonata.Expression;
        try {
          reference = jsonata(text, { timeout: 2000, stack: 1000 });
        } catch {
          expect(compiled.ok).toBe(false);
          return;
        }
        if (!compiled.ok) throw new Error(compiled.message);
        const bindings = bound ? { parent } : undefined;
        const fast = fastArithmetic(compiled.expr.ast);
        if (fast && fast(d, bindings) !== NOT_HANDLED) handled++;
        const ours = await outcome(() => evaluateSoon(compiled.expr, d, bindings));
        const theirs = await outcome(() => reference.evaluate(d, bindings));
        expect(ours.code).toEqual(theirs.code);
        expect(ours.position).toEqual(theirs.position);
        // Object.is: -0 and 0 differ, and a number never equals a string
        if (typeof theirs.value === 'number' || theirs.value === undefined)
          expect(Object.is(ours.value, theirs.value)).toBe(true);
        else expect(ours.value).toEqual(theirs.value);
      }),
      { numRuns: 4000 },
    );
    // the generators reach the fast path often, or the comparison above proves little
    expect(handled).toBeGreaterThan(runs / 8);
    // and a cycle's synchronous path (evaluateNow) answered many of them
    expect(soonCount.synchronous - synchronous).toBeGreaterThan(runs / 8);
  });

  it("a shape's members share one fast path and each reads its own names, exactly as JSONata", async () => {
    // the second text is the first with its field names moved one along NAMES: the same shape
    const renamed = (text: string, by: number) =>
      text.replace(
        /(?<![$\w.])\b(a|b|price|qty|constructor|toString)\b|(?<=\.)(a|b|price|qty|constructor|toString)\b/g,
        (n) => NAMES[(NAMES.indexOf(n) + by) % NAMES.length]!,
      );
    let shared = 0;
    let handled = 0;
    await fc.assert(
      fc.asyncProperty(expr, fc.integer({ min: 1, max: 5 }), doc, row, async (text, by, d, parent) => {
        const texts = [text, renamed(text, by)];
        const compiled = texts.map((t) => compileExpression(t));
        for (const [i, t] of texts.entries()) {
          let reference: jsonata.Expression;
          try {
            reference = jsonata(t, { timeout: 2000, stack: 1000 });
          } catch {
            expect(compiled[i]!.ok).toBe(false);
            continue;
          }
          const c = compiled[i]!;
          if (!c.ok) throw new Error(c.message);
          if (i === 1 && sharesProgram(c.expr) && texts[0] !== texts[1]) shared++;
          const bindings = { parent };
          const fast = fastArithmetic(c.expr.ast);
          if (fast && fast(d, bindings) !== NOT_HANDLED) handled++;
          const ours = await outcome(() => evaluateSoon(c.expr, d, bindings));
          const theirs = await outcome(() => reference.evaluate(d, bindings));
          expect(ours.code).toEqual(theirs.code);
          expect(ours.position).toEqual(theirs.position);
          if (typeof theirs.value === 'number' || theirs.value === undefined)
            expect(Object.is(ours.value, theirs.value)).toBe(true);
          else expect(ours.value).toEqual(theirs.value);
        }
      }),
      { numRuns: 2000 },
    );
    expect(shared).toBeGreaterThan(200);
    expect(handled).toBeGreaterThan(200);
  });

  it('handles the row rule and the chain shapes, and leaves others to JSONata', () => {
    for (const text of [
      '$parent.price * $parent.qty',
      'in12 * 3 + b12',
      '(a + 1) * -b',
      'x_1 * (1 + growth)',
    ])
      expect(
        fastArithmetic((compileExpression(text) as { expr: { ast: jsonata.ExprNode } }).expr.ast),
      ).toBeDefined();
    for (const text of ['a', '$parent.price', 'a & b', 'a[0] * 2', '$sum(a) + 1', 'a = b', '$x * 2'])
      expect(
        fastArithmetic((compileExpression(text) as { expr: { ast: jsonata.ExprNode } }).expr.ast)?.(
          { a: 1, b: 2 },
          undefined,
        ) ?? NOT_HANDLED,
      ).toBe(NOT_HANDLED);
  });
});
