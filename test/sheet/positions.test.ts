// ROW, ROWS, COLUMN, COLUMNS (a reference's position or size, fixed when compiled) and NETWORKDAYS
// (weekdays between two 1900 serials). NETWORKDAYS, ROWS and COLUMNS are checked against
// @formulajs/formulajs; ROW and COLUMN of a reference are the sheet's own numbering, worked out by
// hand (formulajs has no references). Each stored value is data the converter's check must
// reproduce, so a wrong translation is a VALUE_MISMATCH rejection and fails the test.
import * as formulajs from '@formulajs/formulajs';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
const fj = formulajs as unknown as Record<string, (...args: unknown[]) => number>;

/** Side cells: holidays in H3:H5 (H5 blank) and I3:I6, a number in J3, one formula in L3. */
function single(f: string, v: number): Uint8Array {
  const rows = [
    row(2, text('G2', 'Holidays'), text('K2', 'Result')),
    row(3, num('H3', 45_002), num('I3', 45_002), num('J3', 1), formula('L3', f, v)),
    row(4, num('H4', 45_005), num('I4', 45_002)),
    row(5, num('I5', 45_003)),
    row(6, num('I6', 46_000)),
  ];
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

async function expectCompiles(f: string, v: number): Promise<void> {
  const c = await convertWorkbook(single(f, v), { modelId: 'pos' });
  const why = c.rejectedColumns.map((r) => `${r.reason}: ${r.message}`).join('; ');
  expect(why === '' ? 'compiled' : why, `${f} = ${v}`).toBe('compiled');
  expect(c.report.verifiedCells).toBe(1);
}

describe('one cell', () => {
  it.each([
    ['NETWORKDAYS(45000,45030)', () => fj.NETWORKDAYS!(45_000, 45_030)],
    ['NETWORKDAYS(45000,45030,$H$3:$H$5)', () => fj.NETWORKDAYS!(45_000, 45_030, [45_002, 45_005])],
    // a holiday twice, one on a weekend (45003, a Saturday) and one outside the span: each counted once
    ['NETWORKDAYS(45000,45030,$I$3:$I$6)', () => fj.NETWORKDAYS!(45_000, 45_030, [45_002])],
    ['NETWORKDAYS(45006,45006)', () => fj.NETWORKDAYS!(45_006, 45_006)],
    ['NETWORKDAYS(45003,45004)', () => fj.NETWORKDAYS!(45_003, 45_004)],
    ['NETWORKDAYS(45000.7,45001.2)', () => fj.NETWORKDAYS!(45_000.7, 45_001.2)],
    // formulajs gives -29 here; Excel gives minus the forward count, -23
    ['NETWORKDAYS(45030,45000)', () => -fj.NETWORKDAYS!(45_000, 45_030)],
    ['NETWORKDAYS(45030,45000,$H$3:$H$5)', () => -fj.NETWORKDAYS!(45_000, 45_030, [45_002, 45_005])],
    ['ROWS($H$3:$H$5)', () => fj.ROWS!([[1], [2], [3]])],
    ['COLUMNS($G$2:$J$3)', () => fj.COLUMNS!([[1, 2, 3, 4]])],
    ['ROWS(A:A)', () => 1_048_576],
    ['ROW()', () => 3],
    ['COLUMN()', () => 12],
    ['ROW($H$4)', () => 4],
    ['COLUMN(J3)', () => 10],
    ['ROW(B7:D9)*10+COLUMN(B7:D9)', () => 72],
  ])('%s', async (f, v) => expectCompiles(f, v()));

  it('a wrong stored value is rejected by the check', async () => {
    const c = await convertWorkbook(single('NETWORKDAYS(45000,45030)', 22), { modelId: 'pos' });
    expect(c.rejectedColumns).toMatchObject([{ reason: 'VALUE_MISMATCH', address: 'L3' }]);
  });

  it('FORMULATEXT of a fixed cell is the text the workbook holds, without the _xlfn. prefix of the file', async () => {
    const rows = [
      row(2, num('A2', 4), formula('B2', 'A2*2', 8), formula('C2', '_xlfn.CONCAT("a","b")', 'ab')),
      row(3, text('A3', 'Shown'), formula('B3', 'FORMULATEXT(B2)', '=A2*2')),
      row(4, text('A4', 'Concat'), formula('B4', '_xlfn.FORMULATEXT(C2)', '=CONCAT("a","b")')),
      row(5, text('A5', 'Wrong'), formula('B5', 'FORMULATEXT(B2)', '=A2*3')),
      row(6, text('A6', 'None'), formula('B6', 'FORMULATEXT(A2)', '#N/A')),
    ];
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]), { modelId: 'pos' });
    const reasons = Object.fromEntries(c.rejectedColumns.map((r) => [r.address, r.reason]));
    expect(reasons).toEqual({ B5: 'VALUE_MISMATCH', B6: 'UNSUPPORTED_REFERENCE' });
    // a constant text: checked against the stored value like any formula of constants
    expect(c.report).toMatchObject({ formulaCells: 6, compiledCells: 4, verifiedCells: 4 });
    const spec = JSON.stringify(c.spec);
    expect(spec).toContain(JSON.stringify('=A2*2'));
    expect(spec).toContain(JSON.stringify('=CONCAT("a","b")'));
  });

  it('ROWS of a value that is no reference is refused with its reason', async () => {
    const c = await convertWorkbook(single('ROWS(5)', 1), { modelId: 'pos' });
    expect(c.rejectedColumns).toMatchObject([
      { reason: 'UNSUPPORTED_REFERENCE', message: expect.stringContaining('ROWS reads a reference') },
    ]);
  });
});

const STARTS = [45_000, 45_003, 45_010, 45_030];
const ENDS = [45_006, 45_003, 45_040, 45_020];
const HOLIDAYS = [45_005, 45_035];

/**
 * A table under a title, header in row 3, rows 4..7: Start | End | Days (NETWORKDAYS with the
 * holidays in H4:H5) | Row (ROW()) | N (ROWS($A$4:A4), a counter) | Col (COLUMN()).
 */
function table(): Uint8Array {
  const rows = [
    row(1, text('A1', 'Leave plan')),
    row(
      3,
      ...['Start', 'End', 'Days', 'Row', 'N', 'Col'].map((h, k) => text(`${'ABCDEF'[k]}3`, h)),
      text('H3', 'Holidays'),
    ),
  ];
  STARTS.forEach((s, i) => {
    const r = i + 4;
    rows.push(
      row(
        r,
        num(`A${r}`, s),
        num(`B${r}`, ENDS[i]!),
        formula(`C${r}`, `NETWORKDAYS(A${r},B${r},$H$4:$H$5)`, days(s, ENDS[i]!)),
        formula(`D${r}`, 'ROW()', r),
        formula(`E${r}`, `ROWS($A$4:A${r})`, i + 1),
        formula(`F${r}`, 'COLUMN()', 6),
        ...(i < HOLIDAYS.length ? [num(`H${r}`, HOLIDAYS[i]!)] : []),
      ),
    );
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

/** Excel's NETWORKDAYS from formulajs (given a copy: it turns the holidays into dates in place). */
function days(s: number, e: number): number {
  return s <= e ? fj.NETWORKDAYS!(s, e, [...HOLIDAYS]) : -fj.NETWORKDAYS!(e, s, [...HOLIDAYS]);
}

describe('in a table column', () => {
  it('ROW() is $index plus the first row, ROWS($A$4:A4) counts rows so far', async () => {
    const c = await convertWorkbook(table(), { modelId: 'pos' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(16);
    const expr = (name: string) => c.spec.derivations.find((d) => d.path.endsWith(`[*].${name}`))!.expr;
    expect(expr('row')).toContain('$index + 4');
    expect(expr('col')).not.toContain('$index'); // a constant: the column never moves
  });

  it('the compiled model keeps positions and recounts days after a change', async () => {
    const c = await convertWorkbook(table(), { modelId: 'pos' });
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    const given = c.spec.tests[0]!.given as Record<string, unknown>;
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(given);
    const list = Object.keys(given)[0]!.replace(/^\$\.|\[.*$/g, '');
    await runtime.mutate({ [`$.${list}[1].end`]: 45_010 });
    const rows = (await runtime.getState())[list] as { days: number; row: number; n: number }[];
    expect(rows.map((r) => r.row)).toEqual([4, 5, 6, 7]);
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3, 4]);
    expect(rows[1]!.days).toBe(days(45_003, 45_010));
  });
});
