// A wide table workbook made at run time, for the budget tests and bench/sheet-convert.mjs: a header
// row, `columns - formulaColumns` columns of whole numbers, then formula columns that each add two
// input cells of their row, with the sums stored as a spreadsheet would store them (whole numbers, so
// exact). Cells are written inline, so the sheet part grows with rows × columns as real ones do.
import { strToU8, zipSync } from 'fflate';

const letter = (n) => {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>';
const WORKBOOK =
  '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>';

/** The stored value of input cell (row, col). */
const input = (row, col) => (row * 7 + col * 13) % 1000;

/**
 * An .xlsx of one table: `rows` data rows under a header row, `columns` columns of which the last
 * `formulaColumns` are computed.
 * @param {{ rows: number, columns: number, formulaColumns?: number }} shape
 * @returns {Uint8Array}
 */
export function wideWorkbook({ rows, columns, formulaColumns = 0 }) {
  const inputs = columns - formulaColumns;
  if (inputs < 1) throw new Error('a wide workbook needs at least one input column');
  const parts = ['<row r="1">'];
  for (let c = 1; c <= columns; c++)
    parts.push(`<c r="${letter(c)}1" t="inlineStr"><is><t>Field ${c}</t></is></c>`);
  parts.push('</row>');
  for (let r = 2; r <= rows + 1; r++) {
    parts.push(`<row r="${r}">`);
    for (let c = 1; c <= inputs; c++) parts.push(`<c r="${letter(c)}${r}"><v>${input(r, c)}</v></c>`);
    for (let k = 0; k < formulaColumns; k++) {
      const a = 1 + (k % inputs);
      const b = 1 + ((k + 1) % inputs);
      const sum = input(r, a) + input(r, b);
      parts.push(
        `<c r="${letter(inputs + 1 + k)}${r}"><f>${letter(a)}${r}+${letter(b)}${r}</f><v>${sum}</v></c>`,
      );
    }
    parts.push('</row>');
  }
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:${letter(columns)}${rows + 1}"/><sheetData>${parts.join('')}</sheetData></worksheet>`;
  return zipSync({
    '[Content_Types].xml': strToU8(CONTENT_TYPES),
    'xl/workbook.xml': strToU8(WORKBOOK),
    'xl/_rels/workbook.xml.rels': strToU8(RELS),
    'xl/worksheets/sheet1.xml': strToU8(sheet),
  });
}
