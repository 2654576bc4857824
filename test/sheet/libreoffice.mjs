// Recalculation by headless LibreOffice, the independent oracle of the spreadsheet tests: a
// workbook is written with formulas only (no stored results), LibreOffice opens it with
// "recalculate on load: always" and saves it again, so every value in the result is its own.
//
// A book is { name, sheets: [{ name, rows: [[A1, B1, …], …], cells: { Z1: … } }] }: a string
// starting with '=' is a formula, null a blank cell.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';

/** Where LibreOffice is, or undefined when this machine has none. */
export const SOFFICE = ['/usr/bin/soffice', '/usr/local/bin/soffice'].find((p) => existsSync(p));

const esc = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
export const letter = (n) => {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};
const split = (ref) => {
  const m = /^([A-Z]+)(\d+)$/.exec(ref);
  let col = 0;
  for (const ch of m[1]) col = col * 26 + ch.charCodeAt(0) - 64;
  return { col, row: Number(m[2]) };
};

function cellXml(ref, v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' && v.startsWith('=')) return `<c r="${ref}"><f>${esc(v.slice(1))}</f></c>`;
  if (typeof v === 'string')
    return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`;
  if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  return `<c r="${ref}"><v>${v}</v></c>`;
}

function sheetXml(sheet) {
  const rows = new Map();
  const put = (row, col, v) => {
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row).set(col, v);
  };
  sheet.rows.forEach((values, i) => values.forEach((v, j) => put(i + 1, j + 1, v)));
  for (const [ref, v] of Object.entries(sheet.cells ?? {})) {
    const { row, col } = split(ref);
    put(row, col, v);
  }
  const body = [...rows.keys()]
    .sort((a, b) => a - b)
    .map((r) => {
      const cols = rows.get(r);
      const cells = [...cols.keys()]
        .sort((a, b) => a - b)
        .map((c) => cellXml(`${letter(c)}${r}`, cols.get(c)));
      return `<row r="${r}">${cells.join('')}</row>`;
    });
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${body.join('')}</sheetData></worksheet>`;
}

/** The .xlsx bytes of a book, formulas without results. */
export function xlsxOf(book) {
  const files = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${book.sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${book.sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${book.sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
  };
  book.sheets.forEach((s, i) => (files[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(s)));
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));
}

/** The books recalculated by LibreOffice, in order, as .xlsx bytes (one soffice run for all). */
export function recalculate(books) {
  if (!SOFFICE) throw new Error('LibreOffice (soffice) is not installed');
  const work = mkdtempSync(join(tmpdir(), 'modelworks-lo-'));
  try {
    const src = join(work, 'src');
    const out = join(work, 'out');
    const profile = join(work, 'profile');
    mkdirSync(src);
    mkdirSync(out);
    mkdirSync(join(profile, 'user'), { recursive: true });
    writeFileSync(
      join(profile, 'user', 'registrymodifications.xcu'),
      `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`,
    );
    const names = books.map((b, i) => `b${i}-${b.name.replace(/[^a-z0-9-]/gi, '')}.xlsx`);
    books.forEach((b, i) => writeFileSync(join(src, names[i]), xlsxOf(b)));
    execFileSync(
      SOFFICE,
      [
        `-env:UserInstallation=file://${profile}`,
        '--headless',
        '--convert-to',
        'xlsx:Calc MS Excel 2007 XML',
        '--outdir',
        out,
        ...names.map((n) => join(src, n)),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 },
    );
    return names.map((n) => new Uint8Array(readFileSync(join(out, n))));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
