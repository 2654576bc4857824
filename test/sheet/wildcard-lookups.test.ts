// Wildcards in exact-match lookups (VLOOKUP/HLOOKUP FALSE, MATCH 0) and `[#This Row]` read from
// outside its table: the compiled library's helpers and the cell-grid evaluator against the
// answers LibreOffice 7.4 gave for the same lists (a probe run while writing this; Excel documents
// the same rules: `*` any run, `?` one character, `~` the next character as it is, text only).
// The LibreOffice differential of whole workbooks is wildcards-libreoffice.test.ts.
import { describe, expect, it } from 'vitest';
import { evalExpression } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { CellGrid } from '../../src/sheet/grid/evaluate.js';
import { callFunction } from '../../src/sheet/grid/functions.js';
import { LibraryBuilder } from '../../src/sheet/library.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { writeBook } from './oracle/book.js';

const LIST = ['Receipt Cheque # 0007981', 'x 7982', 'a~b', 'ab', 'q*z', 'qxz', 'A.C', 'abc', 'ab~'];

// key → the position LibreOffice's MATCH(key, list, 0) gave (0: #N/A)
const POSITIONS: [string, number][] = [
  ['*7981*', 1],
  ['x ?982', 2],
  ['a~b', 4], // `~b` is `b`: the cell holding `a~b` is not found by itself
  ['a~~b', 3],
  ['q~*z', 5],
  ['q*z', 5],
  ['*7982', 2],
  ['a?c', 7],
  ['A.C', 7], // a dot is no wildcard
  ['RECEIPT*', 1],
  ['*', 1],
  ['?', 0],
  ['ab~', 9], // a `~` at the end is itself
  ['abc', 8],
  ['ABC', 8],
  ['zzz*', 0],
];

/** The compiled library's MATCH 0 (xl_wmatch) or XLOOKUP's exact mode (xl_match) over `list`. */
async function compiledPosition(
  helper: 'xl_wmatch' | 'xl_match',
  key: unknown,
  list: unknown[],
): Promise<unknown> {
  const lib = new LibraryBuilder();
  lib.use(helper);
  const out = await evalExpression(
    `$${helper}(k, l)`,
    { k: key, l: list },
    {
      description: 'lookup',
      define: lib.define(new Set())!,
    },
  );
  if (!out.ok) throw new Error(out.message);
  return out.result ?? 0;
}

const gridPosition = (key: string, list: unknown[]): unknown => {
  const v = callFunction('MATCH', [key, list.map((x) => [x as string]), 0]);
  return v instanceof Error ? 0 : v;
};

describe('wildcards in exact lookups', () => {
  it.each(POSITIONS)('MATCH(%j, list, 0) is %i in the compiled model and the grid', async (key, at) => {
    expect(await compiledPosition('xl_wmatch', key, LIST)).toBe(at);
    expect(gridPosition(key, LIST)).toBe(at);
  });

  it('XLOOKUP and XMATCH in exact mode (0) read a key as it is: no wildcards', async () => {
    expect(await compiledPosition('xl_match', '*7981*', LIST)).toBe(0);
    expect(await compiledPosition('xl_match', 'a~b', LIST)).toBe(3);
    const v = callFunction('XMATCH', ['a?c', LIST.map((x) => [x])]);
    expect(v instanceof Error ? v.message : v).toBe('#N/A');
  });

  it('a pattern matches text only, never a number', async () => {
    const list = [7981, 'x 7981'];
    expect(await compiledPosition('xl_wmatch', '*7981*', list)).toBe(2);
    expect(gridPosition('*7981*', list)).toBe(2);
  });

  it('VLOOKUP and HLOOKUP FALSE read the key`s wildcards in the grid; approximate match does not', () => {
    const rows = LIST.map((d, i) => [d, i + 1]);
    const value = (v: unknown): unknown => (v instanceof Error ? v.message : v);
    expect(value(callFunction('VLOOKUP', ['*7981*', rows, 2, false]))).toBe(1);
    expect(value(callFunction('VLOOKUP', ['a?c', rows, 2, 0]))).toBe(7);
    expect(value(callFunction('VLOOKUP', ['zz*', rows, 2, false]))).toBe('#N/A');
    const across = [LIST, LIST.map((_, i) => i + 1)];
    expect(value(callFunction('HLOOKUP', ['q~*z', across, 2, false]))).toBe(5);
  });
});

describe('[#This Row] from outside its table', () => {
  /** Ledger!A1:C5 is the table Tbl; Report reads its rows by [#This Row] (values stored by hand). */
  function book(formulaRow: number, stored: number): Uint8Array {
    return writeBook(
      {
        sheets: [
          {
            name: 'Ledger',
            cells: {
              A1: 'Item',
              B1: 'Qty',
              C1: 'Price',
              A2: 'pen',
              B2: 3,
              C2: 2,
              A3: 'ink',
              B3: 1,
              C3: 12,
              A4: 'pad',
              B4: 4,
              C4: 3,
              A5: 'clip',
              B5: 10,
              C5: 1,
            },
            tables: [{ name: 'Tbl', ref: 'A1:C5' }],
          },
          {
            name: 'Report',
            cells: { A1: 'Amount', [`B${formulaRow}`]: '=Tbl[[#This Row],[Qty]]*Tbl[[#This Row],[Price]]' },
          },
        ],
      },
      (sheet, ref) => (sheet === 'Report' && ref === `B${formulaRow}` ? stored : undefined),
    );
  }

  it('reads the table`s cell in the formula`s own row', async () => {
    const { report, spec } = await convertWorkbook(book(4, 12), { modelId: 'this-row', filename: 'r.xlsx' });
    expect(report.rejected).toEqual([]);
    expect(report.verifiedCells).toBe(1);
    expect(JSON.stringify(spec.derivations)).toContain('[2].qty');
  });

  it('is #VALUE! in a row the table`s data does not cover: rejected, and #VALUE! in the grid', async () => {
    const bytes = book(7, 0);
    const { report } = await convertWorkbook(bytes, { modelId: 'this-row-out', filename: 'r.xlsx' });
    expect(report.rejected.map((r) => r.reason)).toEqual(['UNSUPPORTED_REFERENCE']);
    expect(report.rejected[0]!.examples[0]!.message).toContain('outside its data rows 2 to 5');
    const grid = new CellGrid(readWorkbookParts(bytes));
    grid.recalculate();
    const v = grid.value(1, 7, 2);
    expect(v instanceof Error ? v.message : v).toBe('#VALUE!');
  });
});
