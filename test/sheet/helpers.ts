// Shared helpers of the spreadsheet tests: the committed workbooks, and a tiny .xlsx writer for
// hostile files made at run time.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, zipSync, type Zippable } from 'fflate';

const here = dirname(fileURLToPath(import.meta.url));

/** A workbook made and recalculated by LibreOffice (see make-workbooks.mjs). */
export const workbook = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(join(here, 'workbooks', name)));

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>';
const WORKBOOK =
  '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>';

/** The zip entries of a one-sheet .xlsx whose sheetData is `rowsXml`. */
export function xlsxEntries(rowsXml: string): Zippable {
  return {
    '[Content_Types].xml': strToU8(CONTENT_TYPES),
    'xl/workbook.xml': strToU8(WORKBOOK),
    'xl/_rels/workbook.xml.rels': strToU8(RELS),
    'xl/worksheets/sheet1.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rowsXml}</sheetData></worksheet>`,
    ),
  };
}

/** A one-sheet .xlsx whose sheetData is `rowsXml` (values hand-written: not an oracle). */
export const xlsx = (rowsXml: string): Uint8Array => zipSync(xlsxEntries(rowsXml));

/** A sheet of a hand-written workbook: its sheetData rows and, optionally, its Excel Tables' XML. */
export interface BookSheet {
  name: string;
  rows: string;
  tables?: string[];
}

/** A hand-written .xlsx of several sheets, with table parts and defined names (values by hand). */
export function xlsxBook(sheets: BookSheet[], definedNames = ''): Uint8Array {
  const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const files: Zippable = {
    '[Content_Types].xml': strToU8(CONTENT_TYPES),
    'xl/workbook.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${sheets
        .map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
        .join(
          '',
        )}</sheets>${definedNames === '' ? '' : `<definedNames>${definedNames}</definedNames>`}</workbook>`,
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
        .map(
          (_, i) =>
            `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
        )
        .join('')}</Relationships>`,
    ),
  };
  let tableNo = 0;
  sheets.forEach((s, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${s.rows}</sheetData></worksheet>`,
    );
    if (!s.tables?.length) return;
    const rels = s.tables.map((xml, j) => {
      tableNo++;
      files[`xl/tables/table${tableNo}.xml`] = strToU8(`<?xml version="1.0" encoding="UTF-8"?>${xml}`);
      return `<Relationship Id="rId${j + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" Target="../tables/table${tableNo}.xml"/>`;
    });
    files[`xl/worksheets/_rels/sheet${i + 1}.xml.rels`] = strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`,
    );
  });
  return zipSync(files);
}

/** Cell XML for hand-written sheets. */
export const cell = {
  text: (ref: string, s: string): string =>
    `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${s.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</t></is></c>`,
  num: (ref: string, n: number | string): string => `<c r="${ref}"><v>${n}</v></c>`,
  formula: (ref: string, f: string, v: number | string | boolean): string =>
    typeof v === 'string'
      ? `<c r="${ref}" t="str"><f>${f.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</f><v>${v}</v></c>`
      : typeof v === 'boolean'
        ? `<c r="${ref}" t="b"><f>${f.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</f><v>${v ? 1 : 0}</v></c>`
        : `<c r="${ref}"><f>${f.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</f><v>${v}</v></c>`,
  row: (r: number, ...cells: string[]): string => `<row r="${r}">${cells.join('')}</row>`,
};
