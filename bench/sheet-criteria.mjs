// Per-row conditional aggregates over one table (issue 39): a generated workbook of ROWS rows with
// two SUMIFS columns per row, one by order (`=SUMIFS($C$2:$C$N,$A$2:$A$N,">"&A2)`) and one by key
// (`=SUMIFS($C$2:$C$N,$B$2:$B$N,B2)`), the shape of a real workbook that took 440 s and compiled
// nothing; then a running count (`=COUNTIF($B$2:B2,B2)`) and a rank (`=RANK(C2,$C$2:$C$N)`), each a
// scan of the column from every row until they read sorted entries. Stored values are worked out here in plain arithmetic (rows in date order, as a ledger
// is). Prints the conversion's seconds and outcome, then the model's recalculation after one edit.
//
//   npx tsc -p tsconfig.build.json && node bench/sheet-criteria.mjs            # 1,232 rows
//   BENCH_ROWS=2464 node bench/sheet-criteria.mjs
//   BENCH_SHEET=<another build's dist/sheet/index.js> node bench/sheet-criteria.mjs   # code before a change
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { strToU8, zipSync } from 'fflate';

const ROWS = Number(process.env.BENCH_ROWS ?? 1232);
const sheetModule = process.env.BENCH_SHEET ?? new URL('../dist/sheet/index.js', import.meta.url).href;
const { convertWorkbook } = await import(
  sheetModule.startsWith('/') ? pathToFileURL(sheetModule).href : sheetModule
);
const { compileModel, ModelRuntime, normalizeSpec } = await import(
  new URL('../dist/calc/index.js', import.meta.url).href
);

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const last = ROWS + 1;
const days = Array.from({ length: ROWS }, (_, i) => 45000 + Math.floor(i / 3)); // three rows a day
const keys = Array.from({ length: ROWS }, (_, i) => `acct ${(i * 7) % 23}`);
const amounts = Array.from({ length: ROWS }, (_, i) => ((i * 37) % 101) - 20);
const above = days.map((d) => days.reduce((s, e, j) => (e > d ? s + amounts[j] : s), 0));
const byKey = keys.map((k) => keys.reduce((s, e, j) => (e === k ? s + amounts[j] : s), 0));
const seen = keys.map((k, i) => keys.slice(0, i + 1).filter((e) => e === k).length);
const rank = amounts.map((a) => 1 + amounts.filter((e) => e > a).length);

const cells = (r, ...xs) => `<row r="${r}">${xs.join('')}</row>`;
const t = (ref, s) => `<c r="${ref}" t="inlineStr"><is><t>${esc(s)}</t></is></c>`;
const n = (ref, v) => `<c r="${ref}"><v>${v}</v></c>`;
const f = (ref, expr, v) => `<c r="${ref}"><f>${esc(expr)}</f><v>${v}</v></c>`;
const rows = [
  cells(
    1,
    t('A1', 'Date'),
    t('B1', 'Account'),
    t('C1', 'Amount'),
    t('D1', 'Later'),
    t('E1', 'Account total'),
    t('F1', 'Seen'),
    t('G1', 'Rank'),
  ),
];
for (let i = 0; i < ROWS; i++) {
  const r = i + 2;
  rows.push(
    cells(
      r,
      n(`A${r}`, days[i]),
      t(`B${r}`, keys[i]),
      n(`C${r}`, amounts[i]),
      f(`D${r}`, `SUMIFS($C$2:$C$${last},$A$2:$A$${last},">"&A${r})`, above[i]),
      f(`E${r}`, `SUMIFS($C$2:$C$${last},$B$2:$B$${last},B${r})`, byKey[i]),
      f(`F${r}`, `COUNTIF($B$2:B${r},B${r})`, seen[i]),
      f(`G${r}`, `RANK(C${r},$C$2:$C$${last})`, rank[i]),
    ),
  );
}
const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.join('')}</sheetData></worksheet>`;
const bytes = zipSync({
  '[Content_Types].xml': strToU8(
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
  ),
  'xl/workbook.xml': strToU8(
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Ledger" sheetId="1" r:id="rId1"/></sheets></workbook>',
  ),
  'xl/_rels/workbook.xml.rels': strToU8(
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  ),
  'xl/worksheets/sheet1.xml': strToU8(sheet),
});

if (process.env.BENCH_TIMEOUT_MS)
  (await import(new URL('../dist/calc/index.js', import.meta.url).href)).configureExpressionLimits({
    timeoutMs: Number(process.env.BENCH_TIMEOUT_MS),
  });
const started = performance.now();
const c = await convertWorkbook(bytes, { modelId: 'ledger' });
const seconds = (performance.now() - started) / 1000;
const { formulaCells, compiledCells, verifiedCells, rejected } = c.report;
console.log(
  `${ROWS} rows, ${2 * ROWS} SUMIFS, ${ROWS} running counts, ${ROWS} ranks: converted in ${seconds.toFixed(1)} s; formula cells ${formulaCells}, compiled ${compiledCells}, verified ${verifiedCells}` +
    (rejected.length
      ? `; rejected: ${rejected.map((g) => `${g.reason} ×${g.count} (${g.examples[0]?.message})`).join('; ')}`
      : ''),
);
if (verifiedCells > 0) {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(c.spec.tests[0].given);
  const t0 = performance.now();
  await runtime.mutate({ '$.rows[0].amount': 1000 });
  const state = await runtime.getState();
  const edit = performance.now() - t0;
  const want = byKey[0] - amounts[0] + 1000;
  console.log(
    `one edit recalculated in ${(edit / 1000).toFixed(2)} s; row 1's account total ${state.rows[0].account_total} (expected ${want})`,
  );
}
