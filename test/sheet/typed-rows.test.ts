// Columns mixing typed constants and one formula filled down (issue 39): an opening balance typed
// above a running balance, a typed row between two blocks of the formula, typed overrides in the
// last rows. The stored values are worked out here in plain arithmetic, as a spreadsheet computes
// them; after an edit of a typed value the model is checked against the same arithmetic again.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
// longer than loose.ts takes apart cell by cell: the column is compiled whole
const ROWS = 240;
const AMOUNTS = Array.from({ length: ROWS }, (_, i) => ((i * 37) % 101) - 40);

/** Balance row by row: a typed row holds its typed value, any other adds its amount to the row above. */
function balances(amounts: number[], typed: Map<number, number>): number[] {
  const out: number[] = [];
  amounts.forEach((a, i) => out.push(typed.get(i) ?? (out[i - 1] ?? 0) + a));
  return out;
}

/** Month | Amount | Balance: a typed value at the rows of `typed` (by index), else `=C{r-1}+B{r}`. */
function ledger(typed: Map<number, number>): Uint8Array {
  const worked = balances(AMOUNTS, typed);
  const rows = [row(1, text('A1', 'Month'), text('B1', 'Amount'), text('C1', 'Balance'))];
  AMOUNTS.forEach((a, i) => {
    const r = i + 2;
    const balance = typed.has(i)
      ? num(`C${r}`, typed.get(i)!)
      : formula(`C${r}`, `C${r - 1}+B${r}`, worked[i]!);
    rows.push(row(r, text(`A${r}`, `m${i + 1}`), num(`B${r}`, a), balance));
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

async function runtimeOf(c: SheetConversion): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(c.spec.tests[0]!.given);
  return runtime;
}

const balanceColumn = async (runtime: ModelRuntime): Promise<number[]> =>
  ((await runtime.getState()).rows as { balance: number }[]).map((r) => r.balance);

describe('columns mixing typed constants and a formula', () => {
  it('a typed opening balance above a running balance is the fold’s first step, writable', async () => {
    const c = await convertWorkbook(ledger(new Map([[0, 1000]])), { modelId: 'typed' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.formulaCells).toBe(ROWS - 1);
    expect(c.report.verifiedCells).toBe(ROWS - 1);
    const schema = c.spec.schema as {
      properties: { rows: { items: { properties: Record<string, unknown> } } };
    };
    expect(Object.keys(schema.properties.rows.items.properties)).toEqual([
      'month',
      'amount',
      'balance',
      'balance_typed',
    ]);
    expect(
      (c.spec.tests[0]!.given['$.rows'] as { balance_typed: unknown }[]).map((r) => r.balance_typed),
    ).toEqual(AMOUNTS.map((_, i) => (i === 0 ? 1000 : null)));
    const runtime = await runtimeOf(c);
    expect(await balanceColumn(runtime)).toEqual(balances(AMOUNTS, new Map([[0, 1000]])));
    // a new opening value moves every later row
    await runtime.mutate({ '$.rows[0].balance_typed': 250 });
    expect(await balanceColumn(runtime)).toEqual(balances(AMOUNTS, new Map([[0, 250]])));
    // an amount in the middle moves the rows after it only
    await runtime.mutate({ '$.rows[100].amount': 5000 });
    const amounts = AMOUNTS.map((a, i) => (i === 100 ? 5000 : a));
    expect(await balanceColumn(runtime)).toEqual(balances(amounts, new Map([[0, 250]])));
  });

  it('a typed row between two blocks of the formula restarts the balance there', async () => {
    const typed = new Map([
      [0, 1000],
      [120, 0],
    ]);
    const c = await convertWorkbook(ledger(typed), { modelId: 'typed' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(ROWS - 2);
    const runtime = await runtimeOf(c);
    await runtime.mutate({ '$.rows[120].balance_typed': 77, '$.rows[0].balance_typed': -5 });
    expect(await balanceColumn(runtime)).toEqual(
      balances(
        AMOUNTS,
        new Map([
          [0, -5],
          [120, 77],
        ]),
      ),
    );
  });

  it('typed overrides in the last rows of a column that is no recurrence', async () => {
    const overrides = new Map([
      [ROWS - 2, 7],
      [ROWS - 1, 9],
    ]);
    const rows = [row(1, text('A1', 'Amount'), text('B1', 'Twice'), text('C1', 'Plus one'))];
    AMOUNTS.forEach((a, i) => {
      const r = i + 2;
      const twice = overrides.has(i) ? num(`B${r}`, overrides.get(i)!) : formula(`B${r}`, `A${r}*2`, a * 2);
      rows.push(row(r, num(`A${r}`, a), twice, formula(`C${r}`, `B${r}+1`, (overrides.get(i) ?? a * 2) + 1)));
    });
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]), {
      modelId: 'typed',
    });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(2 * ROWS - 2);
    const runtime = await runtimeOf(c);
    await runtime.mutate({ '$.rows[239].twice_typed': 100, '$.rows[3].amount': 50, '$.rows[238].amount': 1 });
    const state = (await runtime.getState()).rows as { amount: number; twice: number; plus_one: number }[];
    const amounts = AMOUNTS.map((a, i) => (i === 3 ? 50 : i === 238 ? 1 : a));
    const twice = amounts.map((a, i) => (i === 239 ? 100 : i === 238 ? 7 : a * 2));
    expect(state.map((r) => r.twice)).toEqual(twice);
    expect(state.map((r) => r.plus_one)).toEqual(twice.map((t) => t + 1));
  });

  it('a blank row among the formulas is a typed row holding the blank (0), writable', async () => {
    const rows = [row(1, text('A1', 'Amount'), text('B1', 'Twice'))];
    AMOUNTS.forEach((a, i) => {
      const r = i + 2;
      rows.push(row(r, num(`A${r}`, a), ...(i === 5 ? [] : [formula(`B${r}`, `A${r}*2`, a * 2)])));
    });
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]), {
      modelId: 'typed',
    });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(ROWS - 1);
    const given = c.spec.tests[0]!.given['$.rows'] as { twice_typed: unknown }[];
    expect(given.map((r) => r.twice_typed)).toEqual(AMOUNTS.map((_, i) => (i === 5 ? 0 : null)));
    const runtime = await runtimeOf(c);
    const twice = async (): Promise<number[]> =>
      ((await runtime.getState()).rows as { twice: number }[]).map((r) => r.twice);
    expect(await twice()).toEqual(AMOUNTS.map((a, i) => (i === 5 ? 0 : a * 2)));
    // the blank row stays blank when its amount changes; a value typed into it is that value
    await runtime.mutate({ '$.rows[5].amount': 50, '$.rows[6].amount': 1 });
    expect((await twice()).slice(4, 8)).toEqual([AMOUNTS[4]! * 2, 0, 2, AMOUNTS[7]! * 2]);
    await runtime.mutate({ '$.rows[5].twice_typed': 33 });
    expect((await twice())[5]).toBe(33);
  });

  it('a long column blank in more than a third of its rows stays rejected', async () => {
    const rows = [row(1, text('A1', 'Amount'), text('B1', 'Twice'))];
    // 225 formula cells (more than loose.ts takes apart) and 225 blank rows
    for (let i = 0; i < 450; i++) {
      const r = i + 2;
      rows.push(row(r, num(`A${r}`, i), ...(i % 2 === 0 ? [] : [formula(`B${r}`, `A${r}*2`, i * 2)])));
    }
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]), {
      modelId: 'typed',
    });
    expect(c.rejectedColumns.map((r) => [r.column, r.reason])).toEqual([['Twice', 'NON_UNIFORM_FORMULA']]);
  });
});
