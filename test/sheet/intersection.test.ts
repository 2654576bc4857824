// Implicit intersection: a one-column range (or a name for one) where one value is expected reads
// the range's cell in the formula's own row, as a spreadsheet does, when the range spans every row
// of the formula's table; a range that misses a row (#VALUE! there in a spreadsheet) stays rejected.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

function book(f: (r: number) => string, stored: (string | number)[], names = ''): Uint8Array {
  const rows = [row(1, text('A1', 'qty'), text('B1', 'size'))];
  [3, 1, 0].forEach((q, i) => {
    const r = i + 2;
    rows.push(row(r, num(`A${r}`, q), formula(`B${r}`, f(r), stored[i]!)));
  });
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }], names);
}

const NAME = '<definedName name="Qtys">Sheet1!$A$2:$A$4</definedName>';

describe('implicit intersection', () => {
  it('a name for a column range reads the own row', async () => {
    const c = await convertWorkbook(
      book(() => 'IF(Qtys>1,"many","few")', ['many', 'few', 'few'], NAME),
      {
        modelId: 'ii',
      },
    );
    expect(c.rejectedColumns).toEqual([]);
    expect(c.spec.derivations.find((d) => d.path === '$.rows[*].size')?.expr).toContain('$parent.qty');
  });

  it('a range written out reads the own row too, and the stored values still decide', async () => {
    const ok = await convertWorkbook(
      book(() => '$A$1:$A$9*2', [6, 2, 0]),
      { modelId: 'ii' },
    );
    expect(ok.rejectedColumns).toEqual([]);
    const wrong = await convertWorkbook(
      book(() => '$A$1:$A$9*2', [6, 2, 1]),
      { modelId: 'ii' },
    );
    expect(wrong.rejectedColumns.map((r) => r.reason)).toEqual(['VALUE_MISMATCH']);
  });

  it.each([
    ['misses a row of the table', '$A$2:$A$3*2'],
    ['spans two columns', '$A$2:$B$4*2'],
  ])('a range that %s stays rejected', async (_what, f) => {
    const c = await convertWorkbook(
      book(() => f, [6, 2, 0]),
      { modelId: 'ii' },
    );
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual(['UNSUPPORTED_REFERENCE']);
    expect(c.rejectedColumns[0]!.message).toContain('is used as a value');
  });
});

describe('SINGLE around an expression', () => {
  it('is the expression, its ranges read at the own row', async () => {
    const c = await convertWorkbook(
      book(() => '_xlfn.SINGLE(IF(Qtys="","",Qtys*2))', [6, 2, 0], NAME),
      { modelId: 'ii' },
    );
    expect(c.rejectedColumns).toEqual([]);
  });

  it('with an aggregate inside, the aggregate takes the whole range', async () => {
    const c = await convertWorkbook(
      book(() => '_xlfn.SINGLE(MAX(Qtys)-Qtys)', [0, 2, 3], NAME),
      {
        modelId: 'ii',
      },
    );
    expect(c.rejectedColumns).toEqual([]);
  });
});
