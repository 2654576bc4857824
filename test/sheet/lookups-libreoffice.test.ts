// LibreOffice as the independent evaluator of the lookup patterns of issue 39: offset ranges and
// approximate match. One generated workbook per pair of keys is recalculated by headless
// LibreOffice (libreoffice-calc); the first is converted (its stored values are LibreOffice's), and
// the model, with its keys set to each other pair, must give what LibreOffice computed for that
// pair. XLOOKUP, XMATCH and LET are not in LibreOffice 7.4 (24.8 has them): their tests use
// formulajs and Excel's documented rule. Skipped where soffice is not installed.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { readWorkbookParts, type CellValue } from '../../src/sheet/xlsx.js';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { cell, xlsxBook } from './helpers.js';
import { recalculateFiles as recalculate, SOFFICE } from './oracle/libreoffice.js';

const { text, num, row, formula } = cell;

const FORMULAS: [string, string][] = [
  ['J2', 'INDEX($H$2:$H$6,MATCH(E9,$G$3:$G$6,0))'],
  ['J3', 'INDEX($H$3:$H$6,MATCH(E9,$G$2:$G$6,0))'],
  ['J4', 'VLOOKUP(E8,$A$2:$B$5,2)'],
  ['J5', 'MATCH(E8,$A$2:$A$5,1)'],
  ['J6', 'MATCH(E8,$A$20:$D$20,-1)'],
  ['J7', 'HLOOKUP(E8,$A$22:$D$23,2,TRUE)'],
  ['J8', 'MATCH(E8,$A$2:$A$5)'],
  // text keys, sorted without case: approximate match compares text without case too
  ['J9', 'VLOOKUP(E10,$A$25:$B$28,2)'],
  ['J10', 'MATCH(E10,$A$25:$A$28,1)'],
];
const KEYS: [number, number, string][] = [
  [3000, 102, 'b'],
  [-5, 104, 'Cherry pie'],
  [999.5, 101, 'a'],
  [1000, 103, 'zebra'],
  [5000, 104, 'BANANA'],
  [19999.99, 102, 'apple'],
  [25000, 103, 'cherry'],
];

function book(amount: number, key: number, word: string): Uint8Array {
  const rows = [
    row(1, text('A1', 'From'), text('B1', 'Rate')),
    row(2, num('A2', 0), num('B2', 0.1), text('G2', 'Key'), text('H2', 'Value')),
    row(3, num('A3', 1000), num('B3', 0.2), num('G3', 101), num('H3', 20)),
    row(4, num('A4', 5000), num('B4', 0.3), num('G4', 102), num('H4', 20)),
    row(5, num('A5', 20000), num('B5', 0.4), num('G5', 103), num('H5', 20)),
    row(6, num('G6', 104), num('H6', 40)),
    row(8, text('D8', 'Amount'), num('E8', amount)),
    row(9, text('D9', 'Key'), num('E9', key)),
    row(10, text('D10', 'Word'), text('E10', word)),
    row(20, num('A20', 20000), num('B20', 5000), num('C20', 1000), num('D20', 0)),
    row(22, num('A22', 0), num('B22', 1000), num('C22', 5000), num('D22', 20000)),
    row(23, text('A23', 'low'), text('B23', 'mid'), text('C23', 'high'), text('D23', 'top')),
    row(25, text('A25', 'apple'), num('B25', 1)),
    row(26, text('A26', 'Banana'), num('B26', 2)),
    row(27, text('A27', 'cherry'), num('B27', 3)),
    row(28, text('A28', 'Date'), num('B28', 4)),
  ];
  // the formulas in their own rows' cells of column J (labels in I); stored 0: LibreOffice recalculates
  const byRow = new Map<number, string>();
  for (const [at, f] of FORMULAS)
    byRow.set(Number(at.slice(1)), text(`I${at.slice(1)}`, `Case ${at}`) + formula(at, f, 0));
  const xml = rows
    .map((r) => {
      const n = Number(/<row r="(\d+)"/.exec(r)![1]);
      const extra = byRow.get(n);
      byRow.delete(n);
      return extra ? r.replace('</row>', `${extra}</row>`) : r;
    })
    .join('');
  const rest = [...byRow].map(([n, cells]) => row(n, cells)).join('');
  return forLibreOffice(xlsxBook([{ name: 'Sheet1', rows: sortRows(xml + rest) }]));
}

/** The package parts LibreOffice needs to open a file (content types of each part, the root relation). */
function forLibreOffice(bytes: Uint8Array): Uint8Array {
  const files = unzipSync(bytes);
  files['[Content_Types].xml'] = strToU8(
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
  );
  files['_rels/.rels'] = strToU8(
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  );
  return zipSync(files);
}

/** Rows in ascending order, as a spreadsheet writes them. */
const sortRows = (xml: string): string =>
  (xml.match(/<row r="\d+">.*?<\/row>/g) ?? [])
    .sort((a, b) => Number(/r="(\d+)"/.exec(a)![1]) - Number(/r="(\d+)"/.exec(b)![1]))
    .join('');

const valueAt = (bytes: Uint8Array, at: string): CellValue => {
  const sheet = readWorkbookParts(bytes).sheets[0]!;
  const col = at.charCodeAt(0) - 64;
  const v = sheet.cells.get(`${Number(at.slice(1))}:${col}`)?.value ?? null;
  return v !== null && typeof v === 'object' ? null : v; // #N/A: no value
};

describe.skipIf(!SOFFICE)('lookups against LibreOffice after edits', () => {
  it('offset INDEX/MATCH and approximate VLOOKUP/HLOOKUP/MATCH agree with LibreOffice on every key', async () => {
    const recalculated = recalculate(KEYS.map(([a, k, w]) => book(a, k, w)));
    const c = await convertWorkbook(recalculated[0]!, { modelId: 'lo' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    expect(c.report.verifiedCells).toBe(FORMULAS.length);
    const pathOf = (at: string): string =>
      c.spec.derivations.find((d) => d.description?.includes(`(cell ${at})`))!.path.slice(2);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    for (const [i, [amount, key, word]] of KEYS.entries()) {
      await runtime.mutate({ '$.amount': amount, '$.key': key, '$.word': word });
      const state = (await runtime.getState()) as Record<string, unknown>;
      const model = FORMULAS.map(([at]) => [at, amount, key, word, state[pathOf(at)] ?? null]);
      const libre = FORMULAS.map(([at]) => [at, amount, key, word, valueAt(recalculated[i]!, at)]);
      expect(model).toEqual(libre);
    }
  }, 300_000);
});
