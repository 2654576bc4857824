// Reads of other rows of a table: a fixed offset (the row below, the row above), a running total
// over the rows so far (SUM($B$2:B5)), the same row of a table beside it, and a fixed cell read from
// outside the tables. The stored values are worked out here in plain arithmetic, as a spreadsheet
// does (they are data, not our converter's output); the spec's test checks every one of them, and a
// read that lands on a header or on the formula's own column stays rejected.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
const AMOUNTS = [100, -30, 45.5, 12];

type Column = { header: string; f: (r: number) => string; v: (i: number) => number | string };

/** Sheet1: Month | Amount | one formula column per entry, rows 2..5. */
function book(columns: Column[], extra = ''): Uint8Array {
  const letters = 'CDEFGH';
  const rows = [
    row(
      1,
      text('A1', 'Month'),
      text('B1', 'Amount'),
      ...columns.map((c, k) => text(`${letters[k]}1`, c.header)),
    ),
  ];
  AMOUNTS.forEach((a, i) => {
    const r = i + 2;
    const cells = [text(`A${r}`, `m${i + 1}`), num(`B${r}`, a)];
    columns.forEach((c, k) => cells.push(formula(`${letters[k]}${r}`, c.f(r), c.v(i))));
    rows.push(row(r, ...cells));
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') + extra }]);
}

const running = (i: number): number => AMOUNTS.slice(0, i + 1).reduce((s, a) => s + a, 0);
const NEXT: Column = { header: 'Next', f: (r) => `B${r + 1}*2`, v: (i) => (AMOUNTS[i + 1] ?? 0) * 2 };
const RUNNING: Column = { header: 'Running', f: (r) => `SUM($B$2:B${r})`, v: running };
const PREV: Column = {
  header: 'Prev',
  f: (r) => `IF(A${r}="m1",0,B${r - 1})`,
  v: (i) => (i === 0 ? 0 : AMOUNTS[i - 1]!),
};

describe('reads of other rows', () => {
  it('compiles a row below (blank past the end), the rows so far and the row above', async () => {
    const c = await convertWorkbook(book([NEXT, RUNNING, PREV]), { modelId: 'offsets' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(12);
    const expr = (name: string) => c.spec.derivations.find((d) => d.path === `$.rows[*].${name}`)!.expr;
    expect(expr('next')).toContain('$index + 1');
    expect(expr('running')).toContain('$i <= $index');
  });

  it('the compiled model recomputes the rows after a changed middle row', async () => {
    const c = await convertWorkbook(book([NEXT, RUNNING]), { modelId: 'offsets' });
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    const given = c.spec.tests[0]!.given as Record<string, unknown>;
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(given);
    await runtime.mutate({ '$.rows[1].amount': 0 });
    const rows = (await runtime.getState()).rows as { next: number; running: number }[];
    expect(rows.map((r) => r.running)).toEqual([100, 100, 145.5, 157.5]);
    expect(rows.map((r) => r.next)).toEqual([0, 91, 24, 0]);
  });

  it('the row above the first row is the header, and reads as the header text, as a spreadsheet does', async () => {
    const above = (stored: string) => ({
      header: 'Above',
      f: (r: number) => `B${r - 1}`,
      v: (i: number) => (i === 0 ? stored : AMOUNTS[i - 1]!),
    });
    const c = await convertWorkbook(book([above('Amount')]), { modelId: 'offsets' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(4);
    // a stored value the compiled formula does not give is still a rejection
    const wrong = await convertWorkbook(book([above('0')]), { modelId: 'offsets' });
    expect(wrong.rejectedColumns.map((r) => [r.column, r.reason])).toEqual([['Above', 'VALUE_MISMATCH']]);
  });

  it('a column reading its own earlier row is a recurrence, compiled as a fold (test/sheet/recurrence.test.ts); its own later row stays rejected', async () => {
    const c = await convertWorkbook(
      book([{ header: 'Balance', f: (r) => (r === 2 ? 'B2' : `C${r - 1}+B${r}`), v: running }]),
      { modelId: 'offsets' },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(4);
    const ahead = await convertWorkbook(
      book([{ header: 'Ahead', f: (r) => `IF(A${r}="m4",0,C${r + 1})`, v: () => 0 }]),
      { modelId: 'offsets' },
    );
    expect(ahead.rejectedColumns.map((r) => [r.reason, r.message])).toEqual([
      ['CROSS_ROW_REFERENCE', expect.stringContaining('recurrence')],
    ]);
  });

  it('a formula outside the tables reads one cell of a table', async () => {
    const c = await convertWorkbook(
      book([RUNNING], row(7, text('A7', 'Third'), formula('B7', 'C4*1', running(2)))),
      { modelId: 'offsets' },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.derivations.find((d) => d.path === '$.third')?.expr).toContain('rows[2].running');
  });
});
