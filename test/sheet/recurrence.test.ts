// Recurrences: a running balance and an amortisation schedule whose columns read each other and
// the row above, each with a first row apart (the opening). The stored values are worked out here
// in plain arithmetic, as a spreadsheet does (they are data, not our converter's output); the
// spec's test checks every one of them, and a wrong one is still a rejection.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
// more rows than loose.ts takes apart cell by cell (a first row apart in a short column does that)
const ROWS = 205;
const AMOUNTS = Array.from({ length: ROWS }, (_, i) => ((i * 37) % 101) - 40 + (i % 2) / 2);
const runningOf = (amounts: number[]): number[] => {
  let sum = 0;
  return amounts.map((a) => (sum += a));
};
const running = (i: number): number => runningOf(AMOUNTS)[i]!;

/** Month | Amount | Balance (=B2 first, then =C1+B2 filled down), rows 2..ROWS+1. */
function ledger(first: (r: number) => string, wrongAt = -1): Uint8Array {
  const rows = [row(1, text('A1', 'Month'), text('B1', 'Amount'), text('C1', 'Balance'))];
  AMOUNTS.forEach((a, i) => {
    const r = i + 2;
    const f = r === 2 ? first(r) : `C${r - 1}+B${r}`;
    const v = running(i) + (i === wrongAt ? 1 : 0);
    rows.push(row(r, text(`A${r}`, `m${i + 1}`), num(`B${r}`, a), formula(`C${r}`, f, v)));
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

const RATE = 0.01;
const OPENING = 1000;
const PAYMENTS = Array.from({ length: ROWS }, (_, i) => (i % 3 === 2 ? 150 : 100));

/** Interest, principal and balance row by row, as the schedule computes them. */
function amortise(payments: number[]): { interest: number; principal: number; balance: number }[] {
  let balance = OPENING;
  return payments.map((p) => {
    const interest = balance * RATE;
    const principal = p - interest;
    balance = balance - principal;
    return { interest, principal, balance };
  });
}

/** Period | Payment | Interest | Principal | Balance, the rate and the opening balance below. */
function schedule(): Uint8Array {
  const rows = [
    row(
      1,
      text('A1', 'Period'),
      text('B1', 'Payment'),
      text('C1', 'Interest'),
      text('D1', 'Principal'),
      text('E1', 'Balance'),
    ),
  ];
  const worked = amortise(PAYMENTS);
  PAYMENTS.forEach((p, i) => {
    const r = i + 2;
    const { interest, principal, balance } = worked[i]!;
    rows.push(
      row(
        r,
        num(`A${r}`, i + 1),
        num(`B${r}`, p),
        formula(`C${r}`, r === 2 ? `$B$${ROWS + 4}*$B$${ROWS + 3}` : `E${r - 1}*$B$${ROWS + 3}`, interest),
        formula(`D${r}`, `B${r}-C${r}`, principal),
        formula(`E${r}`, r === 2 ? `$B$${ROWS + 4}-D${r}` : `E${r - 1}-D${r}`, balance),
      ),
    );
  });
  const [a, b] = [ROWS + 3, ROWS + 4];
  rows.push(
    row(a, text(`A${a}`, 'Rate'), num(`B${a}`, RATE)),
    row(b, text(`A${b}`, 'Opening'), num(`B${b}`, OPENING)),
  );
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

async function runtimeOf(c: SheetConversion): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(c.spec.tests[0]!.given);
  return runtime;
}

describe('recurrences', () => {
  it('compiles a running balance with a first row apart as one fold', async () => {
    const c = await convertWorkbook(
      ledger((r) => `B${r}`),
      { modelId: 'rec' },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(ROWS);
    const paths = c.spec.derivations.map((d) => d.path);
    expect(paths).toContain('$.rows_balance_fold');
    expect(c.spec.derivations.find((d) => d.path === '$.rows[*].balance')!.expr).toContain(
      'rows_balance_fold[$index].rows.balance',
    );
  });

  it('a stored value the fold does not give rejects the recurrence', async () => {
    const c = await convertWorkbook(
      ledger((r) => `B${r}`, 3),
      { modelId: 'rec' },
    );
    expect(c.rejectedColumns.map((r) => [r.column, r.reason])).toEqual([['Balance', 'VALUE_MISMATCH']]);
    expect(c.spec.derivations.map((d) => d.path)).not.toContain('$.rows_balance_fold');
  });

  it('a middle-row change recomputes the balance of every later row', async () => {
    const c = await convertWorkbook(
      ledger((r) => `B${r}`),
      { modelId: 'rec' },
    );
    const runtime = await runtimeOf(c);
    await runtime.mutate({ '$.rows[1].amount': 0 });
    const rows = (await runtime.getState()).rows as { balance: number }[];
    expect(rows.map((r) => r.balance)).toEqual(runningOf(AMOUNTS.map((a, i) => (i === 1 ? 0 : a))));
  });

  it('compiles an amortisation schedule: interest, principal and balance read each other and the row above', async () => {
    const c = await convertWorkbook(schedule(), { modelId: 'rec' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(3 * ROWS);
    const folds = c.spec.derivations.filter((d) => d.path.endsWith('_fold'));
    expect(folds).toHaveLength(1);
    const runtime = await runtimeOf(c);
    await runtime.mutate({ '$.rows[1].payment': 200 });
    const rows = (await runtime.getState()).rows as {
      interest: number;
      principal: number;
      balance: number;
    }[];
    // row 2 pays 200: 910*1.01-200 = 719.1, then 719.1*1.01-150 = 576.291, and so on
    const worked = amortise(PAYMENTS.map((p, i) => (i === 1 ? 200 : p)));
    // compared at 12 digits: the plain doubles of the model and of this worked example are summed
    // in different orders
    const kept = (v: number): number => Number(v.toPrecision(12));
    expect(rows.map((r) => [r.interest, r.principal, r.balance].map(kept))).toEqual(
      worked.map((w) => [w.interest, w.principal, w.balance].map(kept)),
    );
    expect(Math.round(rows[2]!.balance * 1e6) / 1e6).toBe(576.291);
  });

  it('a first row apart in a long column that is no recurrence compiles with its own formula there', async () => {
    const rows = [row(1, text('A1', 'Amount'), text('B1', 'Twice'))];
    Array.from({ length: ROWS }, (_, i) => i + 1).forEach((a, i) => {
      const r = i + 2;
      rows.push(
        row(r, num(`A${r}`, a), formula(`B${r}`, r === 2 ? `A${r}*3` : `A${r}*2`, r === 2 ? 3 : a * 2)),
      );
    });
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]), { modelId: 'rec' });
    expect(c.rejectedColumns).toEqual([]);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate({ ...c.spec.tests[0]!.given, '$.rows[0].amount': 10, '$.rows[1].amount': 10 });
    const twice = ((await runtime.getState()).rows as { twice: number }[]).map((r) => r.twice);
    expect(twice.slice(0, 3)).toEqual([30, 20, 6]);
  });
});
