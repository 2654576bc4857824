// Links to other workbooks (issue 39): `'[1]WACC'!D22` reads a cell of another file, whose value
// the workbook cached in xl/externalLinks/externalLink1.xml. Each such cell becomes an input
// holding the cached value, named as linked and annotated with the linked file's name, instead of
// a CROSS_SHEET_REFERENCE rejection. The stored values are the formulas' meaning written out here.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { cell, xlsxEntries } from './helpers.js';

const { text, row, formula } = cell;
const WACC = 0.078205784413158272;
const REVENUE = [177866, 232887];

const NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const LINK_TYPE = `${NS}/externalLink`;

/** Sheet1 reads two cells of the linked file; `links` external references, the first with its part. */
function book(rowsXml: string, links = 1): Uint8Array {
  const files = xlsxEntries(rowsXml);
  const refs = Array.from({ length: links }, (_, i) => `<externalReference r:id="rId${i + 2}"/>`).join('');
  files['xl/workbook.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${NS}"><sheets><sheet name="DCF" sheetId="1" r:id="rId1"/></sheets><externalReferences>${refs}</externalReferences></workbook>`,
  );
  const linkRels = Array.from(
    { length: links },
    (_, i) =>
      `<Relationship Id="rId${i + 2}" Type="${LINK_TYPE}" Target="externalLinks/externalLink${i + 1}.xml"/>`,
  ).join('');
  files['xl/_rels/workbook.xml.rels'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${NS}/worksheet" Target="worksheets/sheet1.xml"/>${linkRels}</Relationships>`,
  );
  // only the first link has its part: the second is a link the file lost
  files['xl/externalLinks/externalLink1.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><externalBook xmlns:r="${NS}" r:id="rId1"><sheetNames><sheetName val="DCF"/><sheetName val="WACC"/><sheetName val="IS"/></sheetNames><sheetDataSet><sheetData sheetId="0"/><sheetData sheetId="1"><row r="22"><cell r="D22"><v>${WACC}</v></cell></row></sheetData><sheetData sheetId="2"><row r="5"><cell r="F5"><v>${REVENUE[0]}</v></cell><cell r="G5"><v>${REVENUE[1]}</v></cell></row><row r="6"><cell r="F6" t="str"><v>INR crore</v></cell></row></sheetData></sheetDataSet></externalBook></externalLink>`,
  );
  files['xl/externalLinks/_rels/externalLink1.xml.rels'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${NS}/externalLinkPath" Target="file:///C:\\Users\\someone\\Downloads\\DCF%20Tutorial%20Answer%20Key.xlsx" TargetMode="External"/></Relationships>`,
  );
  return zipSync(files);
}

const value = (wacc: number, f5: number, g5: number): number => (f5 + g5) / (1 + wacc);

const ROWS =
  row(1, text('A1', 'WACC'), formula('B1', "'[1]WACC'!D22", WACC)) +
  row(2, text('A2', 'Revenue'), formula('B2', 'SUM([1]IS!F5:G5)', REVENUE[0]! + REVENUE[1]!)) +
  row(3, text('A3', 'Value'), formula('B3', 'B2/(1+B1)', value(WACC, REVENUE[0]!, REVENUE[1]!))) +
  row(4, text('A4', 'Unit'), formula('B4', '"in "&[1]IS!F6', 'in INR crore'));

describe('links to other workbooks', () => {
  it('reads the cached values of each linked sheet, named as formulas name it', () => {
    const wb = readWorkbookParts(book(ROWS));
    const linked = wb.sheets.filter((s) => s.external);
    expect(linked.map((s) => [s.name, s.external!.file, s.cells.size])).toEqual([
      ['[1]DCF', 'DCF Tutorial Answer Key.xlsx', 0],
      ['[1]WACC', 'DCF Tutorial Answer Key.xlsx', 1],
      ['[1]IS', 'DCF Tutorial Answer Key.xlsx', 3],
    ]);
  });

  it('a linked cell is an input holding the cached value, named and annotated as linked; the formulas verify after edits', async () => {
    const c = await convertWorkbook(book(ROWS), { modelId: 'linked' });
    expect(c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`)).toEqual([]);
    // the unit reads one text, which has no other text to be edited to: checked at the stored value
    expect([c.report.compiledCells, c.report.verifiedCells]).toEqual([4, 3]);
    const props = c.spec.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.linked_wacc_d22).toMatchObject({
      type: 'number',
      default: WACC,
      'x-cell': "'[1]WACC'!D22",
    });
    expect(String(props.linked_wacc_d22!.description)).toMatch(
      /sheet 'WACC' of the linked workbook 'DCF Tutorial Answer Key\.xlsx'/,
    );
    expect(props.linked_is_f5).toMatchObject({ default: REVENUE[0] });
    expect(props.linked_is_f6).toMatchObject({ type: 'string', default: 'INR crore' });
    // the model starts at the cached values and follows an edit of a linked input
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    await runtime.mutate({ '$.linked_wacc_d22': 0.1, '$.linked_is_g5': 1000 });
    const state = (await runtime.getState()) as Record<string, unknown>;
    expect(state.value).toBeCloseTo(value(0.1, REVENUE[0]!, 1000), 9);
  });

  it('a link whose cached part is missing stays CROSS_SHEET_REFERENCE', async () => {
    const rows = row(1, text('A1', 'Lost'), formula('B1', '[2]Sheet1!A1*2', 4));
    const c = await convertWorkbook(book(rows, 2), { modelId: 'linked' });
    expect(c.rejectedColumns.map((r) => [r.address, r.reason])).toEqual([['B1', 'CROSS_SHEET_REFERENCE']]);
  });
});
