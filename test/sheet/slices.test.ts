// The spec's runs in slices of rows (src/sheet/slices.ts, issue 39 point 6): which tables may be
// run a slice at a time (their columns read only their own row and the top-level inputs, and no
// other rule reads them), and that a cell past the first slice is still checked and named right.
import { describe, expect, it } from 'vitest';
import { normalizeSpec, type JsonObject } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { planSlices, SLICE_ROWS, SpecRunner } from '../../src/sheet/slices.js';
import { xlsx } from './helpers.js';

const ROWS = 1200;

/** A spec of one table `rows` (ROWS rows, inputs a and b), with the given derivations. */
function spec(derivations: { path: string; expr: string }[], extra: JsonObject = {}) {
  return normalizeSpec({
    id: 's',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        rows: {
          type: 'array',
          items: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
        },
        rate: { type: 'number' },
        ...extra,
      },
    },
    derivations,
  }).spec;
}

const tables = [{ name: 'rows', rows: ROWS }];
const inputs = new Set(['rate']);

describe('planSlices', () => {
  it('slices a table whose columns read their own row and the top-level inputs', () => {
    const plan = planSlices(
      spec([
        { path: '$.rows[*].c', expr: '$parent.a + $parent.b * $$.rate' },
        { path: '$.rows[*].d', expr: '$round($parent.c, 2)' },
      ]),
      tables,
      inputs,
    );
    expect([...plan.sliced]).toEqual([['rows', ROWS]]);
    expect(plan.runs).toBe(Math.ceil(ROWS / SLICE_ROWS));
  });

  it.each([
    ['a total over the table', [{ path: '$.total', expr: '$sum($$.rows.a)' }]],
    ['a column reading another row', [{ path: '$.rows[*].c', expr: '$$.rows[0].a + $parent.b' }]],
    ['a column reading its place', [{ path: '$.rows[*].c', expr: '$parent.a + $index' }]],
    ['a column reading a computed top-level cell', [{ path: '$.rows[*].c', expr: '$parent.a * $$.total' }]],
    ['a column reading the whole document', [{ path: '$.rows[*].c', expr: '$count($keys($$))' }]],
  ])('runs the table whole when it has %s', (_what, derivations) => {
    const plan = planSlices(spec(derivations), tables, inputs);
    expect(plan.sliced.size).toBe(0);
    expect(plan.runs).toBe(1);
    expect([...plan.whole]).toEqual(['rows']);
  });

  it('leaves a short table whole: one run is enough', () => {
    const plan = planSlices(
      spec([{ path: '$.rows[*].c', expr: '$parent.a' }]),
      [{ name: 'rows', rows: 40 }],
      inputs,
    );
    expect(plan.runs).toBe(1);
  });
});

describe('SpecRunner', () => {
  it('checks every row of every slice and names a failure by its row in the whole table', async () => {
    const s = spec([{ path: '$.rows[*].c', expr: '$parent.a + $parent.b' }]);
    const runner = await SpecRunner.open(s, tables, inputs);
    expect(runner.plan.runs).toBe(3);
    const rows = Array.from({ length: ROWS }, (_, i) => ({ a: i, b: 1 }));
    const expect_: JsonObject = {};
    rows.forEach((r, i) => (expect_[`$.rows[${i}].c`] = r.a + r.b));
    // two wrong expectations: one in the first slice, one in the last
    expect_['$.rows[7].c'] = -1;
    expect_['$.rows[1111].c'] = -1;
    const runs: number[] = [];
    const report = await runner.run({ given: { '$.rows': rows }, expect: expect_ }, (n) => runs.push(n));
    expect(runs).toEqual([1, 2, 3]);
    const failures = report.results.flatMap((r) => r.failures ?? []);
    expect(failures.map((f) => [f.path, f.actual])).toEqual([
      ['$.rows[7].c', 8],
      ['$.rows[1111].c', 1112],
    ]);
  });
});

describe('a long table converted in slices', () => {
  it('rejects a stored value past the first slice, naming its cell', async () => {
    const rows = [
      '<row r="1"><c r="A1" t="inlineStr"><is><t>A</t></is></c><c r="B1" t="inlineStr"><is><t>B</t></is></c><c r="C1" t="inlineStr"><is><t>Sum</t></is></c></row>',
    ];
    for (let r = 2; r <= ROWS + 1; r++) {
      // row 1102 stores a wrong sum: only the third slice's run sees it
      const sum = r === 1102 ? 0 : r + 2 * r;
      rows.push(
        `<row r="${r}"><c r="A${r}"><v>${r}</v></c><c r="B${r}"><v>${2 * r}</v></c><c r="C${r}"><f>A${r}+B${r}</f><v>${sum}</v></c></row>`,
      );
    }
    const c = await convertWorkbook(xlsx(rows.join('')), { modelId: 'long' });
    expect(c.rejectedColumns).toEqual([
      expect.objectContaining({ reason: 'VALUE_MISMATCH', cell: 'C1102', expected: 0, actual: 3306 }),
    ]);
  });

  it('verifies every row of a long table with what-if edits', async () => {
    const rows = [
      '<row r="1"><c r="A1" t="inlineStr"><is><t>A</t></is></c><c r="B1" t="inlineStr"><is><t>B</t></is></c><c r="C1" t="inlineStr"><is><t>Sum</t></is></c></row>',
    ];
    for (let r = 2; r <= ROWS + 1; r++) {
      rows.push(
        `<row r="${r}"><c r="A${r}"><v>${r}</v></c><c r="B${r}"><v>${2 * r}</v></c><c r="C${r}"><f>A${r}*B${r}</f><v>${2 * r * r}</v></c></row>`,
      );
    }
    const c = await convertWorkbook(xlsx(rows.join('')), { modelId: 'long' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(ROWS);
    expect(c.report.checks).toEqual([expect.objectContaining({ checked: 'what-if 3 edits', cells: ROWS })]);
  });
});
