// A tiny .xlsx writer for the LibreOffice oracle: sheets of cells (constants and formulas, with or
// without stored results), Excel Tables (table parts) and defined names, written the way Excel
// stores them (structured references stay in the formula text). fflate does the zip.
import { strToU8, zipSync, type Zippable } from 'fflate';

/**
 * A cell: a number, text, TRUE/FALSE, or a formula (text starting with `=`). An array formula is
 * written `{}=SUM(A2:A9*B2:B9)` (a one-cell legacy array), `{R5:V8}=C5:G8*J4:N4` (a legacy array
 * over that result range) or `{D7:D9}#=TRANSPOSE(B2:D2)` (an Excel 365 spill, `cm="1"`); each
 * other cell of a result range is given as SPILLED, written with the value stored for it.
 */
export type Input = number | string | boolean;

/** A cell of an array formula's result other than its anchor (see Input). */
export const SPILLED = '{spilled}';
const ARRAY_INPUT = /^\{([A-Z]+\d+(?::[A-Z]+\d+)?)?\}(#?)=([\s\S]*)$/;

/** A value LibreOffice stored for a formula cell. */
export type Stored = number | string | boolean | { error: string } | null;

export interface TableDef {
  /** The table's name, as in `Sales[Qty]`. */
  name: string;
  /** Its block, header row included (`A1:D6`). */
  ref: string;
}

export interface SheetDef {
  name: string;
  /** `A1` → value. */
  cells: Record<string, Input>;
  tables?: TableDef[];
}

export interface BookDef {
  sheets: SheetDef[];
  /** Defined names: name → what it names (`Rates!$B$1`). */
  names?: Record<string, string>;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function splitRef(ref: string): { row: number; col: number } {
  const m = /^([A-Z]+)(\d+)$/.exec(ref);
  if (!m) throw new Error(`not a cell reference: ${ref}`);
  let col = 0;
  for (const ch of m[1]!) col = col * 26 + ch.charCodeAt(0) - 64;
  return { row: Number(m[2]), col };
}

export function letter(col: number): string {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function cellXml(ref: string, v: Input, stored: Stored | undefined): string {
  const array = typeof v === 'string' ? ARRAY_INPUT.exec(v) : null;
  if (v === SPILLED || array || (typeof v === 'string' && v.startsWith('='))) {
    const text = v as string;
    const f =
      v === SPILLED
        ? ''
        : array
          ? `<f t="array" ref="${array[1] ?? ref}">${esc(array[3]!)}</f>`
          : `<f>${esc(text.slice(1))}</f>`;
    const at = `r="${ref}"${array?.[2] ? ' cm="1"' : ''}`;
    if (stored === undefined || stored === null) return `<c ${at}>${f}</c>`;
    if (typeof stored === 'object') return `<c ${at} t="e">${f}<v>${esc(stored.error)}</v></c>`;
    if (typeof stored === 'boolean') return `<c ${at} t="b">${f}<v>${stored ? 1 : 0}</v></c>`;
    if (typeof stored === 'string') return `<c ${at} t="str">${f}<v>${esc(stored)}</v></c>`;
    return `<c ${at}>${f}<v>${stored}</v></c>`;
  }
  if (typeof v === 'string')
    return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`;
  if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  return `<c r="${ref}"><v>${v}</v></c>`;
}

function sheetXml(sheet: SheetDef, stored: (ref: string) => Stored | undefined): string {
  const rows = new Map<number, { col: number; xml: string }[]>();
  for (const [ref, v] of Object.entries(sheet.cells)) {
    const { row, col } = splitRef(ref);
    if (!rows.has(row)) rows.set(row, []);
    rows.get(row)!.push({ col, xml: cellXml(ref, v, stored(ref)) });
  }
  const body = [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([r, cells]) =>
        `<row r="${r}">${cells
          .sort((a, b) => a.col - b.col)
          .map((c) => c.xml)
          .join('')}</row>`,
    )
    .join('');
  const parts = sheet.tables?.length
    ? `<tableParts count="${sheet.tables.length}">${sheet.tables.map((_, i) => `<tablePart r:id="rId${i + 1}"/>`).join('')}</tableParts>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetData>${body}</sheetData>${parts}</worksheet>`;
}

function tableXml(sheet: SheetDef, t: TableDef, id: number): string {
  const [from, to] = t.ref.split(':') as [string, string];
  const a = splitRef(from);
  const b = splitRef(to);
  const columns: string[] = [];
  for (let c = a.col; c <= b.col; c++) {
    const header = sheet.cells[`${letter(c)}${a.row}`];
    columns.push(`<tableColumn id="${c - a.col + 1}" name="${esc(String(header))}"/>`);
  }
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="${id}" name="${esc(t.name)}" displayName="${esc(t.name)}" ref="${t.ref}" totalsRowShown="0"><autoFilter ref="${t.ref}"/><tableColumns count="${columns.length}">${columns.join('')}</tableColumns><tableStyleInfo name="TableStyleMedium2" showFirstColumn="0" showLastColumn="0" showRowStripes="1" showColumnStripes="0"/></table>`;
}

/**
 * The .xlsx bytes of a book. `stored(sheet, ref)` gives the result to store for a formula cell
 * (LibreOffice's); without it the formulas carry no results (LibreOffice computes them on load).
 */
export function writeBook(
  book: BookDef,
  stored?: (sheet: string, ref: string) => Stored | undefined,
): Uint8Array {
  const overrides: string[] = [
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>',
  ];
  const files: Record<string, string> = {};
  let tableId = 0;
  book.sheets.forEach((s, i) => {
    overrides.push(
      `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
    );
    files[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(s, (ref) => stored?.(s.name, ref));
    if (!s.tables?.length) return;
    const rels = s.tables.map((t, j) => {
      tableId++;
      files[`xl/tables/table${tableId}.xml`] = tableXml(s, t, tableId);
      overrides.push(
        `<Override PartName="/xl/tables/table${tableId}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml"/>`,
      );
      return `<Relationship Id="rId${j + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" Target="../tables/table${tableId}.xml"/>`;
    });
    files[`xl/worksheets/_rels/sheet${i + 1}.xml.rels`] =
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`;
  });
  const names = Object.entries(book.names ?? {});
  files['[Content_Types].xml'] =
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`;
  files['_rels/.rels'] =
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>';
  files['xl/workbook.xml'] =
    `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${book.sheets
      .map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
      .join('')}</sheets>${
      names.length
        ? `<definedNames>${names.map(([n, r]) => `<definedName name="${esc(n)}">${esc(r)}</definedName>`).join('')}</definedNames>`
        : ''
    }</workbook>`;
  files['xl/_rels/workbook.xml.rels'] =
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${book.sheets
      .map(
        (_, i) =>
          `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
      )
      .join('')}</Relationships>`;
  const zip: Zippable = {};
  for (const [k, v] of Object.entries(files)) zip[k] = strToU8(v);
  return zipSync(zip);
}
