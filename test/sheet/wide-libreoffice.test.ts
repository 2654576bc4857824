// A wide sheet (issue 39): a monthly projection 150 months across (to column EU, past the old
// 100-column cap) converts, and every cell is verified, against LibreOffice's recalculated values
// as stored and after seeded edits of its assumptions, on both sides (the compiled model and the
// cell-grid evaluator). Skipped where soffice is not installed.
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/compile.js';
import { letter, type Input } from './oracle/book.js';
import { gridMismatches, prepare, storedBook, type Prepared } from './oracle/checked.js';
import { compareEdits } from './oracle/differential.js';
import type { Pattern } from './oracle/layout.js';
import { SOFFICE, SOFFICE_SKIP_REASON } from './oracle/libreoffice.js';

const MONTHS = 150;
const EDITS = 3;
const SEED = 3901;

/** Assumptions on one sheet; on the other, one row per line item and one column per month. */
export function monthlyProjection(months = MONTHS): Pattern {
  const inputs: Record<string, Input> = {
    A1: 'Monthly growth',
    B1: 0.02,
    A2: 'Price',
    B2: 12.5,
    A3: 'Cost ratio',
    B3: 0.4,
    A4: 'Overheads',
    B4: 800,
    A5: 'Starting units',
    B5: 100,
  };
  const plan: Record<string, Input> = {
    A1: 'Line',
    A2: 'Units',
    A3: 'Revenue',
    A4: 'Cost of sales',
    A5: 'Gross profit',
    A6: 'Overheads',
    A7: 'Operating profit',
    A8: 'Cumulative profit',
    A9: 'Margin',
  };
  for (let m = 1; m <= months; m++) {
    const c = letter(m + 1);
    const prev = letter(m);
    plan[`${c}1`] = `Month ${m}`;
    plan[`${c}2`] = m === 1 ? '=Inputs!$B$5' : `=${prev}2*(1+Inputs!$B$1)`;
    plan[`${c}3`] = `=${c}2*Inputs!$B$2`;
    plan[`${c}4`] = `=${c}3*Inputs!$B$3`;
    plan[`${c}5`] = `=${c}3-${c}4`;
    plan[`${c}6`] = '=Inputs!$B$4';
    plan[`${c}7`] = `=${c}5-${c}6`;
    plan[`${c}8`] = m === 1 ? `=${c}7` : `=${prev}8+${c}7`;
    plan[`${c}9`] = `=IF(${c}3=0,0,${c}7/${c}3)`;
  }
  const last = letter(months + 1);
  plan[`${letter(months + 3)}1`] = 'Total';
  plan[`${letter(months + 3)}7`] = `=SUM(B7:${last}7)`;
  return {
    name: 'monthly-projection',
    covers: `${months} months of a projection across, to column ${last}`,
    book: {
      sheets: [
        { name: 'Inputs', cells: inputs },
        { name: 'Plan', cells: plan },
      ],
    },
    edits: [
      { sheet: 'Inputs', cells: ['B1'], kind: 'number', min: 0, max: 0.05 },
      { sheet: 'Inputs', cells: ['B2'], kind: 'number', min: 5, max: 40 },
      { sheet: 'Inputs', cells: ['B3'], kind: 'number', min: 0.1, max: 0.9 },
      { sheet: 'Inputs', cells: ['B4'], kind: 'number', min: 100, max: 3000, integer: true },
      { sheet: 'Inputs', cells: ['B5'], kind: 'number', min: 10, max: 500, integer: true },
    ],
  };
}

const title = SOFFICE ? 'a wide sheet against LibreOffice' : `a wide sheet (skipped: ${SOFFICE_SKIP_REASON})`;

describe.skipIf(!SOFFICE)(title, () => {
  const pattern = monthlyProjection();
  let prepared: Prepared;

  beforeAll(() => {
    prepared = prepare([pattern], SEED, EDITS).get(pattern.name)!;
  }, 240_000);

  it(`${pattern.name}: ${pattern.covers} converts, and every cell is verified`, async () => {
    const { spec, report } = await convertWorkbook(storedBook(pattern, prepared), {
      modelId: 'wide',
      filename: 'wide.xlsx',
    });
    expect(report.rejected).toEqual([]);
    expect(report.formulaCells).toBe(8 * MONTHS + 1);
    expect(report.verifiedCells).toBe(report.formulaCells);
    const { compared, mismatches } = await compareEdits(spec, pattern.book, prepared.edits, prepared.edited);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(0);
    expect(gridMismatches(pattern, prepared)).toEqual([]);
  }, 120_000);
});
