// Whole workbooks (issue 22, point 1): every sheet, tables wherever they start, Excel Tables from
// their table parts, defined names, side cells as inputs, cross-sheet references. The workbooks are
// written by hand (stored values as a spreadsheet stores them); every spec must pass its own test.
import { describe, expect, it } from 'vitest';
import { runTests, type JsonObject } from '../../src/calc/index.js';
import { convertWorkbook, SheetError, type SheetConversion } from '../../src/sheet/index.js';
import { cell, xlsxBook, type BookSheet } from './helpers.js';

const { text, num, formula, row } = cell;
const convert = (sheets: BookSheet[], names = ''): Promise<SheetConversion> =>
  convertWorkbook(xlsxBook(sheets, names), { modelId: 'book' });
const props = (c: SheetConversion): JsonObject => c.spec.schema.properties as JsonObject;
const derivations = (c: SheetConversion): string[][] => c.spec.derivations.map((d) => [d.path, d.expr]);

const cover: BookSheet = {
  name: 'Cover',
  rows: row(1, text('A1', 'Quarterly sales')) + row(3, text('A3', 'Prepared by the finance team')),
};

describe('tables wherever they are', () => {
  it('a cover sheet first and a table at B3 on the next sheet', async () => {
    const data: BookSheet = {
      name: 'Data',
      rows: [
        row(3, text('B3', 'Item'), text('C3', 'Qty'), text('D3', 'Price'), text('E3', 'Amount')),
        row(4, text('B4', 'pen'), num('C4', 2), num('D4', 1.5), formula('E4', 'C4*D4', 3)),
        row(5, text('B5', 'ink'), num('C5', 3), num('D5', 4), formula('E5', 'C5*D5', 12)),
        row(7, text('D7', 'Total'), formula('E7', 'SUM(E4:E5)', 15)),
      ].join(''),
    };
    const c = await convert([cover, data]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([
      ['$.data[*].amount', '($parent.qty * $parent.price)'],
      ['$.total', '$sum([data.amount])'],
    ]);
    expect(c.spec.tests[0]!.given['$.data']).toEqual([
      { item: 'pen', qty: 2, price: 1.5 },
      { item: 'ink', qty: 3, price: 4 },
    ]);
    expect((await runTests(c.spec)).failed).toBe(0);
    expect(c.report).toMatchObject({
      formulaCells: 3,
      compiledCells: 3,
      verifiedCells: 3,
      sheets: [
        { name: 'Cover', tables: [], formulaCells: 0, compiledCells: 0 },
        { name: 'Data', tables: ['data'], formulaCells: 3, compiledCells: 3 },
      ],
      rejected: [],
    });
  });

  it('a totals row under a table is a formula cell of its own, not a row', async () => {
    const c = await convert([
      {
        name: 'Budget',
        rows: [
          row(2, text('A2', 'Line'), text('B2', 'Cost')),
          row(3, text('A3', 'rent'), num('B3', 900)),
          row(4, text('A4', 'food'), num('B4', 300)),
          row(5, text('A5', 'Total'), formula('B5', 'SUM(B3:B4)', 1200)),
        ].join(''),
      },
    ]);
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([['$.cost_total', '$sum([budget.cost])']]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('a workbook with neither a table nor a formula is NO_TABLE', async () => {
    const err = await convert([cover]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SheetError);
    expect((err as SheetError).code).toBe('NO_TABLE');
  });
});

describe('Excel Tables, side cells, defined names and other sheets', () => {
  const sales: BookSheet = {
    name: 'Sales',
    rows: [
      row(2, text('B2', 'Region'), text('C2', 'Units'), text('D2', 'Net')),
      row(3, text('B3', 'north'), num('C3', 10), formula('D3', 'C3*Inputs!$B$3*(1-VAT)', 160)),
      row(4, text('B4', 'south'), num('C4', 5), formula('D4', 'C4*Inputs!$B$3*(1-VAT)', 80)),
      row(5, text('B5', 'Total'), formula('C5', 'SUM(C3:C4)', 15), formula('D5', 'SUM(D3:D4)', 240)),
    ].join(''),
    tables: [
      '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Table1" displayName="tbSales" ref="B2:D5" totalsRowCount="1"><tableColumns count="3"><tableColumn id="1" name="Region"/><tableColumn id="2" name="Units sold"/><tableColumn id="3" name="Net"/></tableColumns></table>',
    ],
  };
  const inputs: BookSheet = {
    name: 'Inputs',
    rows: [row(2, text('A2', 'VAT'), num('B2', 0.2)), row(3, text('A3', 'Unit price'), num('B3', 20))].join(
      '',
    ),
  };
  const summary: BookSheet = {
    name: 'Summary',
    rows: row(1, text('A1', 'Average net'), formula('B1', 'AVERAGE(Sales!$D$3:$D$4)*Inputs!B2', 24)),
  };

  it('compile into $$-rooted expressions over tables and top-level inputs', async () => {
    const c = await convert(
      [sales, inputs, summary],
      '<definedName name="VAT">Inputs!$B$2</definedName><definedName name="_xlnm.Print_Area" localSheetId="0">Sales!$A$1:$D$5</definedName>',
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(derivations(c)).toEqual([
      ['$.tbsales[*].net', '(($parent.units_sold * $$.unit_price) * (1 - $$.vat))'],
      ['$.units_sold_total', '$sum([tbsales.units_sold])'],
      ['$.net_total', '$sum([tbsales.net])'],
      ['$.average_net', '($average([tbsales.net]) * vat)'],
    ]);
    // the Excel Table's own column names; the side cells are inputs named after their labels
    expect(
      Object.keys(((props(c).tbsales as JsonObject).items as JsonObject).properties as JsonObject),
    ).toEqual(['region', 'units_sold', 'net']);
    expect(props(c).vat).toMatchObject({ title: 'VAT', type: 'number' });
    expect((props(c).vat as JsonObject).readOnly).toBeUndefined();
    expect(c.spec.tests[0]!.given).toMatchObject({ '$.vat': 0.2, '$.unit_price': 20 });
    expect((await runTests(c.spec)).failed).toBe(0);
    expect(c.report.sheets.map((s) => [s.name, s.tables, s.formulaCells])).toEqual([
      ['Sales', ['tbsales'], 4],
      ['Inputs', [], 0],
      ['Summary', [], 1],
    ]);
  });

  it('a stored value the compiled formula does not give is a rejection, never a wrong model', async () => {
    const c = await convert(
      [{ ...sales, rows: sales.rows.replace('<v>160</v>', '<v>161</v>') }, inputs, summary],
      '<definedName name="VAT">Inputs!$B$2</definedName>',
    );
    expect(c.rejectedColumns.map((r) => [r.column, r.reason])).toEqual([
      ['Net', 'VALUE_MISMATCH'],
      ['Net total', 'DEPENDS_ON_REJECTED'],
      ['Average net', 'DEPENDS_ON_REJECTED'],
    ]);
    // the units total does not read Net: it stays, and the spec still passes its own test
    expect(derivations(c)).toEqual([['$.units_sold_total', '$sum([tbsales.units_sold])']]);
    expect((await runTests(c.spec)).failed).toBe(0);
    expect(c.rejectedColumns[0]).toMatchObject({ sheet: 'Sales', cell: 'D3', expected: 161, actual: 160 });
  });
});
