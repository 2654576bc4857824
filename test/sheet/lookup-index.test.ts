// VLOOKUP's column index (HLOOKUP's row index) must be a whole number within the table, on the
// block path and on the whole-column path alike; outside it a spreadsheet gives #REF!, and the
// converter refuses the cell as UNSUPPORTED_SYNTAX rather than compile a read past the table.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, formula, row } = cell;

async function reasons(lookup: string): Promise<string[]> {
  const prices = [
    row(1, text('A1', 'Code'), text('B1', 'Price')),
    row(2, text('A2', 'P1'), num('B2', 1.5)),
    row(3, text('A3', 'P2'), num('B3', 4)),
  ].join('');
  const orders = [
    row(1, text('A1', 'Code'), text('B1', 'Price')),
    row(2, text('A2', 'P2'), formula('B2', lookup.replace('#', '2'), 4)),
    row(3, text('A3', 'P1'), formula('B3', lookup.replace('#', '3'), 1.5)),
  ].join('');
  const c = await convertWorkbook(
    xlsxBook([
      { name: 'Orders', rows: orders },
      { name: 'Prices', rows: prices },
    ]),
    { modelId: 'lookup-index' },
  );
  return c.report.rejected.map((r) => r.reason);
}

describe("a lookup's column index lies within its table", () => {
  it('compiles an index within the table, on both paths', async () => {
    expect(await reasons('VLOOKUP(A#,Prices!$A$2:$B$3,2,FALSE)')).toEqual([]);
    expect(await reasons('VLOOKUP(A#,Prices!A:B,2,FALSE)')).toEqual([]);
  });

  it.each([
    ['a block', 'VLOOKUP(A#,Prices!$A$2:$B$3,3,FALSE)'],
    ['whole columns', 'VLOOKUP(A#,Prices!A:B,3,FALSE)'],
    ['a fraction', 'VLOOKUP(A#,Prices!A:B,1.5,FALSE)'],
    ['zero', 'VLOOKUP(A#,Prices!$A$2:$B$3,0,FALSE)'],
  ])('refuses an index outside it: %s', async (_what, lookup) => {
    expect(await reasons(lookup)).toEqual(['UNSUPPORTED_SYNTAX']);
  });
});
