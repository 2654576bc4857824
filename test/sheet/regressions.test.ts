// Bugs found on real workbooks (issue 22), each pinned by a hand-written workbook. The stored values
// here are written by hand, as a spreadsheet would store them; the converter must agree with them.
import { describe, expect, it } from 'vitest';
import { runTests, type JsonObject } from '../../src/calc/index.js';
import { convertWorkbook, type SheetConversion } from '../../src/sheet/index.js';
import { xlsx } from './helpers.js';

const text = (ref: string, s: string): string => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
const num = (ref: string, n: number | string): string => `<c r="${ref}"><v>${n}</v></c>`;
const formula = (ref: string, f: string, v: number | string): string =>
  `<c r="${ref}"><f>${f}</f><v>${v}</v></c>`;
const row = (r: number, ...cells: string[]): string => `<row r="${r}">${cells.join('')}</row>`;
const convert = (rows: string): Promise<SheetConversion> =>
  convertWorkbook(xlsx(rows), { modelId: 'regression' });
const rootProps = (c: SheetConversion): JsonObject => c.spec.schema.properties as JsonObject;

describe('formulas of constants', () => {
  const book = [
    row(1, text('A1', 'Qty')),
    row(2, num('A2', 3)),
    row(4, text('D4', 'Total'), formula('E4', '100+20+5', 125)),
    row(5, text('D5', 'Ratio'), formula('E5', '20/15', '1.3333333333333333')),
    row(6, text('D6', 'Doubled'), formula('E6', 'E4*2', 250)),
  ].join('');

  it('compile, are checked against the stored value, and feed the formulas that read them', async () => {
    const c = await convert(book);
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report).toMatchObject({ formulaCells: 3, compiledCells: 3, verifiedCells: 3 });
    // a formula that reads nothing would never run in a test: it is an input holding its value
    expect(rootProps(c).total).toMatchObject({ title: 'Total', type: 'number' });
    expect((rootProps(c).total as JsonObject).readOnly).toBeUndefined();
    expect(c.spec.tests[0]!.given).toMatchObject({ '$.total': 125, '$.ratio': 1.3333333333333333 });
    expect(c.spec.derivations.map((d) => [d.path, d.expr])).toEqual([['$.doubled', '(total * 2)']]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('whose stored value differs from their own are rejected, never kept', async () => {
    const c = await convert(book.replace('<v>125</v>', '<v>126</v>'));
    expect(c.rejectedColumns).toMatchObject([
      { column: 'Total', reason: 'VALUE_MISMATCH', expected: 126, actual: 125 },
      { column: 'Doubled', reason: 'DEPENDS_ON_REJECTED' },
    ]);
  });
});

describe('a literal formula outside the table', () => {
  it('(=125) is a formula cell of its own, not dropped; LibreOffice TRUE() stays a constant', async () => {
    const c = await convert(
      [
        row(1, text('A1', 'Qty'), text('B1', 'Flag')),
        row(2, num('A2', 3), '<c r="B2" t="b"><f>TRUE()</f><v>1</v></c>'),
        row(4, text('D4', 'Fixed fee'), formula('E4', '125', 125)),
        row(5, text('D5', 'On'), '<c r="E5" t="b"><f>TRUE()</f><v>1</v></c>'),
      ].join(''),
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(rootProps(c).fixed_fee).toMatchObject({ type: 'number' });
    expect(rootProps(c).on).toBeUndefined();
    expect(c.spec.tests[0]!.given).toMatchObject({ '$.fixed_fee': 125, '$.rows': [{ qty: 3, flag: true }] });
    expect(c.report).toMatchObject({ formulaCells: 1, compiledCells: 1 });
  });
});

describe('stored values with 17 significant digits', () => {
  const book = (copy: string, doubled: string): string =>
    [
      row(1, text('A1', 'Amount'), text('B1', 'Copy'), text('C1', 'Twice')),
      row(2, num('A2', '0.30000000000000004'), formula('B2', 'A2', copy), formula('C2', 'A2*2', doubled)),
      row(
        3,
        num('A3', '1.0000000000000002'),
        formula('B3', 'A3', '1.0000000000000002'),
        formula('C3', 'A3*2', 2),
      ),
    ].join('');

  it('compare with a plain copy exactly: the file holds the double, and so does the spec', async () => {
    const c = await convert(book('0.30000000000000004', '0.6000000000000001'));
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.tests[0]!.expect).toMatchObject({
      '$.rows[0].copy': 0.30000000000000004,
      '$.rows[1].copy': 1.0000000000000002,
    });
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('still differ where more than the last bits differ', async () => {
    const c = await convert(book('0.30000000000001', '0.6000000000000001'));
    expect(c.rejectedColumns).toMatchObject([
      {
        column: 'Copy',
        reason: 'VALUE_MISMATCH',
        cell: 'B2',
        expected: 0.30000000000001,
        actual: 0.30000000000000004,
      },
    ]);
  });
});

describe('rejections are grouped', () => {
  it('one entry per reason and column for summary cells, never one per cell', async () => {
    const rows = [row(1, text('A1', 'Qty')), row(2, num('A2', 1)), row(3, num('A3', 2))];
    // 40 cells below the table, each reading one table cell: the same rejection 40 times
    for (let r = 10; r < 50; r++) rows.push(row(r, formula(`F${r}`, `GAMMALN(F${r - 1})`, 1)));
    rows.push(row(60, formula('G60', 'GAMMALN(4)', 2)));
    const c = await convert(rows.join(''));
    expect(c.rejectedColumns).toHaveLength(2);
    expect(c.rejectedColumns[0]).toMatchObject({
      address: 'F10:F49',
      reason: 'UNSUPPORTED_FUNCTION',
      cells: 40,
      formula: '=GAMMALN(F9)',
    });
    expect(c.rejectedColumns[0]!.column).toBe('F10 and 39 more cells of column F');
    expect(c.rejectedColumns[1]).toMatchObject({ address: 'G60', reason: 'UNSUPPORTED_FUNCTION' });
    expect(c.rejectedColumns[1]!.cells).toBeUndefined();
    expect(c.report.rejected).toEqual([
      {
        reason: 'UNSUPPORTED_FUNCTION',
        count: 41,
        examples: [
          expect.objectContaining({ sheet: 'Sheet1', address: 'F10:F49', formula: '=GAMMALN(F9)' }),
          expect.objectContaining({ sheet: 'Sheet1', address: 'G60', formula: '=GAMMALN(4)' }),
        ],
      },
    ]);
    expect(c.report).toMatchObject({ formulaCells: 41, compiledCells: 0, verifiedCells: 0 });
  });
});
