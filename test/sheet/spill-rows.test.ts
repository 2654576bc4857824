// A column formula reading, row by row, the cells of a spill beside it (issue 39, the DDM
// workbook's `=SUMIFS($C$3:$C$28,$B$3:$B$28,$A34)` filled down beside `A34 = SORT(UNIQUE(B3:B28))`):
// row i reads the spill's array at its position. The spill here is a Google Sheets export's
// `sort(…)` (google.ts), the same spill as Excel's; LibreOffice 7.4 has no SORT, so its book
// computes the k-th smallest with SMALL, and the columns beside it with the same formulas.
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { splitRef, writeBook, type BookDef, type Input, type Stored } from './oracle/book.js';
import { compareEdits, type Edits } from './oracle/differential.js';
import { SOFFICE, SOFFICE_SKIP_REASON, type Recalculated } from './oracle/libreoffice.js';
import type { EditDef } from './oracle/layout.js';
import { recalculateWithEdits } from './oracle/edited-books.js';

const YEARS = [2019, 2017, 2018, 2020, 2016, 2015];
const AMOUNTS = [1.6, 1.48, 1.56, 1.64, 1.4, 1.32];

const data: Record<string, Input> = { A1: 'Year', B1: 'Amount' };
YEARS.forEach((y, i) => {
  data[`A${i + 2}`] = y;
  data[`B${i + 2}`] = AMOUNTS[i]!;
});

/** Sheet Out: the sorted years in A (a spill from A3), beside them a table reading them by row. */
function out(spill: (k: number) => string): Record<string, Input> {
  const cells: Record<string, Input> = { A2: 'Year', B2: 'Total', C2: 'Growth' };
  YEARS.forEach((_, i) => {
    const r = i + 3;
    cells[`A${r}`] = spill(i + 1);
    cells[`B${r}`] = `=SUMIFS(Data!$B$2:$B$7,Data!$A$2:$A$7,$A${r})`;
    if (i > 0) cells[`C${r}`] = `=(B${r}/B${r - 1})-1`;
  });
  return cells;
}

const nativeBook = (): BookDef => ({
  sheets: [
    { name: 'Data', cells: data },
    { name: 'Out', cells: out((k) => `=SMALL(Data!$A$2:$A$7,${k})`) },
  ],
});

function googleBook(base: Recalculated): Uint8Array {
  const stored = (sheet: string, ref: string): Stored | undefined => {
    const { row, col } = splitRef(ref);
    return base.get(sheet)?.get(`${row}:${col}`);
  };
  const cells = out((k) =>
    k === 1
      ? `=IFERROR(__xludf.DUMMYFUNCTION("sort(Data!A2:A7)"),${String(stored('Out', 'A3'))})`
      : `=IFERROR(__xludf.DUMMYFUNCTION("""COMPUTED_VALUE"""),${String(stored('Out', `A${k + 2}`))})`,
  );
  return writeBook(
    {
      sheets: [
        { name: 'Data', cells: data },
        { name: 'Out', cells },
      ],
    },
    stored,
  );
}

// years from the data or two others (repeats too: SORT keeps them, SUMIFS adds their amounts)
const EDITS: EditDef[] = [
  {
    sheet: 'Data',
    cells: ['A2', 'A3', 'A4', 'A5', 'A6', 'A7'],
    kind: 'category',
    values: [...YEARS, 2014, 2021],
  },
  { sheet: 'Data', cells: ['B2', 'B3', 'B4', 'B5', 'B6', 'B7'], kind: 'number', min: 0.5, max: 3 },
];
const EDIT_SETS = 6;

const title = SOFFICE
  ? 'a column reading a spill row by row'
  : `a column reading a spill row by row (skipped: ${SOFFICE_SKIP_REASON})`;

describe.skipIf(!SOFFICE)(title, () => {
  let base: Recalculated;
  let edits: Edits[];
  let edited: Recalculated[];

  beforeAll(() => {
    ({ base, edits, edited } = recalculateWithEdits(nativeBook, EDITS, 39, EDIT_SETS));
  }, 180_000);

  it('compiles SUMIFS(…,$A3) beside the spill A3:A8, and the growth column reading it, as LibreOffice computes them', async () => {
    const { spec, report } = await convertWorkbook(googleBook(base), { modelId: 'spill-rows' });
    expect(report.rejected).toEqual([]);
    expect(report.compiledCells).toBe(report.formulaCells);
    const { compared, mismatches } = await compareEdits(spec, nativeBook(), edits, edited);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(report.formulaCells * EDIT_SETS);
    const checks = new Map(report.checks.map((c) => [c.address, c.checked]));
    expect(checks.get('B3:B8') ?? checks.get('B'), JSON.stringify(report.checks)).toMatch(/^what-if/);
  });
});
