// A converted model computes SUMIFS/COUNTIFS keyed by row and exact lookups through top-level
// helpers (a grouped aggregate, a lookup index) built once per recalculation. When such a helper's
// derivation fails (a time limit on a loaded server did this to a 2,326-row budget workbook), a
// row reading it must fail too: reading the missing helper as "no such key" gave every row the
// aggregate's zero, a wrong number with nothing at the value to say so.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

/** Categories in A, amounts in B; per row: the category's total (C), an order sum (D), its budget (E). */
function book(): Uint8Array {
  const cats = ['rent', 'food', 'rent', 'fuel', 'food'];
  const amounts = [500, 40, 500, 60, 25];
  const budgets: Record<string, number> = { rent: 450, food: 80, fuel: 70 };
  const total = (c: string): number => cats.reduce((s, x, i) => s + (x === c ? amounts[i]! : 0), 0);
  const rows = [
    row(
      1,
      text('A1', 'Category'),
      text('B1', 'Amount'),
      text('C1', 'Total'),
      text('D1', 'Above'),
      text('E1', 'First'),
    ),
  ];
  cats.forEach((c, i) => {
    const r = i + 2;
    const above = amounts.filter((a) => a > amounts[i]!).reduce((s, a) => s + a, 0);
    rows.push(
      row(
        r,
        text(`A${r}`, c),
        num(`B${r}`, amounts[i]!),
        formula(`C${r}`, `SUMIFS($B$2:$B$6,$A$2:$A$6,A${r})`, total(c)),
        formula(`D${r}`, `SUMIFS($B$2:$B$6,$B$2:$B$6,">"&B${r})`, above),
        formula(`E${r}`, `INDEX($B$2:$B$6,MATCH(A${r},$A$2:$A$6,0))`, amounts[cats.indexOf(c)]!),
      ),
    );
  });
  const budgetRows = [row(1, text('A1', 'Category'), text('B1', 'Budget'))];
  Object.entries(budgets).forEach(([c, b], i) =>
    budgetRows.push(row(i + 2, text(`A${i + 2}`, c), num(`B${i + 2}`, b))),
  );
  return xlsxBook([
    { name: 'Sheet1', rows: rows.join('') },
    { name: 'Budgets', rows: budgetRows.join('') },
  ]);
}

/** The converted model, with the derivations whose expression `breaks` selects made to fail. */
async function runtimeOf(c: SheetConversion, breaks: (path: string) => boolean): Promise<ModelRuntime> {
  const spec = structuredClone(c.spec) as typeof c.spec & { derivations: { path: string; expr: string }[] };
  for (const d of spec.derivations) if (breaks(d.path)) d.expr = '$error("stands in for a time limit")';
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(c.spec.tests[0]!.given);
  return runtime;
}

type Rows = Record<string, unknown>[];

describe('a row reading a failed top-level helper fails too', () => {
  it('computes every column through helpers when nothing fails', async () => {
    const c = await convertWorkbook(book(), { modelId: 'helpers' });
    expect(c.rejectedColumns.map((r) => `${r.column}: ${r.reason}`)).toEqual([]);
    const helpers = (c.spec.derivations as { path: string }[])
      .map((d) => d.path)
      .filter((p) => !p.includes('['));
    // a grouped aggregate (C), an ordered one (D), a lookup index (E)
    expect(helpers.filter((p) => p.includes('aggregate')).length).toBe(2);
    expect(helpers.filter((p) => p.includes('index')).length).toBe(1);
    const rows = (await (await runtimeOf(c, () => false)).getState()).rows as Rows;
    expect(rows.map((r) => r.total)).toEqual([1000, 65, 1000, 60, 65]);
    expect(rows.map((r) => r.above)).toEqual([0, 1060, 0, 1000, 1100]);
    expect(rows.map((r) => r.first)).toEqual([500, 40, 500, 60, 40]);
  });

  it('gives no value, and a failed trace, where a helper failed: never the aggregate zero', async () => {
    const c = await convertWorkbook(book(), { modelId: 'helpers' });
    const runtime = await runtimeOf(c, (p) => !p.includes('[') && /aggregate|index/.test(p));
    const result = await runtime.mutate({ '$.rows[1].amount': 41 });
    const rows = (await runtime.getState()).rows as Rows;
    for (const column of ['total', 'above', 'first'] as const) {
      expect(
        rows.map((r) => r[column] ?? null),
        column,
      ).toEqual([null, null, null, null, null]);
    }
    const failed = result.traces.filter((t) =>
      t.errorMessage?.includes('the derivation that builds it failed'),
    );
    expect(failed.length).toBeGreaterThan(0);
  });
});
