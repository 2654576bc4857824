// The what-if verification's independent evaluator (src/sheet/grid/) on a generated table, at two
// sizes: a table of `rows` rows with 4 input columns and 20 formula columns (arithmetic, IF,
// ROUND, a per-row SUMIFS and COUNTIF over the whole table, VLOOKUP into a side table,
// INDEX/MATCH), read, recalculated once, then 3 rounds of edits of every input cell (as
// what-if does). Prints the seconds of each step and the peak heap, for this build and, when
// BENCH_OLD_DIST names another build's dist/ folder, for that build in the same run, with ratios.
//
//   npx tsc -p tsconfig.build.json && BENCH_OLD_DIST=/path/to/old/dist node bench/sheet-grid.mjs
//
// Knobs: BENCH_SIZES (rows, default 1000,5000), BENCH_DIST (this build's dist/), BENCH_OLD_DIST.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { strToU8, zipSync } from 'fflate';

const here = fileURLToPath(import.meta.url);
const letter = (n) => {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};
const esc = (s) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The 20 formula columns (E…X) of row r, over a table of rows 2…last, and the side table Z2:AA21. */
function formulas(r, last) {
  const t = (col) => `$${col}$2:$${col}$${last}`;
  return [
    `C${r}*D${r}`,
    `E${r}*1.1`,
    `SUMIFS(${t('E')},${t('B')},B${r})`,
    `VLOOKUP(B${r},$Z$2:$AA$21,2,FALSE)`,
    `IF(C${r}>50,E${r},0)`,
    `ROUND(F${r},2)`,
    `G${r}/MAX(E${r},1)`,
    `H${r}*C${r}`,
    `COUNTIF(${t('B')},B${r})`,
    `E${r}-I${r}`,
    `IFERROR(E${r}/C${r},0)`,
    `MIN(C${r},D${r})+MAX(C${r},D${r})`,
    `N${r}+O${r}`,
    `INDEX($A$1:$D$${last},ROW(),MATCH("qty",$A$1:$D$1,0))*2`,
    `AND(C${r}>10,D${r}<90)`,
    `IF(S${r},Q${r},R${r})`,
    `ABS(N${r}-M${r})`,
    `SUM(E${r}:F${r})`,
    `U${r}*0.5+L${r}`,
    `LEN(B${r})+V${r}`,
  ];
}

function book(rows) {
  const last = rows + 1;
  const parts = ['<row r="1">'];
  const heads = ['id', 'cat', 'qty', 'price', ...Array.from({ length: 20 }, (_, i) => `f${i + 1}`)];
  heads.forEach((h, i) => parts.push(`<c r="${letter(i + 1)}1" t="inlineStr"><is><t>${h}</t></is></c>`));
  parts.push('</row>');
  for (let r = 2; r <= last; r++) {
    parts.push(`<row r="${r}">`);
    parts.push(`<c r="A${r}"><v>${r - 1}</v></c>`);
    parts.push(`<c r="B${r}" t="inlineStr"><is><t>c${r % 20}</t></is></c>`);
    parts.push(`<c r="C${r}"><v>${(r * 7) % 100}</v></c>`);
    parts.push(`<c r="D${r}"><v>${(r * 13) % 100}</v></c>`);
    formulas(r, last).forEach((f, i) =>
      parts.push(`<c r="${letter(5 + i)}${r}"><f>${esc(f)}</f><v>0</v></c>`),
    );
    if (r <= 21) {
      parts.push(`<c r="Z${r}" t="inlineStr"><is><t>c${r - 2}</t></is></c><c r="AA${r}"><v>${r * 3}</v></c>`);
    }
    parts.push('</row>');
  }
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${parts.join('')}</sheetData></worksheet>`;
  return zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    'xl/workbook.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    'xl/worksheets/sheet1.xml': strToU8(sheet),
  });
}

// ---- child: one build, one size -------------------------------------------------------------
if (process.argv[2] === '--one') {
  const [dist, rows] = [process.argv[3], Number(process.argv[4])];
  const { CellGrid } = await import(pathToFileURL(join(dist, 'sheet', 'grid', 'evaluate.js')).href);
  const { readWorkbookParts } = await import(pathToFileURL(join(dist, 'sheet', 'xlsx.js')).href);
  const { DEFAULT_LIMITS } = await import(pathToFileURL(join(dist, 'sheet', 'errors.js')).href);
  const bytes = book(rows);
  const limits = { maxMillis: 3_600_000, maxEvaluations: 100_000_000 };
  const t0 = performance.now();
  const wb = readWorkbookParts(bytes, DEFAULT_LIMITS);
  const grid = new CellGrid(wb, limits);
  const t1 = performance.now();
  grid.recalculate();
  const t2 = performance.now();
  let checksum = 0;
  for (let round = 0; round < 3; round++) {
    const edits = [];
    for (let r = 2; r <= rows + 1; r++) {
      edits.push({ sheet: 0, row: r, col: 3, value: (r * (round + 3)) % 100 });
      edits.push({ sheet: 0, row: r, col: 4, value: (r * (round + 5)) % 100 });
    }
    checksum += grid.withEdits(edits, () => {
      const v = grid.value(0, rows + 1, 24);
      return typeof v === 'number' ? v : 0;
    });
  }
  const t3 = performance.now();
  const v = grid.value(0, rows + 1, 24);
  process.stdout.write(
    JSON.stringify({
      build: (t1 - t0) / 1000,
      recalc: (t2 - t1) / 1000,
      edits: (t3 - t2) / 1000,
      peakMb: process.resourceUsage().maxRSS / 1024,
      check: [v, checksum],
    }),
  );
  process.exit(0);
}

// ---- parent ---------------------------------------------------------------------------------
const dist = process.env.BENCH_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
const old = process.env.BENCH_OLD_DIST;
const sizes = (process.env.BENCH_SIZES ?? '1000,5000').split(',').map(Number);
const run = (d, rows) => {
  const c = spawnSync(process.execPath, [here, '--one', d, String(rows)], {
    encoding: 'utf8',
    timeout: 1_800_000,
  });
  if (c.status !== 0)
    throw new Error(`${d} at ${rows} rows: ${c.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(c.stdout);
};
const s = (x) => `${x.toFixed(2)} s`;
for (const rows of sizes) {
  const mine = run(dist, rows);
  const line = (name, r) =>
    `  ${name}: read+index ${s(r.build)}, recalculate ${s(r.recalc)}, 3 rounds of edits ${s(r.edits)}, peak ${r.peakMb.toFixed(0)} MB`;
  console.log(`${rows} rows × 24 columns (20 formula columns, ${rows * 20} formula cells)`);
  console.log(line('this build', mine));
  if (old) {
    const theirs = run(old, rows);
    console.log(line('old build ', theirs));
    const agree = JSON.stringify(theirs.check) === JSON.stringify(mine.check);
    const total = (r) => r.build + r.recalc + r.edits;
    console.log(
      `  old / this: recalculate ${(theirs.recalc / mine.recalc).toFixed(1)}x, edits ${(theirs.edits / mine.edits).toFixed(1)}x, all ${(total(theirs) / total(mine)).toFixed(1)}x; peak ${(theirs.peakMb / mine.peakMb).toFixed(1)}x; same values: ${agree}`,
    );
  }
}
