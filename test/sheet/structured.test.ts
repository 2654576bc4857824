// Structured references (issue 22, point 2), in the forms the file stores, and the `_xlfn.` / `@`
// forms Excel writes.
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/calc/index.js';
import { convertWorkbook, parseFormula } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, formula, row } = cell;

describe('reading structured references', () => {
  it.each([
    ['Table1[Qty]', { table: 'Table1', area: 'data', from: 'Qty', to: 'Qty' }],
    ['Table1[[#This Row],[Unit price]]', { table: 'Table1', area: 'thisRow', from: 'Unit price' }],
    ['Table1[@Qty]', { table: 'Table1', area: 'thisRow', from: 'Qty' }],
    ['[@[Unit price]]', { area: 'thisRow', from: 'Unit price' }],
    ['Table1[#Totals]', { table: 'Table1', area: 'totals' }],
    ['Table1[[#Totals],[Qty]]', { table: 'Table1', area: 'totals', from: 'Qty' }],
    ['Table1[[Jan]:[Mar]]', { table: 'Table1', area: 'data', from: 'Jan', to: 'Mar' }],
    ["Table1[[#This Row],[Price '[EUR']]]", { area: 'thisRow', from: 'Price [EUR]' }],
    ['Table1[]', { table: 'Table1', area: 'data' }],
    ['@Table1[Qty]', { area: 'thisRow', from: 'Qty' }],
    ['_xlfn.SINGLE(Table1[Qty])', { area: 'thisRow', from: 'Qty' }],
  ])('%s', (src, expected) => {
    expect(parseFormula(src)).toMatchObject({ kind: 'structured', ...expected });
  });

  it('inside a formula, beside a link to another workbook', () => {
    expect(parseFormula('SUM(tb[Amount])*[1]Rates!$A$1')).toMatchObject({
      kind: 'binary',
      left: { kind: 'call', name: 'SUM', args: [{ kind: 'structured', table: 'tb', from: 'Amount' }] },
      right: { kind: 'ref', sheet: '[1]Rates' },
    });
  });

  it('refuses what is not one', () => {
    expect(() => parseFormula('Table1[[#Nope],[Qty]]')).toThrow(/not a structured reference specifier/);
    expect(() => parseFormula('Table1[[Qty]')).toThrow(/not closed/);
  });
});

describe('compiling structured references', () => {
  const TABLE =
    '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Orders" displayName="Orders" ref="A1:E4" totalsRowCount="1"><tableColumns count="5"><tableColumn id="1" name="Item"/><tableColumn id="2" name="Qty"/><tableColumn id="3" name="Unit price"/><tableColumn id="4" name="Amount"/><tableColumn id="5" name="Share"/></tableColumns></table>';
  const rows = (amount3: number): string =>
    [
      row(
        1,
        text('A1', 'Item'),
        text('B1', 'Qty'),
        text('C1', 'Unit price'),
        text('D1', 'Amount'),
        text('E1', 'Share'),
      ),
      row(
        2,
        text('A2', 'pen'),
        num('B2', 2),
        num('C2', 1.5),
        formula('D2', 'Orders[[#This Row],[Qty]]*Orders[[#This Row],[Unit price]]', 3),
        formula('E2', 'ROUND(Orders[[#This Row],[Amount]]/Orders[[#Totals],[Amount]],4)', 0.2),
      ),
      row(
        3,
        text('A3', 'ink'),
        num('B3', 3),
        num('C3', 4),
        formula('D3', 'Orders[[#This Row],[Qty]]*Orders[[#This Row],[Unit price]]', amount3),
        formula('E3', 'ROUND(Orders[[#This Row],[Amount]]/Orders[[#Totals],[Amount]],4)', 0.8),
      ),
      row(
        4,
        text('A4', 'Total'),
        formula('B4', 'SUM(Orders[Qty])', 5),
        formula('D4', 'SUM(Orders[Amount])', 15),
      ),
      row(
        6,
        text('A6', 'Items'),
        formula('B6', '_xlfn.COUNTA(Orders[Item])+COUNT(Orders[[Qty]:[Unit price]])', 6),
      ),
    ].join('');

  it('this row, whole columns and the totals row compile and reproduce the stored values', async () => {
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows(12), tables: [TABLE] }]), {
      modelId: 'orders',
    });
    expect(c.spec.derivations.map((d) => [d.path, d.expr])).toEqual([
      ['$.orders[*].amount', '($parent.qty * $parent.unit_price)'],
      ['$.orders[*].share', '$xl_round(($parent.amount / $$.amount_total), 4)'],
      ['$.qty_total', '$sum([orders.qty])'],
      ['$.amount_total', '$sum([orders.amount])'],
      [
        '$.items',
        '($count($filter($xl_arr($xl_arr(orders.item)), function($v) { $exists($v) and $v != "" and $type($v) != "null" })) + $xl_count([orders.qty, orders.unit_price]))',
      ],
    ]);
    expect((await runTests(c.spec)).failed).toBe(0);
    expect(c.rejectedColumns).toEqual([]);
  });

  it('a wrong stored value is still caught through a structured reference', async () => {
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows(13), tables: [TABLE] }]), {
      modelId: 'orders',
    });
    expect(c.rejectedColumns.find((r) => r.column === 'Amount')).toMatchObject({
      reason: 'VALUE_MISMATCH',
      cell: 'D3',
      expected: 13,
      actual: 12,
    });
  });
});

describe('table column names with odd spacing (issue 39)', () => {
  // Excel keeps a header's spaces in the column's name and writes a line break in it as _x000a_;
  // formulas name the column as it is, spaces and the line break included
  const TABLE =
    '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Tbl" displayName="Tbl" ref="A1:F3"><tableColumns count="6"><tableColumn id="1" name="Item"/><tableColumn id="2" name=" Qty"/><tableColumn id="3" name="Unit  price"/><tableColumn id="4" name="Amount "/><tableColumn id="5" name="Net_x000a_due"/><tableColumn id="6" name="Tax [%]"/></tableColumns></table>';
  const book = (net3: number): Uint8Array =>
    xlsxBook([
      {
        name: 'Sheet1',
        tables: [TABLE],
        rows: [
          row(
            1,
            text('A1', 'Item'),
            text('B1', ' Qty'),
            text('C1', 'Unit  price'),
            text('D1', 'Amount '),
            text('E1', 'Net\ndue'),
            text('F1', 'Tax [%]'),
          ),
          ...[
            [2, 'pen', 2, 1.5, 3, 2.7],
            [3, 'ink', 3, 4, 12, net3],
          ].map(([r, item, qty, price, amount, net]) =>
            row(
              r as number,
              text(`A${r}`, item as string),
              num(`B${r}`, qty as number),
              num(`C${r}`, price as number),
              formula(`D${r}`, 'Tbl[[#This Row],[ Qty]]*Tbl[[#This Row],[Unit  price]]', amount as number),
              formula(`E${r}`, "[@[Amount ]]*(1-Tbl[[#This Row],[Tax '[%']]])", net as number),
              num(`F${r}`, 0.1),
            ),
          ),
          row(5, text('A5', 'Total'), formula('B5', 'SUM(Tbl[Amount ])', 15)),
          row(6, text('A6', 'Net'), formula('B6', 'SUM(Tbl[Net\ndue])', 2.7 + net3)),
        ].join(''),
      },
    ]);

  it('leading, trailing and double spaces, a line break and escaped brackets name their columns', async () => {
    const c = await convertWorkbook(book(10.8), { modelId: 'odd' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(6);
    expect(c.spec.derivations.map((d) => [d.path, d.expr])).toEqual([
      ['$.tbl[*].amount', '($parent.qty * $parent.unit_price)'],
      ['$.tbl[*].net_due', '($parent.amount * (1 - $parent.tax))'],
      ['$.total', '$sum([tbl.amount])'],
      ['$.net', '$sum([tbl.net_due])'],
    ]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('a wrong stored value behind such a name is still caught', async () => {
    const c = await convertWorkbook(book(11), { modelId: 'odd' });
    // the total's own formula gives its stored value from the stored (wrong) row, so the total is
    // refused for the row it reads, not for a mismatch of its own (whatif.ts carriedDrift)
    expect(c.rejectedColumns.map((r) => [r.column, r.reason])).toEqual([
      ['Net\ndue', 'VALUE_MISMATCH'],
      ['Net', 'DEPENDS_ON_REJECTED'],
    ]);
    expect(c.report.verifiedCells).toBe(3);
  });

  it('parses the names with their spaces', () => {
    expect(parseFormula('Tbl[Amount ]')).toMatchObject({ from: 'Amount ', to: 'Amount ' });
    expect(parseFormula('Tbl[[#This Row],[ Qty]]')).toMatchObject({ area: 'thisRow', from: ' Qty' });
    expect(parseFormula('Tbl[@[Net\ndue]]')).toMatchObject({ area: 'thisRow', from: 'Net\ndue' });
  });
});
