// Workbooks written for LibreOffice to recalculate, the independent oracle of the spreadsheet
// tests: a workbook is written with formulas only (no stored results) and recalculated by headless
// LibreOffice (oracle/libreoffice.ts, the one place soffice is run), so every value in the result
// is its own.
//
// A book is { name, sheets: [{ name, rows: [[A1, B1, …], …], cells: { Z1: … } }] }: a string
// starting with '=' is a formula, null a blank cell.
import { strToU8, zipSync } from 'fflate';
import { recalculateFiles } from './oracle/libreoffice.js';

export { SOFFICE } from './oracle/libreoffice.js';

export type CellValue = string | number | boolean | null;
export interface LoSheet {
  name: string;
  rows: CellValue[][];
  cells?: Record<string, CellValue>;
}
export interface LoBook {
  name: string;
  sheets: LoSheet[];
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const letter = (n: number): string => {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};

const split = (ref: string): { row: number; col: number } => {
  const m = /^([A-Z]+)(\d+)$/.exec(ref)!;
  let col = 0;
  for (const ch of m[1]!) col = col * 26 + ch.charCodeAt(0) - 64;
  return { col, row: Number(m[2]) };
};

function cellXml(ref: string, v: CellValue | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' && v.startsWith('=')) return `<c r="${ref}"><f>${esc(v.slice(1))}</f></c>`;
  if (typeof v === 'string')
    return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`;
  if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  return `<c r="${ref}"><v>${v}</v></c>`;
}

function sheetXml(sheet: LoSheet): string {
  const rows = new Map<number, Map<number, CellValue>>();
  const put = (row: number, col: number, v: CellValue): void => {
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row)!.set(col, v);
  };
  sheet.rows.forEach((values, i) => values.forEach((v, j) => put(i + 1, j + 1, v)));
  for (const [ref, v] of Object.entries(sheet.cells ?? {})) {
    const { row, col } = split(ref);
    put(row, col, v);
  }
  const body = [...rows.keys()]
    .sort((a, b) => a - b)
    .map((r) => {
      const cols = rows.get(r)!;
      const cells = [...cols.keys()]
        .sort((a, b) => a - b)
        .map((c) => cellXml(`${letter(c)}${r}`, cols.get(c)));
      return `<row r="${r}">${cells.join('')}</row>`;
    });
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${body.join('')}</sheetData></worksheet>`;
}

/** The .xlsx bytes of a book, formulas without results. */
export function xlsxOf(book: LoBook): Uint8Array {
  const files: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${book.sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${book.sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${book.sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
  };
  book.sheets.forEach((s, i) => (files[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(s)));
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));
}

/** The books recalculated by LibreOffice, in order, as .xlsx bytes (one soffice run for all). */
export function recalculate(books: LoBook[]): Uint8Array[] {
  return recalculateFiles(books.map(xlsxOf));
}
