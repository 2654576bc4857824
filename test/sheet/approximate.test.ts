// Approximate match (issue 39): VLOOKUP/HLOOKUP without FALSE, MATCH 1 and -1, XLOOKUP/XMATCH
// next smaller / next larger. Each formula's stored value and its value after every edit of the key
// come from @formulajs/formulajs over the same cells (XLOOKUP and XMATCH, which formulajs lacks,
// from Excel's documented rule written out below); the compiled model must agree after each edit.
import * as formulajs from '@formulajs/formulajs';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
const fj = formulajs as unknown as Record<string, (...args: unknown[]) => unknown>;

const FROM = [0, 1000, 5000, 20000];
const RATE = [0.1, 0.2, 0.3, 0.4];
const DOWN = [20000, 5000, 1000, 0];
const NAMES = ['low', 'mid', 'high', 'top'];
const STORED_KEY = 3000;

/** Excel's XLOOKUP/XMATCH position: exact, or the next smaller (-1) / larger (1) value; first or last. */
function xmatch(x: number, list: number[], mode: number, search = 1): number | undefined {
  const fits = list
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => (mode < 0 ? v <= x : mode > 0 ? v >= x : v === x));
  if (fits.length === 0) return undefined;
  const best = mode < 0 ? Math.max(...fits.map((f) => f.v)) : Math.min(...fits.map((f) => f.v));
  const hits = fits.filter((f) => f.v === best);
  return (search < 0 ? hits[hits.length - 1]! : hits[0]!).i + 1;
}

const ok = (v: unknown): unknown => (v instanceof Error ? undefined : v);
const CASES: { cell: string; f: string; value: (x: number) => unknown }[] = [
  {
    cell: 'E10',
    f: 'VLOOKUP(E8,$A$2:$B$5,2)',
    value: (x) =>
      ok(
        fj.VLOOKUP!(
          x,
          FROM.map((v, i) => [v, RATE[i]]),
          2,
          true,
        ),
      ),
  },
  {
    cell: 'E11',
    f: 'VLOOKUP(E8,$A$2:$B$5,2,TRUE)',
    value: (x) =>
      ok(
        fj.VLOOKUP!(
          x,
          FROM.map((v, i) => [v, RATE[i]]),
          2,
          true,
        ),
      ),
  },
  { cell: 'E12', f: 'MATCH(E8,$A$2:$A$5,1)', value: (x) => ok(fj.MATCH!(x, FROM, 1)) },
  { cell: 'E13', f: 'MATCH(E8,$A$20:$D$20,-1)', value: (x) => ok(fj.MATCH!(x, DOWN, -1)) },
  { cell: 'E14', f: 'MATCH(E8,$A$2:$A$5)', value: (x) => ok(fj.MATCH!(x, FROM)) },
  { cell: 'E15', f: 'HLOOKUP(E8,$A$22:$D$23,2)', value: (x) => ok(fj.HLOOKUP!(x, [FROM, NAMES], 2, true)) },
  {
    cell: 'E16',
    f: '_xlfn.XLOOKUP(E8,$A$2:$A$5,$B$2:$B$5,"none",-1)',
    value: (x) => RATE[(xmatch(x, FROM, -1) ?? 0) - 1] ?? 'none',
  },
  {
    cell: 'E17',
    f: '_xlfn.XLOOKUP(E8,$A$2:$A$5,$B$2:$B$5,"none",1)',
    value: (x) => RATE[(xmatch(x, FROM, 1) ?? 0) - 1] ?? 'none',
  },
  { cell: 'E18', f: '_xlfn.XMATCH(E8,$A$20:$D$20,-1)', value: (x) => xmatch(x, DOWN, -1) },
];

/** Sheet1: a From | Rate table (A1:B5), the key in E8, one formula per case, side rows 20-23. */
function book(): Uint8Array {
  const rows = [row(1, text('A1', 'From'), text('B1', 'Rate'))];
  FROM.forEach((v, i) => rows.push(row(i + 2, num(`A${i + 2}`, v), num(`B${i + 2}`, RATE[i]!))));
  rows.push(row(8, text('D8', 'Income'), num('E8', STORED_KEY)));
  for (const c of CASES) {
    const r = Number(c.cell.slice(1));
    rows.push(
      row(r, text(`D${r}`, `Case ${c.cell}`), formula(c.cell, c.f, c.value(STORED_KEY) as number | string)),
    );
  }
  rows.push(row(20, ...DOWN.map((v, i) => num(`${'ABCD'[i]}20`, v))));
  rows.push(row(22, ...FROM.map((v, i) => num(`${'ABCD'[i]}22`, v))));
  rows.push(row(23, ...NAMES.map((v, i) => text(`${'ABCD'[i]}23`, v))));
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

describe('approximate match', () => {
  it('compiles each form and agrees with formulajs after edits of the key (below the first: no value)', async () => {
    const c = await convertWorkbook(book(), { modelId: 'approx' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    expect(c.report.verifiedCells).toBe(CASES.length);
    const pathOf = (address: string): string =>
      c.spec.derivations.find((d) => d.description?.includes(`(cell ${address})`))!.path.slice(2);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    for (const key of [-5, 0, 999.5, 1000, 4999, 5000, 19999.99, 20000, 25000]) {
      await runtime.mutate({ '$.income': key });
      const state = (await runtime.getState()) as Record<string, unknown>;
      const got = CASES.map((k) => [k.cell, key, state[pathOf(k.cell)]]);
      // a spreadsheet error (#N/A) is no value: the model's state holds null there
      expect(got).toEqual(CASES.map((k) => [k.cell, key, k.value(key) ?? null]));
    }
  });

  it('MATCH 1 over a list edited out of order gives no value (each spreadsheet binary-searches its own way)', async () => {
    const c = await convertWorkbook(book(), { modelId: 'approx' });
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    await runtime.mutate({ '$.rows[2].from': 500 });
    const state = (await runtime.getState()) as Record<string, unknown>;
    const match = c.spec.derivations.find((d) => d.description?.includes('(cell E12)'))!.path.slice(2);
    expect(state[match]).toBeNull();
  });
});
