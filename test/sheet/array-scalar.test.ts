// Legacy array (Ctrl+Shift+Enter) formulas: one that reads no range computes what the plain formula
// does, so it compiles (and is checked against its stored values like any other); one that reads a
// range, an array constant or a table column stays rejected as ARRAY_FORMULA.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row } = cell;
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const arrayCell = (ref: string, f: string, v: string | number): string =>
  typeof v === 'string'
    ? `<c r="${ref}" t="str"><f t="array" ref="${ref}">${esc(f)}</f><v>${esc(v)}</v></c>`
    : `<c r="${ref}"><f t="array" ref="${ref}">${esc(f)}</f><v>${v}</v></c>`;

function book(formula: (r: number) => string, values: (string | number)[]): Uint8Array {
  const rows = [row(1, text('A1', 'amount'), text('B1', 'kind'))];
  [3000, 12, 7].forEach((a, i) => {
    const r = i + 2;
    rows.push(row(r, num(`A${r}`, a), arrayCell(`B${r}`, formula(r), values[i]!)));
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

describe('legacy array formulas', () => {
  it('compiles one that reads only its own row, and checks its stored values', async () => {
    const c = await convertWorkbook(
      book((r) => `IF(A${r}=3000,"Deposit",IF(A${r}>10,"big","small"))`, ['Deposit', 'big', 'small']),
      { modelId: 'arr' },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(3);
  });

  it('still checks them: a stored value the formula does not give is VALUE_MISMATCH', async () => {
    const c = await convertWorkbook(
      book((r) => `IF(A${r}=3000,"Deposit",IF(A${r}>10,"big","small"))`, ['Deposit', 'big', 'big']),
      { modelId: 'arr' },
    );
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual(['VALUE_MISMATCH']);
  });

  it.each([
    // (a SUM over one compiles element by element: array-ranges.test.ts)
    ['a range', (r: number) => `MAX(IF($A$2:$A$4>A${r},1,0))`, 'ARRAY_FORMULA'],
    // the parser refuses array constants before the array check is reached
    ['an array constant', (r: number) => `SUM(A${r}*{1,2})`, 'UNSUPPORTED_SYNTAX'],
  ])('rejects one that reads %s', async (_what, f, reason) => {
    const c = await convertWorkbook(book(f, [0, 1, 2]), { modelId: 'arr' });
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual([reason]);
  });

  it('a colon inside a text literal is not a range', async () => {
    const c = await convertWorkbook(
      book((r) => `"at: "&A${r}`, ['at: 3000', 'at: 12', 'at: 7']),
      { modelId: 'arr' },
    );
    expect(c.rejectedColumns).toEqual([]);
  });
});

// Excel 365 marks a formula holding a structured reference as a dynamic array (`cm=`) even when
// the reference is one cell of the row (`Table1[[#This Row],[amount]]`): a held-out workbook had
// 609 such cells refused as spills. The stored values (amount × 2, the kind's rate looked up) are
// worked out by hand; the what-if rounds check the model against the grid evaluator after edits.
describe('dynamic array formulas of one cell of their row', () => {
  const dyn = (ref: string, f: string, v: number): string =>
    `<c r="${ref}" cm="1"><f t="array" ref="${ref}">${esc(f)}</f><v>${v}</v></c>`;
  const tableXml =
    '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Table1" displayName="Table1" ref="A1:D4"><tableColumns count="4"><tableColumn id="1" name="amount"/><tableColumn id="2" name="kind"/><tableColumn id="3" name="double"/><tableColumn id="4" name="rate"/></tableColumns></table>';
  const rates: [string, number][] = [
    ['a', 0.5],
    ['b', 0.25],
    ['c', 2],
  ];
  function book(f: (r: number) => [string, string]): Uint8Array {
    const rows = [
      row(
        1,
        text('A1', 'amount'),
        text('B1', 'kind'),
        text('C1', 'double'),
        text('D1', 'rate'),
        text('F1', 'key'),
        text('G1', 'value'),
      ),
    ];
    (
      [
        [3000, 'b'],
        [12, 'a'],
        [7, 'c'],
      ] as [number, string][]
    ).forEach(([a, k], i) => {
      const r = i + 2;
      const [double, rate] = f(r);
      rows.push(
        row(
          r,
          num(`A${r}`, a),
          text(`B${r}`, k),
          dyn(`C${r}`, double, a * 2),
          dyn(`D${r}`, rate, rates.find(([key]) => key === k)![1]),
          text(`F${r}`, rates[i]![0]),
          num(`G${r}`, rates[i]![1]),
        ),
      );
    });
    return xlsxBook([{ name: 'Sheet1', rows: rows.join(''), tables: [tableXml] }]);
  }

  it('compiles them as the plain formula and checks them after edits', async () => {
    const c = await convertWorkbook(
      book(() => [
        'Table1[[#This Row],[amount]]*2',
        'VLOOKUP(Table1[[#This Row],[kind]:[kind]],$F$2:$G$4,2,FALSE)',
      ]),
      { modelId: 'dyn' },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(6);
    expect(c.report.checks.map((k) => k.checked).every((k) => /^what-if \d+ edits$/.test(k))).toBe(true);
  });
});
