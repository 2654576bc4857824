// Workbooks exported by Google Sheets (issue 39): a function Excel lacked is stored as
// `IFERROR(__xludf.DUMMYFUNCTION("filter(…)"),<cached>)`, its array result's other cells as
// `IFERROR(__xludf.DUMMYFUNCTION("""COMPUTED_VALUE"""),<cached>)`. The converter compiles Google's
// formula (with Google's meaning: FILTER's several conditions, SORT's is_ascending) and rejects
// the others as GOOGLE_SHEETS_FUNCTION. The oracle is LibreOffice computing the same results with
// formulas it has (7.4 has no FILTER or SORT): the k-th kept row by SMALL over the conditions, the
// k-th largest by LARGE, after seeded edits of the inputs.
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { splitRef, writeBook, type BookDef, type Input, type Stored } from './oracle/book.js';
import { compareEdits, type Edits } from './oracle/differential.js';
import { SOFFICE, SOFFICE_SKIP_REASON, type Recalculated } from './oracle/libreoffice.js';
import type { EditDef } from './oracle/layout.js';
import { recalculateWithEdits } from './oracle/edited-books.js';

const NAMES = ['Ann', 'Bob', 'Cid', 'Dee', 'Eve', 'Fay', 'Gus', 'Hal'];
// rows 2-5 score 5 or more, rows 6-9 less: FILTER(…>=5) keeps at most rows 2-5
const SCORES = [7, 9, 6, 8, 1, 2, 3, 4];
const GROUPS = ['x', 'y', 'x', 'x', 'x', 'y', 'x', 'x'];

const data: Record<string, Input> = { A1: 'Name', B1: 'Score', C1: 'Group' };
NAMES.forEach((n, i) => {
  data[`A${i + 2}`] = n;
  data[`B${i + 2}`] = SCORES[i]!;
  data[`C${i + 2}`] = GROUPS[i]!;
});

/** Google's formulas, the cells their results fill at the stored inputs, and LibreOffice's k-th. */
const SPILLS: { col: string; google: string; cells: number; native: (k: number) => string }[] = [
  {
    // Google's FILTER with two conditions (Excel's third argument would be if_empty)
    col: 'A',
    google: 'filter(Data!A2:A9,Data!B2:B9>=5,Data!C2:C9="x")',
    cells: 3,
    native: (k) =>
      `=IFERROR(INDEX(Data!$A$2:$A$9,SUMPRODUCT(SMALL((Data!$B$2:$B$9>=5)*(Data!$C$2:$C$9="x")*(ROW(Data!$B$2:$B$9)-1)+(1-(Data!$B$2:$B$9>=5)*(Data!$C$2:$C$9="x"))*1000,${k}))),"")`,
  },
  {
    col: 'B',
    google: 'filter(Data!B2:B9,Data!B2:B9>=5)',
    cells: 4,
    native: (k) =>
      `=IFERROR(INDEX(Data!$B$2:$B$9,SUMPRODUCT(SMALL((Data!$B$2:$B$9>=5)*(ROW(Data!$B$2:$B$9)-1)+(Data!$B$2:$B$9<5)*1000,${k}))),"")`,
  },
  {
    // Google's SORT(range, column, is_ascending): FALSE is descending
    col: 'C',
    google: 'sort(Data!B2:B5,1,FALSE)',
    cells: 4,
    native: (k) => `=LARGE(Data!$B$2:$B$5,${k})`,
  },
];

/** Plain formulas reading the spills, the same in both books. */
const READERS: Record<string, string> = { D2: '=SUM(B2:B5)', D3: '=C2-C5', D4: '=C3+C4' };

/** The book LibreOffice computes: the same results written with its own functions. */
function nativeBook(): BookDef {
  const out: Record<string, Input> = { ...READERS };
  for (const s of SPILLS) for (let k = 1; k <= s.cells; k++) out[`${s.col}${k + 1}`] = s.native(k);
  return {
    sheets: [
      { name: 'Data', cells: data },
      { name: 'Out', cells: out },
    ],
  };
}

const quoted = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** The book as Google Sheets exports it, its cached values LibreOffice's at the stored inputs. */
function googleBook(base: Recalculated): Uint8Array {
  const out: Record<string, Input> = { ...READERS };
  const cached = (ref: string): string => {
    const { row, col } = splitRef(ref);
    const v = base.get('Out')?.get(`${row}:${col}`);
    return typeof v === 'string' ? quoted(v) : String(v);
  };
  for (const s of SPILLS) {
    const anchor = `${s.col}2`;
    out[anchor] = `=IFERROR(__xludf.DUMMYFUNCTION(${quoted(s.google)}),${cached(anchor)})`;
    for (let k = 2; k <= s.cells; k++) {
      const ref = `${s.col}${k + 1}`;
      out[ref] = `=IFERROR(__xludf.DUMMYFUNCTION("""COMPUTED_VALUE"""),${cached(ref)})`;
    }
  }
  const book: BookDef = {
    sheets: [
      { name: 'Data', cells: data },
      { name: 'Out', cells: out },
    ],
  };
  return writeBook(book, (sheet, ref): Stored | undefined => {
    const { row, col } = splitRef(ref);
    return base.get(sheet)?.get(`${row}:${col}`);
  });
}

// the scores of rows 6-9 stay under 5 and C3 stays "y": no result grows past the cells it filled
const EDITS: EditDef[] = [
  { sheet: 'Data', cells: ['B2', 'B3', 'B4', 'B5'], kind: 'number', min: 0, max: 10 },
  { sheet: 'Data', cells: ['B6', 'B7', 'B8', 'B9'], kind: 'number', min: 0, max: 4.99 },
  { sheet: 'Data', cells: ['C2', 'C4', 'C5'], kind: 'category', values: ['x', 'y'] },
];
const EDIT_SETS = 6;

const title = SOFFICE ? 'Google Sheets exports' : `Google Sheets exports (skipped: ${SOFFICE_SKIP_REASON})`;

describe.skipIf(!SOFFICE)(title, () => {
  let base: Recalculated;
  let edits: Edits[];
  let edited: Recalculated[];

  beforeAll(() => {
    ({ base, edits, edited } = recalculateWithEdits(nativeBook, EDITS, 39, EDIT_SETS));
  }, 180_000);

  it("compiles Google's FILTER (several conditions) and SORT (is_ascending) as LibreOffice computes them after edits", async () => {
    // the oracle's own results first: the stored inputs give the results this file's layout assumes
    expect(
      ['A2', 'A3', 'A4', 'C2', 'C5'].map((r) =>
        base.get('Out')!.get(`${splitRef(r).row}:${splitRef(r).col}`),
      ),
    ).toEqual(['Ann', 'Cid', 'Dee', 9, 6]);
    const { spec, report } = await convertWorkbook(googleBook(base), { modelId: 'google-sheets' });
    expect(report.rejected).toEqual([]);
    expect(report.compiledCells).toBe(report.formulaCells);
    expect(report.formulaCells).toBe(3 + 4 + 4 + Object.keys(READERS).length);
    // a shorter result after an edit leaves its last cells blank, as LibreOffice's "" here
    const shrinks = edited.some((e) => e.get('Out')!.get('4:1') === '');
    expect(shrinks).toBe(true);
    const { compared, mismatches } = await compareEdits(spec, nativeBook(), edits, edited);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(report.formulaCells * EDIT_SETS);
    // the sort's cells and the readers of a fixed-length result are checked after edits
    const checks = new Map(report.checks.map((c) => [c.address, c.checked]));
    for (const address of ['C2', 'C5', 'D3']) expect(checks.get(address), address).toMatch(/^what-if/);
  });
});

describe('Google Sheets functions with no Excel meaning here', () => {
  it('are rejected as GOOGLE_SHEETS_FUNCTION, their result cells and readers with them, never frozen', async () => {
    const out: Record<string, Input> = {
      A2: '=IFERROR(__xludf.DUMMYFUNCTION("QUERY(Data!A1:B9,""select A where B > 5"")"),"Ann")',
      A3: '=IFERROR(__xludf.DUMMYFUNCTION("""COMPUTED_VALUE"""),"Bob")',
      B2: '=A2&"!"',
      // FILTER over a Google-only function: not rewritten either
      C2: '=IFERROR(__xludf.DUMMYFUNCTION("filter(Data!A2:A9,REGEXMATCH(Data!C2:C9,""x""))"),"Ann")',
    };
    const stored: Record<string, Stored> = { A2: 'Ann', A3: 'Bob', B2: 'Ann!', C2: 'Ann' };
    const bytes = writeBook(
      {
        sheets: [
          { name: 'Data', cells: data },
          { name: 'Out', cells: out },
        ],
      },
      (s, r) => (s === 'Out' ? stored[r] : undefined),
    );
    const { report } = await convertWorkbook(bytes, { modelId: 'google-query' });
    const reasons = report.rejected.map((r) => [r.reason, r.count]);
    expect(reasons).toEqual(
      expect.arrayContaining([
        ['GOOGLE_SHEETS_FUNCTION', 3],
        ['DEPENDS_ON_REJECTED', 1],
      ]),
    );
    expect(report.verifiedCells).toBe(0);
    const messages = report.rejected.flatMap((r) => r.examples.map((e) => e.message)).join('\n');
    expect(messages).toMatch(/Google Sheets' QUERY/);
    expect(messages).toMatch(/Google Sheets' FILTER/);
  });
});

describe('a Google FILTER whose result grows past the cells it filled', () => {
  it('leaves its cells not vouched for after such an edit (stored-only), not blank', async () => {
    // two of eight rows pass at the stored values; the what-if draws give the others passing scores
    const scores = [9, 8, 1, 2, 1, 2, 1, 3];
    const cells: Record<string, Input> = { A1: 'Name', B1: 'Score' };
    scores.forEach((s, i) => {
      cells[`A${i + 2}`] = NAMES[i]!;
      cells[`B${i + 2}`] = s;
    });
    const out: Record<string, Input> = {
      A2: '=IFERROR(__xludf.DUMMYFUNCTION("filter(Data!A2:A9,Data!B2:B9>=5)"),"Ann")',
      A3: '=IFERROR(__xludf.DUMMYFUNCTION("""COMPUTED_VALUE"""),"Bob")',
    };
    const stored: Record<string, Stored> = { A2: 'Ann', A3: 'Bob' };
    const bytes = writeBook(
      {
        sheets: [
          { name: 'Data', cells },
          { name: 'Out', cells: out },
        ],
      },
      (s, r) => (s === 'Out' ? stored[r] : undefined),
    );
    const { report } = await convertWorkbook(bytes, { modelId: 'google-grows' });
    expect(report.rejected).toEqual([]);
    const checks = new Map(report.checks.map((c) => [c.address, c.checked]));
    for (const address of ['A2', 'A3'])
      expect(checks.get(address), address).toMatch(/^stored-only: .*grows past/);
  });
});
