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
