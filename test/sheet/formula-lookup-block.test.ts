// A VLOOKUP table whose cells hold formulas (issue 39, ss-calculator-pfitzgibbon of the third
// held-out set): the ages counted down from a typed first age (`62` above `=A4+1`), the rates
// typed beside them, and cells beside the table looking a start age up. The block cannot be
// embedded as constants: it is read where it lies, so the lookup follows the first age when it is
// edited. LibreOffice's own recalculation after seeded edits is the oracle (a start age out of the
// table is #N/A there, no value in the model).
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { splitRef, writeBook, type BookDef, type Input, type Stored } from './oracle/book.js';
import { compareEdits, type Edits } from './oracle/differential.js';
import { SOFFICE, SOFFICE_SKIP_REASON, type Recalculated } from './oracle/libreoffice.js';
import { range, type EditDef } from './oracle/layout.js';
import { recalculateWithEdits } from './oracle/edited-books.js';

const RATES = [0.7, 0.75, 0.8, 0.867, 0.933, 1, 1.08, 1.16, 1.24];

function ssBook(): BookDef {
  const cells: Record<string, Input> = {
    A3: 'Age',
    B3: 'Rate',
    C3: 'Yearly',
    E3: 'Start age',
    F3: 67,
    E5: 'Benefit',
    F5: '=VLOOKUP(F3,$A$4:$C$12,2,0)*$C$4',
    E7: 'At 64',
    F7: '=VLOOKUP(64,$A$4:$C$12,3,FALSE)',
  };
  RATES.forEach((rate, i) => {
    const r = i + 4;
    cells[`A${r}`] = i === 0 ? 62 : `=A${r - 1}+1`;
    cells[`B${r}`] = rate;
    cells[`C${r}`] = 61296;
  });
  return { sheets: [{ name: 'SS', cells }] };
}

const EDITS: EditDef[] = [
  { sheet: 'SS', cells: ['A4'], kind: 'number', min: 58, max: 66, integer: true },
  { sheet: 'SS', cells: ['F3'], kind: 'number', min: 60, max: 72, integer: true },
  { sheet: 'SS', cells: range('B', 4, 12), kind: 'number', min: 0.5, max: 1.3 },
  { sheet: 'SS', cells: range('C', 4, 12), kind: 'number', min: 40000, max: 70000, integer: true },
];
const EDIT_SETS = 6;

const title = SOFFICE
  ? 'a VLOOKUP table holding formulas'
  : `a VLOOKUP table holding formulas (skipped: ${SOFFICE_SKIP_REASON})`;

describe.skipIf(!SOFFICE)(title, () => {
  let base: Recalculated;
  let edits: Edits[];
  let edited: Recalculated[];

  beforeAll(() => {
    ({ base, edits, edited } = recalculateWithEdits(ssBook, EDITS, 39, EDIT_SETS));
  }, 180_000);

  it('reads the block where it lies, following its counted keys, as LibreOffice computes it after edits', async () => {
    const bytes = writeBook(ssBook(), (sheet, ref): Stored | undefined => {
      const { row, col } = splitRef(ref);
      return base.get(sheet)?.get(`${row}:${col}`);
    });
    const { spec, report } = await convertWorkbook(bytes, { modelId: 'formula-lookup-block' });
    expect(report.rejected).toEqual([]);
    expect(report.verifiedCells).toBe(report.formulaCells);
    const { compared, mismatches } = await compareEdits(spec, ssBook(), edits, edited);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(report.formulaCells * EDIT_SETS);
    // some edit moved the ages so that the start age fell out of the table: #N/A in LibreOffice
    const missed = edited.filter((e) => typeof e.get('SS')!.get('5:6') === 'object');
    expect(missed.length).toBeGreaterThan(0);
    const checks = new Map(report.checks.map((c) => [c.address, c.checked]));
    expect(checks.get('F5'), JSON.stringify(report.checks)).toMatch(/^what-if/);
    expect(checks.get('F7'), JSON.stringify(report.checks)).toMatch(/^what-if/);
  });
});
