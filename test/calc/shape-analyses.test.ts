// Analyses done once per expression shape (expression-shape.ts) must answer what the same analysis
// gives on each expression's own syntax tree: the dependency extraction (dependencyInfoOf against
// extractDependencyInfo on the member's tree, under every kind of scope the compiler passes), the
// `$index` check, and the validator's name lint and regex check (per shape against per expression,
// and validate_spec's findings against each expression checked on its own). Texts are generated
// from templates rendered with several name assignments, so later renderings reuse the first one's
// shape; the names repeat and collide with variables on purpose.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dependencyInfoOf,
  extractDependencyInfo,
  readsVariable,
  readsVariableOf,
  type ExtractOptions,
} from '../../src/calc/dependencies.js';
import { compileExpression, sharesProgram, type CompiledExpression } from '../../src/calc/expression.js';
import type { SharedShape } from '../../src/calc/expression-shape.js';
import { expressionFindings, validateSpec, type ShapeFindings } from '../../src/calc/validator.js';

const NAMES = ['a', 'b', 'x', 'items', 'price', 'index', 'parent', 'in12', 'sum'];

/** A template: text pieces between name slots (slot k is written `§k`). */
const { expr: template } = fc.letrec<{ expr: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { arbitrary: fc.nat(3).map((k) => `§${k}`), weight: 6 },
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}.§${m}`),
    fc.constantFrom('1', 'true', '$parent.§1', '$', '$$.§2', '$index', '$parent', '$$', '$x', '$nope'),
    fc.tuple(fc.nat(3), tie('expr')).map(([k, e]) => `§${k}[${e}]`),
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}[0].§${m}`),
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}^(§${m})`),
    fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)).map(([k, m, j]) => `§${k}{§${m}: §${j}}`),
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}.{"k": §${m}}`),
    fc
      .tuple(
        fc.constantFrom('$sum', '$count', '$string', '$lookup', '$eval', '$unknownFn', '$keys'),
        fc.nat(3),
      )
      .map(([f, k]) => `${f}(§${k})`),
    fc.tuple(fc.nat(3), tie('expr')).map(([k, e]) => `($x := §${k}; ${e})`),
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}.$sum(§${m})`),
    fc.tuple(fc.nat(3), fc.nat(3)).map(([k, m]) => `§${k}.*.§${m}`),
    fc.nat(3).map((k) => `§${k}.**`),
    tie('expr').map((e) => `(${e})`),
    fc.tuple(fc.nat(3), tie('expr')).map(([k, e]) => `§${k}.(${e})`),
  ),
  expr: fc.oneof(
    { depthSize: 'small' },
    { arbitrary: tie('atom'), weight: 4 },
    fc
      .tuple(tie('atom'), fc.constantFrom(' + ', ' * ', ' = ', ' and ', ' & ', ' in '), tie('expr'))
      .map(([x, op, y]) => `${x}${op}${y}`),
    fc.tuple(tie('atom'), tie('expr'), tie('expr')).map(([c, x, y]) => `${c} ? ${x} : ${y}`),
  ),
}));

const render = (t: string, names: readonly string[]): string =>
  t.replace(/§(\d)/g, (_, k) => names[Number(k)]!);
const assignments = fc.array(fc.array(fc.constantFrom(...NAMES), { minLength: 4, maxLength: 4 }), {
  minLength: 2,
  maxLength: 4,
});

/** The compilations of one template's renderings (those that compile). */
function compileAll(t: string, names: string[][]): CompiledExpression[] {
  const out: CompiledExpression[] = [];
  for (const n of names) {
    const r = compileExpression(render(t, n));
    if (r.ok) out.push(r.expr);
  }
  return out;
}

const OPTIONS: ExtractOptions[] = [
  {},
  { parent: ['items', '*'] },
  { parent: ['a', 'b', '*'] },
  { scope: ['items', '*'], scopeIsRow: true },
  { scope: ['x'] },
  { scope: ['items', 0] },
];

describe('analyses per expression shape answer what the expression itself gives', () => {
  it('dependency extraction and the $index check', () => {
    let shared = 0;
    fc.assert(
      fc.property(template, assignments, (t, names) => {
        for (const expr of compileAll(t, names)) {
          if (sharesProgram(expr)) shared++;
          for (const options of OPTIONS)
            expect(dependencyInfoOf(expr, options)).toEqual(extractDependencyInfo(expr.ast, options));
          for (const name of ['index', 'parent', 'x'])
            expect(readsVariableOf(expr, name)).toBe(readsVariable(expr.ast, name));
        }
      }),
      { numRuns: 400 },
    );
    expect(shared).toBeGreaterThan(200); // the shape path was exercised, not only the direct one
  });

  it("the validator's name lint and regex check", () => {
    const exportSets = [undefined, new Set<string>(), new Set(['x', 'unknownFn'])];
    fc.assert(
      fc.property(template, assignments, (t, names) => {
        const exprs = compileAll(t, names);
        for (const exports of exportSets) {
          const byShape = new Map<SharedShape, ShapeFindings>();
          for (const expr of exprs)
            expect(expressionFindings(expr, exports, byShape)).toEqual(expressionFindings(expr, exports));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('validate_spec reports, for each expression, what checking it alone reports', async () => {
    await fc.assert(
      fc.asyncProperty(template, assignments, async (t, names) => {
        const texts = names.map((n) => render(t, n));
        const report = await validateSpec({
          id: 'shapes',
          schema: { type: 'object' },
          derivations: texts.map((expr, i) => ({ path: `$.out${i}`, expr })),
        });
        texts.forEach((text, i) => {
          const at = `derivations[${i}].expr`;
          const r = compileExpression(text);
          const found = [
            ...report.errors
              .filter((f) => f.location === at)
              .map((f) => ({ error: true, message: f.message })),
            ...report.warnings
              .filter((f) => f.location === at)
              .map((f) => ({ error: false, message: f.message })),
          ];
          if (!r.ok) {
            expect(found).toEqual([{ error: true, message: `expression does not compile: ${r.message}` }]);
            return;
          }
          const alone = expressionFindings(r.expr, new Set());
          const expected = [
            ...alone.lint.filter((f) => f.error),
            ...(alone.regexProblem ? [{ error: true, message: alone.regexProblem }] : []),
            ...alone.lint.filter((f) => !f.error),
          ];
          expect(found).toEqual(expected);
        });
      }),
      { numRuns: 150 },
    );
  });
});
