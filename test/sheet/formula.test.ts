// The formula reader and the compiler's smaller rules, on hand-made inputs.
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/calc/index.js';
import { convertWorkbook, parseFormula, printFormula } from '../../src/sheet/index.js';
import { shiftFormula } from '../../src/sheet/formula.js';
import { xlsx } from './helpers.js';

const str = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;
const num = (ref: string, n: number) => `<c r="${ref}"><v>${n}</v></c>`;

describe('formula reader', () => {
  it('reads precedence as a spreadsheet does', () => {
    expect(printFormula(parseFormula('1+2*3^2&"x"'))).toBe('1+2*3^2&"x"');
    expect(printFormula(parseFormula('(1+2)*3'))).toBe('(1+2)*3');
    expect(printFormula(parseFormula('-A1^2'))).toBe('-A1^2');
    expect(parseFormula('-A1^2')).toMatchObject({ kind: 'binary', op: '^', left: { kind: 'unary' } });
    expect(parseFormula('A1>=B$2')).toMatchObject({ kind: 'binary', op: '>=' });
    expect(parseFormula('50%')).toEqual({ kind: 'percent', operand: { kind: 'number', value: 50 } });
  });

  it('reads references, ranges, sheets, strings, booleans and errors', () => {
    expect(parseFormula("'My Sheet'!$B$2")).toEqual({
      kind: 'ref',
      sheet: 'My Sheet',
      ref: { col: 2, row: 2, colAbs: true, rowAbs: true },
    });
    expect(parseFormula('SUM($B:$B)')).toMatchObject({
      kind: 'call',
      args: [{ kind: 'range', from: { row: 0 } }],
    });
    expect(parseFormula('"say ""hi"""')).toEqual({ kind: 'string', value: 'say "hi"' });
    expect(parseFormula('TRUE()')).toEqual({ kind: 'boolean', value: true });
    expect(parseFormula('false')).toEqual({ kind: 'boolean', value: false });
    expect(parseFormula('_xlfn.CONCAT(A1)')).toMatchObject({ kind: 'call', name: 'CONCAT' });
    // Excel 365's dynamic-array functions carry two prefixes: the name is read without both
    expect(parseFormula('_xlfn._xlws.SORT(A1:A3)')).toMatchObject({ kind: 'call', name: 'SORT' });
    // LET's names, and a LAMBDA called where it is written
    expect(parseFormula('_xlfn.LET(_xlpm.x,1,_xlpm.x+1)')).toMatchObject({
      name: 'LET',
      args: [{ kind: 'name', name: '_xlpm.x' }, { kind: 'number' }, { kind: 'binary' }],
    });
    const called = parseFormula('_xlfn.LAMBDA(_xlpm.x,_xlpm.x*2)(B2)');
    expect(called).toMatchObject({ kind: 'call', args: [{ name: 'LAMBDA' }, { kind: 'ref' }] });
    expect(printFormula(called)).toBe('LAMBDA(_xlpm.x,_xlpm.x*2)(B2)');
    expect(parseFormula('#DIV/0!')).toEqual({ kind: 'error', value: '#DIV/0!' });
    expect(() => parseFormula('SUM({1,2})')).toThrow(/array constants/);
    expect(() => parseFormula('1+')).toThrow(/ends too early/);
  });

  it('moves the relative references of a shared formula', () => {
    const f = shiftFormula(parseFormula('A2*$B$1+C$1+$D2'), 3, 1);
    expect(printFormula(f)).toBe('B5*$B$1+D$1+$D5');
  });
});

describe('compiler rules on hand-made workbooks (stored values written by hand, not an oracle)', () => {
  it('follows shared (Excel-style) formulas', async () => {
    const sheet = xlsx(
      `<row r="1">${str('A1', 'a')}${str('B1', 'b')}</row>` +
        `<row r="2">${num('A2', 1)}<c r="B2"><f t="shared" ref="B2:B4" si="0">A2*2</f><v>2</v></c></row>` +
        `<row r="3">${num('A3', 2)}<c r="B3"><f t="shared" si="0"/><v>4</v></c></row>` +
        `<row r="4">${num('A4', 3)}<c r="B4"><f t="shared" si="0"/><v>6</v></c></row>`,
    );
    const c = await convertWorkbook(sheet, { modelId: 'shared' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.derivations[0]).toMatchObject({ path: '$.rows[*].b', expr: '($parent.a * 2)' });
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('ROUND rounds half away from zero, also where binary floating point would not', async () => {
    const cases: [number, number, number][] = [
      [0.5, 0, 1],
      [-0.5, 0, -1],
      [2.5, 0, 3],
      [-2.5, 0, -3],
      [1.005, 2, 1.01],
      [2.675, 2, 2.68],
      [-1.45, 1, -1.5],
      [1250, -2, 1300],
      [1234.5678, 2, 1234.57],
    ];
    const rows = cases
      .map(
        ([x, d, want], i) =>
          `<row r="${i + 2}">${num(`A${i + 2}`, x)}${num(`B${i + 2}`, d)}<c r="C${i + 2}"><f>ROUND(A${i + 2},B${i + 2})</f><v>${want}</v></c></row>`,
      )
      .join('');
    const c = await convertWorkbook(
      xlsx(`<row r="1">${str('A1', 'x')}${str('B1', 'd')}${str('C1', 'r')}</row>${rows}`),
      {
        modelId: 'round',
      },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect((await runTests(c.spec)).failed).toBe(0);
  });

  it('names header fields safely and keeps the header as title', async () => {
    const c = await convertWorkbook(
      xlsx(
        `<row r="1">${str('A1', 'Unit Price (€)')}${str('B1', '2024')}${str('C1', 'and')}${str('D1', 'Unit price')}</row>` +
          `<row r="2">${num('A2', 1)}${num('B2', 2)}${num('C2', 3)}${num('D2', 4)}</row>`,
      ),
      { modelId: 'names' },
    );
    expect(c.spec.tests[0]!.given['$.rows']).toEqual([
      { unit_price: 1, c_2024: 2, and_: 3, unit_price_2: 4 },
    ]);
  });

  it('reads blank input cells as 0 or "" by column type', async () => {
    const c = await convertWorkbook(
      xlsx(
        `<row r="1">${str('A1', 'name')}${str('B1', 'qty')}</row>` +
          `<row r="2">${str('A2', 'x')}${num('B2', 1)}</row>` +
          `<row r="3"><c r="A3"/>${num('B3', 2)}</row>` +
          `<row r="4">${str('A4', 'z')}</row>`,
      ),
      { modelId: 'blanks' },
    );
    expect(c.spec.tests[0]!.given['$.rows']).toEqual([
      { name: 'x', qty: 1 },
      { name: '', qty: 2 },
      { name: 'z', qty: 0 },
    ]);
  });

  it('a table ends at the first blank row; a formula cell with no stored result is ERROR_VALUE', async () => {
    const c = await convertWorkbook(
      xlsx(
        `<row r="1">${str('A1', 'a')}${str('B1', 'b')}</row>` +
          `<row r="2">${num('A2', 1)}<c r="B2"><f>A2+1</f></c></row>`,
      ),
      { modelId: 'nostore' },
    );
    expect(c.rejectedColumns[0]).toMatchObject({ column: 'b', reason: 'ERROR_VALUE' });
    expect(c.rejectedColumns[0]!.message).toContain('no stored result');
  });

  it('a side table too large for the library rejects its VLOOKUP column only', async () => {
    const side: string[] = [];
    for (let r = 1; r <= 2000; r++) side.push(`${str(`E${r}`, `key${r}`)}${num(`F${r}`, r)}`);
    const rows = [`<row r="1">${str('A1', 'k')}${str('B1', 'v')}${str('C1', 'w')}${side[0]}</row>`];
    for (let r = 2; r <= 2000; r++) {
      const table =
        r <= 3
          ? `${str(`A${r}`, `key${r}`)}<c r="B${r}"><f>VLOOKUP(A${r},$E$1:$F$2000,2,FALSE)</f><v>${r}</v></c><c r="C${r}"><f>LEN(A${r})</f><v>4</v></c>`
          : '';
      rows.push(`<row r="${r}">${table}${side[r - 1]}</row>`);
    }
    const c = await convertWorkbook(xlsx(rows.join('')), { modelId: 'big' });
    expect(c.rejectedColumns).toEqual([
      expect.objectContaining({ column: 'v', reason: 'UNSUPPORTED_REFERENCE' }),
    ]);
    expect(c.rejectedColumns[0]!.message).toContain('cannot be embedded in the library');
    expect(c.compiledFields).toBe(1);
  });
});
