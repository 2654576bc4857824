// Indexed lookups (lookups.ts): a row formula looking up in a whole column of another table reads a
// lookup index instead of scanning the column. Each formula's stored values are what
// @formulajs/formulajs computes for the same lookup, so the converter's own check (a value that
// differs is VALUE_MISMATCH) is the assertion; the spec must also hold the index derivation.
import * as formulajs from '@formulajs/formulajs';
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
const fj = formulajs as unknown as Record<string, (...args: unknown[]) => unknown>;

/** customers!A1:C6: an id column with a duplicate (the first row wins), text ids, numbers. */
const CUSTOMERS: [number | string, string, number][] = [
  [101, 'Ann', 3],
  ['b7', 'Bob', 0],
  [103, 'Cy', 7.5],
  [101, 'Dup', 9],
  ['B8', 'Eve', -2],
];
const IDS = CUSTOMERS.map((c) => c[0]);
const ORDERS: (number | string)[] = [101, 'B7', 103, 999, '101', 'b8'];

const customersSheet = (): string =>
  [
    row(1, text('A1', 'ID'), text('B1', 'Name'), text('C1', 'Points')),
    ...CUSTOMERS.map((c, i) => {
      const r = i + 2;
      const id = typeof c[0] === 'number' ? num(`A${r}`, c[0]) : text(`A${r}`, c[0]);
      return row(r, id, text(`B${r}`, c[1]), num(`C${r}`, c[2]));
    }),
  ].join('');

/** orders!A:B: an id and one formula column (B) whose stored values come from `reference`. */
function book(f: (r: number) => string, reference: (id: number | string) => unknown): Uint8Array {
  const rows = [row(1, text('A1', 'Customer'), text('B1', 'Name'))];
  ORDERS.forEach((id, i) => {
    const r = i + 2;
    const v = reference(id);
    const idCell = typeof id === 'number' ? num(`A${r}`, id) : text(`A${r}`, id);
    const stored = v instanceof Error || v === undefined ? 'none' : (v as number | string);
    rows.push(row(r, idCell, formula(`B${r}`, f(r), stored)));
  });
  return xlsxBook([
    { name: 'orders', rows: rows.join('') },
    { name: 'customers', rows: customersSheet() },
  ]);
}

const column = (i: number): unknown[] => CUSTOMERS.map((c) => c[i]);
/** formulajs's exact MATCH compares as Excel does only for numbers; text is compared without case here. */
const match = (id: number | string): number | undefined => {
  const i = IDS.findIndex((k) =>
    typeof k === 'string' && typeof id === 'string' ? k.toLowerCase() === id.toLowerCase() : k === id,
  );
  const reference = fj.MATCH!(id, IDS, 0);
  if (typeof id === 'number')
    expect(reference instanceof Error ? undefined : reference).toBe(i < 0 ? undefined : i + 1);
  return i < 0 ? undefined : i + 1;
};

async function expectIndexed(bytes: Uint8Array): Promise<void> {
  const c = await convertWorkbook(bytes, { modelId: 'lookups' });
  const why = c.rejectedColumns.map((r) => `${r.reason}: ${r.message}`).join('; ');
  expect(why === '' ? 'compiled' : why).toBe('compiled');
  expect(c.report.verifiedCells).toBe(ORDERS.length);
  expect(c.spec.derivations.some((d) => /^\$\.\w*index\w*$/.test(d.path) && d.expr.includes('$xl_key'))).toBe(
    true,
  );
}

describe('lookups into a table column go through an index', () => {
  it('XLOOKUP: text without case, numbers not matching text, the first of duplicates, a not-found value', async () => {
    await expectIndexed(
      book(
        (r) => `_xlfn.XLOOKUP(A${r},customers!$A$1:$A$6,customers!$B$1:$B$6,"none",0)`,
        (id) => {
          const i = match(id);
          return i === undefined ? 'none' : fj.INDEX!(column(1), i);
        },
      ),
    );
  });

  it('INDEX over the table by MATCH of the key and MATCH of a header text', async () => {
    await expectIndexed(
      book(
        (r) =>
          `IFERROR(INDEX(customers!$A$1:$C$6,MATCH(A${r},customers!$A$1:$A$6,0),MATCH("points",customers!$A$1:$C$1,0)),"none")`,
        (id) => {
          const i = match(id);
          // the ranges start at the header row: positions count it
          return i === undefined ? 'none' : fj.INDEX!([['ID', 'Name', 'Points'], ...CUSTOMERS], i + 1, 3);
        },
      ),
    );
  });

  it('MATCH gives the position in its range (past the header when the range includes it)', async () => {
    await expectIndexed(
      book(
        (r) => `IFERROR(MATCH(A${r},customers!$A$1:$A$6,0),"none")`,
        (id) => {
          const i = match(id);
          return i === undefined ? 'none' : i + 1;
        },
      ),
    );
  });
});
