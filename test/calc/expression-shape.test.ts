// Expressions that differ only in their field names share one compiled JSONata program
// (src/calc/expression-shape.ts). A shared compilation must be exactly what compiling the text on
// its own gives: the same syntax tree (names and positions), and on any document the same value and
// type, or the same error (code, message, position, token). Texts are generated from one template
// rendered with two name assignments, so the second always reuses the first one's program.
import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_LIMITS, sharesProgram } from '../../src/calc/expression.js';
import { budgetBindings, isProvenCheap } from '../../src/calc/expression-budget.js';
import { shapeOf } from '../../src/calc/expression-shape.js';

const NAMES = ['a', 'b', 'in12', 'price', 'qty_total', 'x', 'items', 'and_x', 'functionx', 'Z9'];

/** A template: text pieces between name slots (slot k is written `§k`). */
const { expr: template } = fc.letrec<{ expr: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { arbitrary: fc.nat(3).map((k) => `§${k}`), weight: 6 },
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}.§${m}`),
    fc.constantFrom('1', '2.5', '0', '1e3', 'true', 'null', '$parent.§1', '$'),
    fc.tuple(fc.nat(3), tie('expr')).map(([k, e]) => `§${k}[${e}]`),
    fc
      .tuple(fc.constantFrom('$sum', '$count', '$max', '$string', '$exists', '$number'), fc.nat(3))
      .map(([f, k]) => `${f}(§${k})`),
    tie('expr').map((e) => `(${e})`),
    fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `[${x}, ${y}]`),
    fc.tuple(fc.nat(3), tie('expr')).map(([k, e]) => `§${k}.(${e})`),
  ),
  expr: fc.oneof(
    { depthSize: 'small' },
    { arbitrary: tie('atom'), weight: 4 },
    fc
      .tuple(
        tie('atom'),
        fc.constantFrom(
          ' + ',
          '-',
          ' * ',
          ' / ',
          '%',
          ' = ',
          '!=',
          ' < ',
          '>=',
          ' and ',
          ' or ',
          ' & ',
          ' in ',
        ),
        tie('expr'),
      )
      .map(([x, op, y]) => `${x}${op}${y}`),
    fc.tuple(tie('atom'), tie('expr'), tie('expr')).map(([c, x, y]) => `${c} ? ${x} : ${y}`),
    tie('atom').map((x) => `-${x}`),
  ),
}));

const render = (t: string, names: readonly string[]): string =>
  t.replace(/§(\d)/g, (_, k) => names[Number(k)]!);
const assignment = fc.array(fc.constantFrom(...NAMES), { minLength: 4, maxLength: 4 });

const leaf = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double({ min: -10, max: 10, noNaN: true }),
  fc.constantFrom(null, true, false, 'text', '3', 0),
);
const row = fc.dictionary(fc.constantFrom(...NAMES), leaf, { maxKeys: 4 });
const doc = fc.dictionary(
  fc.constantFrom(...NAMES),
  fc.oneof(leaf, row, fc.array(row, { maxLength: 3 }), fc.array(leaf, { maxLength: 3 })),
  { maxKeys: 6 },
);

/** A tree as plain data: inherited fields (JSONata's parser nodes keep some on prototypes) made own. */
function plain(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plain);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const k in node) {
    const v = (node as Record<string, unknown>)[k];
    if (typeof v !== 'function') out[k] = plain(v);
  }
  return out;
}

/**
 * The text compiled by JSONata alone, with the budget's step hooks where the product adds them (an
 * expression not proven cheap). JSONata evaluates an array constructor's items concurrently
 * (Promise.all), so when two items fail, which error is reported depends on how many awaits each
 * takes, and the hooks add one per step: `[a + (a), a & -a]` over `a = []` reports T2001 bare and
 * D1002 with the hooks (seed -840477569). Sharing a program must change nothing beyond that.
 */
function alone(text: string): jsonata.Expression {
  const e = jsonata(text, { timeout: 2000, stack: 1000 });
  if (!isProvenCheap(e.ast()))
    for (const [name, value] of budgetBindings(text, DEFAULT_LIMITS.maxAllocation))
      e.assign(name as string, value);
  return e;
}

/**
 * What an evaluation gave: the value as a document stores it (JSON: the budget hooks of a
 * non-cheap expression mark JSONata's sequences with an own `push`, whichever way it was compiled)
 * and its type, or the error's code, message, position and token.
 */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await run();
    const type = value === undefined ? 'undefined' : Array.isArray(value) ? 'array' : typeof value;
    return { value: value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown), type };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown; position?: unknown; token?: unknown };
    return { code: e.code, message: e.message, position: e.position, token: e.token };
  }
}

describe('expressions sharing a compiled program by shape', () => {
  it('finds the names of a simple text and refuses what it cannot vouch for', () => {
    expect(shapeOf('in12 * 3 + b12')).toEqual({
      key: '\u0001 * 3 + \u0001',
      names: ['in12', 'b12'],
      ends: [4, 14],
    });
    expect(shapeOf('a and b in [1]')?.names).toEqual(['a', 'b']);
    expect(shapeOf('$sum(items.total)')?.names).toEqual(['items', 'total']);
    for (const text of ['a = "x"', '`a b` + 1', 'a /* c */', '$match(a, /x/)', 'function($x){$x}', 'aé + 1'])
      expect(shapeOf(text)).toBeNull();
    expect(shapeOf('a / b')?.names).toEqual(['a', 'b']);
  });

  it('shares the program and is exact against compiling alone: tree, value, type, error', async () => {
    let shared = 0;
    await fc.assert(
      fc.asyncProperty(
        template,
        assignment,
        assignment,
        fc.array(doc, { minLength: 1, maxLength: 3 }),
        async (t, n1, n2, docs) => {
          const first = render(t, n1);
          const second = render(t, n2);
          const a = compileExpression(first);
          const b = compileExpression(second);
          let reference: jsonata.Expression;
          try {
            reference = alone(second);
          } catch {
            expect(b.ok).toBe(false);
            return;
          }
          expect(a.ok && b.ok).toBe(true);
          if (!a.ok || !b.ok) return;
          if (sharesProgram(b.expr) && first !== second) shared++;
          expect(plain(b.expr.ast)).toEqual(plain(reference.ast()));
          for (const d of docs) {
            const bindings = { parent: d };
            // interleave the two members' evaluations: each must read its own names
            const [got, gotFirst] = await Promise.all([
              outcome(() => b.expr.evaluate(d, bindings)),
              outcome(() => a.expr.evaluate(d, bindings)),
            ]);
            expect(got).toEqual(await outcome(() => reference.evaluate(d, bindings)));
            expect(gotFirst).toEqual(await outcome(() => alone(first).evaluate(d, bindings)));
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(shared).toBeGreaterThan(100);
  });

  it('gives each member its own names and error positions', async () => {
    const short = compileExpression('a * 3 + b');
    const long = compileExpression('longer_name * 3 + bb');
    expect(short.ok && long.ok && sharesProgram(long.expr)).toBe(true);
    if (!short.ok || !long.ok) return;
    expect(await long.expr.evaluate({ longer_name: 2, bb: 1, a: 100 })).toBe(7);
    const err = await outcome(() => long.expr.evaluate({ longer_name: 'x', bb: 1 }));
    const direct = await outcome(() => jsonata('longer_name * 3 + bb').evaluate({ longer_name: 'x', bb: 1 }));
    expect(err).toEqual(direct);
  });
});
