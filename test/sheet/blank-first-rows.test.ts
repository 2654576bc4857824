// Computed columns that start one row late, or under an opening constant (issue 39): a sales table
// whose second row is a line of text headers and whose formulas start under it, with rows left
// blank among them (the sales-dashboard workbook, 9,994 rows); a naive forecast `=D3` from its
// second data row, blank in its first (the forecast workbook); a loan schedule whose first
// row is blank in the payment columns and holds a typed 0 above a running total (the amortization
// workbook), under labels beside values one of which, text, reads as a header row but is read by a
// lookup as the value it is. Each blank or typed row stays what it is, the rest is the formula
// filled down.
// Headless LibreOffice recalculates the workbook and copies with seeded edits (the typed rows
// edited too); the model, given the same inputs, must give what LibreOffice computed in every
// compiled cell. Skipped where soffice is not installed.
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { splitRef, writeBook, type BookDef, type Input, type Stored } from './oracle/book.js';
import { compareEdits, type Edits } from './oracle/differential.js';
import { SOFFICE, SOFFICE_SKIP_REASON, type Recalculated } from './oracle/libreoffice.js';
import type { EditDef } from './oracle/layout.js';
import { recalculateWithEdits } from './oracle/edited-books.js';

/** Data rows of the sales table: more than loose.ts takes apart cell by cell. */
const SALES_ROWS = 230;
const LAST = 2 + SALES_ROWS;
/** Rows left blank across the table (as rows 7, 19, 33… of the sales dashboard). */
const BLANK_ROWS = [7, 19, 120];
/** A 20-year monthly schedule: longer than loose.ts takes apart (a shorter column is taken apart). */
const MONTHS = 240;

function sales(): Record<string, Input> {
  const cells: Record<string, Input> = {};
  ['Item', 'Price', 'Qty', 'Total', 'Discounted', 'Previous'].forEach((h, i) => {
    cells[`${'ABCDEF'[i]}1`] = h;
  });
  // a second line of headers, typed in the table's first row
  ['Item name', 'USD', 'units', 'Total Amount', 'Discounted Amount', 'Previous total'].forEach((h, i) => {
    cells[`${'ABCDEF'[i]}2`] = h;
  });
  for (let r = 3; r <= LAST; r++) {
    if (BLANK_ROWS.includes(r)) continue;
    cells[`A${r}`] = `item ${r}`;
    cells[`B${r}`] = ((r * 37) % 89) + 0.25;
    cells[`C${r}`] = (r % 7) + 1;
    cells[`D${r}`] = `=$B${r}*$C${r}`;
    cells[`E${r}`] = `=D${r}*0.9`;
    // blank in its first data row: the first forecast reads the row above
    if (r > 3) cells[`F${r}`] = `=D${r - 1}`;
  }
  cells.H2 = 'Grand total';
  cells.I2 = `=SUM(D3:D${LAST})`;
  cells.H3 = 'Discounted total';
  cells.I3 = `=SUM(E3:E${LAST})`;
  return cells;
}

function loan(): Record<string, Input> {
  const cells: Record<string, Input> = {
    C2: 'Loan Amount',
    D2: 250000,
    C3: 'Interest Rate',
    D3: 0.08,
    // labels beside values, one of them text: `Payment Frequency | Monthly` reads as a header
    // row, of a table of one row under it; the periods per year look the frequency up
    C4: 'Payment Frequency',
    D4: 'Monthly',
    C5: 'Payment',
    D5: `=ROUND(PMT(D3/$F$2,${MONTHS},-D2),2)`,
    E2: 'Periods per year',
    F2: '=VLOOKUP(D4,$J$2:$K$4,2,FALSE)',
    J2: 'Monthly',
    K2: 12,
    J3: 'Quarterly',
    K3: 4,
    J4: 'Annual',
    K4: 1,
  };
  [
    'Payment Number',
    'Amount Paid',
    'Additional',
    'Interest',
    'Principal',
    'Balance',
    'Interest to date',
  ].forEach((h, i) => (cells[`${'BCDEFGH'[i]}9`] = h));
  // the opening row: blank in the payment columns, the balance from the loan amount, a typed 0
  cells.B10 = 0;
  cells.G10 = '=D2';
  cells.H10 = 0;
  for (let m = 1; m <= MONTHS; m++) {
    const r = 10 + m;
    cells[`B${r}`] = m;
    cells[`C${r}`] = '=$D$5';
    if (m % 6 === 0) cells[`D${r}`] = 100;
    cells[`E${r}`] = `=ROUND(G${r - 1}*$D$3/$F$2,2)`;
    cells[`F${r}`] = `=C${r}-E${r}`;
    cells[`G${r}`] = `=G${r - 1}-F${r}-D${r}`;
    cells[`H${r}`] = `=H${r - 1}+E${r}`;
  }
  return cells;
}

const book = (): BookDef => ({
  sheets: [
    { name: 'Sales', cells: sales(), tables: [{ name: 'Orders', ref: `A1:F${LAST}` }] },
    { name: 'Loan', cells: loan() },
  ],
});

const EDITS: EditDef[] = [
  { sheet: 'Sales', cells: ['B3', 'B4', 'B8', 'B20', 'B150', `B${LAST}`], kind: 'number', min: 1, max: 99 },
  {
    sheet: 'Sales',
    cells: ['C3', 'C6', 'C19', 'C21', 'C121'],
    kind: 'number',
    min: 1,
    max: 9,
    integer: true,
  },
  // a blank row of a computed column typed into, and a price typed into a blank row
  { sheet: 'Sales', cells: ['D7', 'B19'], kind: 'number', min: 1, max: 500 },
  { sheet: 'Loan', cells: ['D2'], kind: 'number', min: 50000, max: 900000 },
  { sheet: 'Loan', cells: ['D3'], kind: 'number', min: 0.01, max: 0.2 },
  // the header cell a formula reads as a value
  { sheet: 'Loan', cells: ['D4'], kind: 'category', values: ['Monthly', 'Quarterly', 'Annual'] },
  { sheet: 'Loan', cells: ['D14', 'D20', 'D33', 'D200'], kind: 'number', min: 0, max: 3000 },
  // the typed opening value of the running total, and the blank first row's interest
  { sheet: 'Loan', cells: ['H10', 'E10'], kind: 'number', min: 0, max: 50 },
];
const EDIT_SETS = 6;

const title = SOFFICE
  ? 'columns with a blank or typed first row'
  : `columns with a blank or typed first row (skipped: ${SOFFICE_SKIP_REASON})`;

describe.skipIf(!SOFFICE)(title, () => {
  let base: Recalculated;
  let edits: Edits[];
  let edited: Recalculated[];

  beforeAll(() => {
    ({ base, edits, edited } = recalculateWithEdits(book, EDITS, 39, EDIT_SETS));
  }, 180_000);

  it('compiles them as one column each and agrees with LibreOffice after edits', async () => {
    const stored = (sheet: string, ref: string): Stored | undefined => {
      const { row, col } = splitRef(ref);
      return base.get(sheet)?.get(`${row}:${col}`);
    };
    const { spec, report, rejectedColumns } = await convertWorkbook(writeBook(book(), stored), {
      modelId: 'blank-first',
    });
    const why = rejectedColumns.map((r) => `${r.sheet}!${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    const salesCells = 3 * (SALES_ROWS - BLANK_ROWS.length) - 1 + 2;
    const loanCells = 1 + 1 + 1 + 5 * MONTHS;
    expect(report.formulaCells).toBe(salesCells + loanCells);
    expect(report.compiledCells).toBe(report.formulaCells);
    // verified after the converter's own edits; the frequency lookup may stay stored-only (its
    // header cell's seeded text edits, the texts of its row, may leave it unchanged in a round)
    const unverified = report.checks.filter((c) => !/^what-if|^constant/.test(c.checked));
    expect(unverified.map((c) => c.address).filter((a) => a !== 'F2')).toEqual([]);
    // one column each, not cells taken apart: the typed rows are inputs of their own
    const rows = spec.schema.properties as Record<string, { items?: { properties: object } }>;
    const fieldsOf = (t: string): string[] => Object.keys(rows[t]?.items?.properties ?? {});
    // the sales table, the schedule, and the one-row table under `Payment Frequency | Monthly`
    expect(Object.keys(rows).filter((k) => rows[k]!.items)).toHaveLength(3);
    const all = Object.keys(rows).flatMap(fieldsOf);
    for (const typed of ['total_typed', 'discounted_typed', 'previous_typed', 'interest_to_date_typed'])
      expect(all).toContain(typed);
    const { compared, mismatches } = await compareEdits(spec, book(), edits, edited);
    expect(compared).toBeGreaterThanOrEqual(report.formulaCells * EDIT_SETS);
    // every compiled cell agrees (a blank row of a computed column is no formula cell: compareEdits
    // leaves it out unless an edit types into it)
    expect(mismatches).toEqual([]);
    // the model holds a blank input's value there, 0, where the sheet shows nothing
    const expected = spec.tests[0]!.expect;
    for (const r of BLANK_ROWS) {
      expect(expected[`$.orders[${r - 2}].total`]).toBe(0);
      expect(expected[`$.orders[${r - 2}].discounted`]).toBe(0);
    }
    expect(expected['$.orders[1].previous']).toBe(0);
    // and the edit typed into the blank row D7 is read by the forecast below it
    const typedIn = edits.findIndex((e) => e.get('Sales')?.has('D7'));
    expect(typedIn).toBeGreaterThanOrEqual(0);
    expect(mismatches.some((m) => m.edit === typedIn && m.cell === 'Sales!D7')).toBe(false);
  });
});
