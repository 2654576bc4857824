#!/usr/bin/env node
// Builds the test workbooks of test/sheet/workbooks/ and has LibreOffice recalculate them.
//
// Each workbook is first written here with formulas only (no stored results), then opened by
// headless LibreOffice Calc with "recalculate on load: always" and saved again as .xlsx: every
// stored value in the committed files is the spreadsheet's own calculation, never ours.
//
//   apt-get install -y libreoffice-calc   # once
//   node test/sheet/make-workbooks.mjs    # rewrites test/sheet/workbooks/*
//
// The generated files are committed beside this script; CI does not run LibreOffice. The committed
// ones were made with LibreOffice 7.4.7.2 (Debian bookworm's libreoffice-calc).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, zipSync } from 'fflate';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, 'workbooks');

// ---- the workbooks ---------------------------------------------------------------------------
// A sheet is { name, rows: [[A1, B1, …], [A2, …]], cells: { Z1: … } }. A string starting with
// '=' is a formula, { array: 'B2*C2' } a legacy array (CSE) formula, null a blank cell.

const table = (header, inputs, formulas) => [
  header,
  ...inputs.map((row, i) => [
    ...row,
    ...formulas.map((f) => (typeof f === 'function' ? f(i + 2) : f.replace(/#/g, String(i + 2)))),
  ]),
];

const functions = {
  name: 'functions',
  sheets: [
    {
      name: 'Fruit',
      rows: table(
        [
          'Name',
          'Qty',
          'Price',
          'Rate',
          'Member',
          'Code',
          'Subtotal',
          'Half round',
          'Abs qty',
          'Row sum',
          'Row average',
          'Row min',
          'Row max',
          'Number count',
          'Flag',
          'Not member',
          'Label',
          'Tail',
          'Name length',
          'Is code A',
          'Power',
          'Category',
          'Share',
        ],
        [
          ['  apple  pie ', 3, 2.5, 0.125, true, 'A'],
          ['Banana', 10, 0.35, 0.2, false, 'B'],
          ['cherry', 0, 12, 0.5, true, 'C'],
          ['Date Fig', 7, 1.005, 0, false, 'a'],
          ['elder', -4, 2.675, 0.33, true, 'B'],
        ],
        [
          '=ROUND(B#*C#,2)',
          '=ROUND((B#-1)/2,0)',
          '=ABS(B#)',
          '=SUM(B#:D#)',
          '=AVERAGE(B#,C#,D#)',
          '=MIN(B#:D#)',
          '=MAX(B#,C#*2)',
          '=COUNT(A#:D#)',
          '=IF(AND(B#>0,OR(E#,C#>10)),"yes","no")',
          '=NOT(E#)',
          '=CONCATENATE(UPPER(LEFT(TRIM(A#),3)),"-",F#)',
          '=RIGHT(TRIM(A#),2)&LOWER(MID(A#,3,4))',
          '=LEN(A#)',
          '=F#="a"',
          '=B#^2+D#*100%-(-C#)',
          '=VLOOKUP(F#,$Z$2:$AA$4,2,FALSE)',
          '=IF($AD$2=0,0,ROUND(B#*C#/$AD$2,4))',
        ],
      ),
      cells: {
        Z1: 'Code',
        AA1: 'Category',
        Z2: 'A',
        AA2: 'Pome',
        Z3: 'B',
        AA3: 'Tropical',
        Z4: 'C',
        AA4: 'Stone',
        AC2: 'Revenue',
        AD2: '=SUMPRODUCT($B$2:$B$6,$C$2:$C$6)',
        AC3: 'Total qty',
        AD3: '=SUM($B$2:$B$6)',
        AC4: 'Average price',
        AD4: '=AVERAGE($C$2:$C$6)',
        AC5: 'Qty count',
        AD5: '=COUNT($B:$B)',
        AC6: 'Max rate',
        AD6: '=MAX($D$2:$D$6)',
        AC7: 'Min price',
        AD7: '=MIN($C$2:$C$6)',
        AC8: 'Doubled revenue',
        AD8: '=AD2*2',
      },
    },
  ],
};

const orders = {
  name: 'orders',
  sheets: [
    {
      name: 'Orders',
      rows: table(
        ['Product', 'Qty', 'Unit price', 'Line total', 'With VAT', 'Summary'],
        [
          ['Widget', 4, 2.5],
          ['Gadget', 1, 19.99],
          ['Sprocket', 12, 0.75],
        ],
        ['=B#*C#', '=ROUND(D#*1.2,2)', '=A#&" x"&B#'],
      ),
      cells: { H1: 'Revenue', H2: '=SUMPRODUCT($B$2:$B$4,$C$2:$C$4)' },
    },
  ],
};

const rejections = {
  name: 'rejections',
  sheets: [
    {
      name: 'Items',
      rows: table(
        [
          'Item',
          'Qty',
          'Price',
          'Extra',
          'Good',
          'Root',
          'Position',
          'Approx',
          'Cross sheet',
          'Running',
          'Array',
          'Non uniform',
          'Param',
          'Array constant',
          'Per unit',
          'Root plus one',
          'Row average',
          'Loop a',
          'Loop b',
          'Shout',
        ],
        [
          ['pen', 1, 2, 1],
          ['ink', 0, 3, null],
          ['cap', 4, 5, 2],
          ['box', 9, 7, null],
        ],
        [
          '=B#*C#',
          '=SQRT(B#)',
          '=MATCH(A#,$X$2:$X$5,0)',
          '=VLOOKUP(A#,$X$2:$Y$5,2)',
          '=B#*Rates!$A$1',
          '=SUM($B$2:B#)',
          (r) => ({ array: `B${r}*C${r}` }),
          (r) => `=B${r}*${r}`,
          '=B#*$AA$1',
          '=B#+SUM({1,2})',
          '=C#/B#',
          '=F#+1',
          '=AVERAGE(B#:D#)',
          '=S#+1',
          '=R#+1',
          '=UPPER(A#)&"!"',
        ],
      ),
      cells: {
        X1: 'Item',
        Y1: 'Tag',
        X2: 'box',
        Y2: 'b',
        X3: 'cap',
        Y3: 'c',
        X4: 'ink',
        Y4: 'i',
        X5: 'pen',
        Y5: 'p',
        Z1: 'Markup',
        AA1: 1.1,
      },
    },
    { name: 'Rates', rows: [[2]] },
  ],
};

const allRejected = {
  name: 'all-rejected',
  sheets: [
    {
      name: 'Data',
      rows: table(
        ['Item', 'Qty', 'Root', 'Position'],
        [
          ['a', 4],
          ['b', 9],
        ],
        ['=SQRT(B#)', '=HLOOKUP(A#,$F$1:$G$2,2,FALSE)'],
      ),
      cells: { F1: 'a', G1: 'b', F2: 1, G2: 2 },
    },
  ],
};

const manyColumns = {
  name: 'too-many-columns',
  sheets: [
    {
      name: 'Wide',
      rows: [Array.from({ length: 101 }, (_, i) => `c${i + 1}`), Array.from({ length: 101 }, (_, i) => i)],
    },
  ],
};

const manyRows = {
  name: 'too-many-rows',
  sheets: [
    {
      name: 'Long',
      rows: table(
        ['n', 'twice'],
        Array.from({ length: 10_001 }, (_, i) => [i]),
        ['=A#*2'],
      ),
    },
  ],
};

const empty = { name: 'no-table', sheets: [{ name: 'Notes', rows: [], cells: { C3: 'nothing in A1' } }] };

const WORKBOOKS = [functions, orders, rejections, allRejected, manyColumns, manyRows, empty];

// ---- a minimal .xlsx writer (formulas without results) ----------------------------------------

const esc = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const letter = (n) => {
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
  if (typeof v === 'object') return `<c r="${ref}"><f t="array" ref="${ref}">${esc(v.array)}</f></c>`;
  if (typeof v === 'string' && v.startsWith('=')) return `<c r="${ref}"><f>${esc(v.slice(1))}</f></c>`;
  if (typeof v === 'string')
    return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`;
  if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  return `<c r="${ref}"><v>${v}</v></c>`;
}

function sheetXml(sheet) {
  const rows = new Map();
  sheet.rows.forEach((values, i) =>
    values.forEach((v, j) => {
      if (!rows.has(i + 1)) rows.set(i + 1, new Map());
      rows.get(i + 1).set(j + 1, v);
    }),
  );
  for (const [ref, v] of Object.entries(sheet.cells ?? {})) {
    const { row, col } = split(ref);
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row).set(col, v);
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

function xlsx(book) {
  const files = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${book.sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${book.sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${book.sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
  };
  book.sheets.forEach((s, i) => (files[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(s)));
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));
}

// ---- recalculation by LibreOffice ------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), 'modelworks-workbooks-'));
try {
  const src = join(work, 'src');
  const out = join(work, 'out');
  const profile = join(work, 'profile');
  mkdirSync(src);
  mkdirSync(out);
  mkdirSync(join(profile, 'user'), { recursive: true });
  // recalculate every formula on load (the sources carry no results anyway)
  writeFileSync(
    join(profile, 'user', 'registrymodifications.xcu'),
    `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`,
  );
  for (const book of WORKBOOKS) writeFileSync(join(src, `${book.name}.xlsx`), xlsx(book));
  const soffice = (format, files) =>
    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${profile}`,
        '--headless',
        '--convert-to',
        format,
        '--outdir',
        out,
        ...files,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 },
    );
  soffice(
    'xlsx:Calc MS Excel 2007 XML',
    WORKBOOKS.map((b) => join(src, `${b.name}.xlsx`)),
  );
  // an OpenDocument spreadsheet: a zip archive that is not an .xlsx
  soffice('ods', [join(src, 'orders.xlsx')]);
  renameSync(join(out, 'orders.ods'), join(out, 'not-xlsx.ods'));
  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(out)) renameSync(join(out, name), join(outDir, name));
  console.log(`wrote ${readdirSync(outDir).sort().join(', ')} to ${outDir}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
