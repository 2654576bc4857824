// TODAY() and NOW() as inputs (src/sheet/volatile.ts). Trackers compute "days since", "age",
// "years of service" from TODAY(); the stored values are what TODAY gave the day the workbook was
// last computed. The converter makes TODAY an input holding that day, found from a cell holding
// =TODAY() or =NOW() alone or from the day the file was saved (the UTC day or a day either side,
// whichever reproduces the stored values), so such a workbook converts and can be recomputed for
// another day.
//
// The oracle for the days is Python's datetime: (date(2025,12,31) - date(1899,12,30)).days is
// 46022, 2026-01-01 is 46023, 2024-12-28 is 45654 and 2025-03-04 is 45720. After an edit, the
// model's days are checked against the closed form `today - date`.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxEntries } from './helpers.js';

const { text, num, formula, row } = cell;

const core = (modified: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dcterms:modified xsi:type="dcterms:W3CDTF">${modified}</dcterms:modified></cp:coreProperties>`;

/** A one-sheet workbook, saved at `modified` (no core part when undefined). */
function book(rows: string, modified?: string, date1904 = false): Uint8Array {
  const entries = xlsxEntries(rows);
  if (modified !== undefined) entries['docProps/core.xml'] = strToU8(core(modified));
  if (date1904) {
    const wb = new TextDecoder().decode(entries['xl/workbook.xml'] as Uint8Array);
    entries['xl/workbook.xml'] = strToU8(wb.replace('<sheets>', '<workbookPr date1904="1"/><sheets>'));
  }
  return zipSync(entries);
}

const DATES = [45654, 45720, 45000];

/** Name, date, and `TODAY()-B` stored as computed on `today`. */
const daysSince = (today: number): string =>
  [
    row(1, text('A1', 'Name'), text('B1', 'Since'), text('C1', 'Days')),
    ...DATES.map((d, i) =>
      row(
        i + 2,
        text(`A${i + 2}`, `p${i}`),
        num(`B${i + 2}`, d),
        formula(`C${i + 2}`, `TODAY()-B${i + 2}`, today - d),
      ),
    ),
  ].join('');

async function runtimeOf(spec: Parameters<typeof normalizeSpec>[0]): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(spec).spec));
  await runtime.initialize({ recomputeAll: true });
  return runtime;
}

type Prop = { default?: unknown; description?: string; 'x-cell'?: string };
type Props = Record<string, Prop | undefined>;
/** The top-level fields, and the clock inputs by the function they hold (`x-cell` `TODAY()`). */
function propsOf(spec: { schema: unknown }): Props {
  const props = (spec.schema as { properties: Record<string, Prop> }).properties;
  const out: Props = { ...props };
  out.today = Object.values(props).find((p) => p['x-cell'] === 'TODAY()');
  out.now = Object.values(props).find((p) => p['x-cell'] === 'NOW()');
  return out;
}

describe('TODAY() and NOW() are inputs holding what they gave when the workbook was computed', () => {
  it('TODAY is the day the file was saved, and the model recomputes when it is set', async () => {
    const c = await convertWorkbook(book(daysSince(46022), '2025-12-31T03:22:47Z'), { modelId: 'days' });
    expect(c.report.rejected).toEqual([]);
    expect(c.report.verifiedCells).toBe(3);
    const today = propsOf(c.spec).today!;
    expect(today.default).toBe(46022);
    expect(today['x-cell']).toBe('TODAY()');
    expect(today.description).toMatch(/2025-12-31/);
    expect(c.report.cellMap).toContainEqual({ cells: 'TODAY()', path: 'today', kind: 'input' });
    // the what-if rounds edit the day too, and the grid evaluator agrees with the model
    expect(c.report.checks.find((k) => k.address === 'C')?.checked).toMatch(/^what-if \d+ edits$/);

    // the model starts where the workbook is, and follows an edit of the day
    const runtime = await runtimeOf(c.spec);
    const state = (await runtime.getState()) as { today: number; rows: { days: number }[] };
    expect(state.rows.map((r) => r.days)).toEqual(DATES.map((d) => 46022 - d));
    await runtime.mutate({ '$.today': 46100 });
    const after = (await runtime.getState()) as { rows: { days: number }[] };
    expect(after.rows.map((r) => r.days)).toEqual(DATES.map((d) => 46100 - d));
  });

  it('the day either side of the UTC day is taken when the workbook computed in another time zone', async () => {
    // saved at 23:30 UTC on 31 December; the workbook's clock already read 1 January
    const c = await convertWorkbook(book(daysSince(46023), '2025-12-31T23:30:00Z'), { modelId: 'east' });
    expect(c.report.rejected).toEqual([]);
    expect(propsOf(c.spec).today!.default).toBe(46023);
    // and a clock behind UTC: saved 02:00 UTC on 1 January, computed on 31 December
    const w = await convertWorkbook(book(daysSince(46022), '2026-01-01T02:00:00Z'), { modelId: 'west' });
    expect(w.report.rejected).toEqual([]);
    expect(propsOf(w.spec).today!.default).toBe(46022);
  });

  it('a workbook computed on no day near its save time keeps TODAY refused', async () => {
    // stored as of 2024-12-28 (45654), saved a year later: no day tried reproduces a value
    const c = await convertWorkbook(book(daysSince(45654 + 400), '2025-12-31T03:22:47Z'), { modelId: 'old' });
    expect(propsOf(c.spec).today).toBeUndefined();
    expect(c.report.rejected.map((r) => r.reason)).toEqual(['UNSUPPORTED_FUNCTION']);
    expect(c.report.rejected[0]!.examples[0]!.message).toMatch(/TODAY is volatile/);
  });

  it('a cell holding =TODAY() or =NOW() alone gives the value, with no save time needed', async () => {
    const rows = [
      row(1, text('A1', 'As of'), formula('B1', 'NOW()', 46022.6875)),
      row(2, text('A2', 'Today'), formula('B2', 'TODAY()', 46022)),
      row(4, text('A4', 'Name'), text('B4', 'Since'), text('C4', 'Hours')),
      row(5, text('A5', 'x'), num('B5', 46020), formula('C5', '(NOW()-B5)*24', (46022.6875 - 46020) * 24)),
    ].join('');
    const c = await convertWorkbook(book(rows), { modelId: 'alone' });
    expect(c.report.rejected).toEqual([]);
    const props = propsOf(c.spec);
    expect(props.now!.default).toBe(46022.6875);
    expect(props.today!.default).toBe(46022);
    expect(props.now!.description).toMatch(/Sheet1!B1, which holds =NOW\(\)/);
    // the formulas are shown as the workbook writes them
    expect(JSON.stringify(c.spec)).not.toContain('[0]Clock');
    expect(JSON.stringify(c.spec)).toContain('=(NOW()-B5)*24');
  });

  it('without a save time or a cell of its own, or on the 1904 date system, TODAY stays refused', async () => {
    for (const bytes of [book(daysSince(46022)), book(daysSince(46022), '2025-12-31T03:22:47Z', true)]) {
      const c = await convertWorkbook(bytes, { modelId: 'unbound' });
      expect(propsOf(c.spec).today).toBeUndefined();
      expect(c.report.rejected.map((r) => r.reason)).toEqual(['UNSUPPORTED_FUNCTION']);
    }
  });
});
