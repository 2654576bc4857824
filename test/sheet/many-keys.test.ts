// Aggregates over a table with more distinct keys than JSONata's grouping operator holds at once
// (it evaluates every group together, and past about a thousand groups that trips the depth
// guard): a running count (`COUNTIFS($A$2:A2,A2,$B$2:B2,B2)`, "the n-th time this pair appears",
// criteria.ts runningCount: sorted entries and binary search), a total per pair
// (`SUMIFS($C:$C,$A:$A,A2,$B:$B,B2)`, the grouped read) and a count by order (`COUNTIF($C:$C,">"&C2)`,
// the ordered read), both grouped a block at a time (criteria-code.ts groupEntries). The oracle is
// a direct computation written here; the what-if check compares the model with the grid evaluator.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

const ROWS = 1_200;
const STATES = ['Ohio', 'iowa', 'Utah', 'OHIO'];

interface Visit {
  state: string;
  city: string;
  amount: number;
}

/** Rows 2…ROWS+1: more than a thousand distinct (state, city) pairs (case apart) and amounts. */
const visits = (salt: number): Visit[] =>
  Array.from({ length: ROWS }, (_, i) => ({
    state: STATES[(i + salt) % STATES.length]!,
    city: `C${(i * 7919 + salt) % 1_150}`,
    amount: ((i * 37 + salt) % 1_190) / 4 + 0.1,
  }));

const pairOf = (v: Visit): string => `${v.state.toLowerCase()}|${v.city.toLowerCase()}`;

/** What the spreadsheet computes, row by row, in the spreadsheet's order of addition. */
function expected(vs: Visit[]): { seen: number; pairTotal: number; above: number }[] {
  const seen = new Map<string, number>();
  const totals = new Map<string, number>();
  for (const v of vs) totals.set(pairOf(v), (totals.get(pairOf(v)) ?? 0) + v.amount);
  return vs.map((v) => {
    const n = (seen.get(pairOf(v)) ?? 0) + 1;
    seen.set(pairOf(v), n);
    return {
      seen: n,
      pairTotal: totals.get(pairOf(v))!,
      above: vs.filter((w) => w.amount > v.amount).length,
    };
  });
}

function book(vs: Visit[]): Uint8Array {
  const want = expected(vs);
  const last = ROWS + 1;
  const rows = [
    row(
      1,
      text('A1', 'State'),
      text('B1', 'City'),
      text('C1', 'Amount'),
      text('D1', 'Seen'),
      text('E1', 'Pair total'),
      text('F1', 'Above'),
    ),
  ];
  vs.forEach((v, i) => {
    const r = i + 2;
    rows.push(
      row(
        r,
        text(`A${r}`, v.state),
        text(`B${r}`, v.city),
        num(`C${r}`, v.amount),
        formula(`D${r}`, `COUNTIFS($A$2:A${r},A${r},$B$2:B${r},B${r})`, want[i]!.seen),
        formula(
          `E${r}`,
          `SUMIFS($C$2:$C$${last},$A$2:$A$${last},A${r},$B$2:$B$${last},B${r})`,
          want[i]!.pairTotal,
        ),
        formula(`F${r}`, `COUNTIF($C$2:$C$${last},">"&C${r})`, want[i]!.above),
      ),
    );
  });
  return xlsxBook([{ name: 'Visits', rows: rows.join('') }]);
}

describe('aggregates over a table of more than a thousand keys', () => {
  it('verify with what-if, and compute right after every row is rewritten', async () => {
    const first = visits(0);
    expect(new Set(first.map(pairOf)).size).toBeGreaterThan(1_000);
    expect(new Set(first.map((v) => v.amount)).size).toBeGreaterThan(1_000);
    const c = await convertWorkbook(book(first), { modelId: 'visits' });
    expect(c.rejectedColumns.map((r) => `${r.address}: ${r.message}`)).toEqual([]);
    expect(c.report.verifiedCells).toBe(3 * ROWS);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    for (const salt of [123]) {
      const vs = visits(salt);
      await runtime.mutate({ '$.rows': vs });
      const got = ((await runtime.getState()).rows as Record<string, unknown>[]).map((r) => ({
        seen: r.seen,
        pairTotal: r.pair_total,
        above: r.above,
      }));
      expect(got).toEqual(expected(vs));
    }
  }, 240_000);
});
