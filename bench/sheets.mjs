// Spreadsheet conversion over a corpus: every .xlsx of a folder (and its subfolders) is converted
// by the built converter, one child process per workbook (so a slow or huge one is stopped at its
// time limit and the rest carry on). Prints per workbook and overall: formula cells, compiled cells,
// verified cells, seconds and peak MB (the child's peak resident set), and the two figures of the
// acceptance — verified cells over formula cells summed over all cells, and averaged per workbook —
// and the rejection reasons grouped. "Verified" is the report's `verifiedCells` (since issue 39:
// checked after what-if edits too); a report that also counts cells checked only at the stored
// values (a numeric field named like `…Stored…`) has that count printed beside it.
//
//   npm run bench:sheets -- path/to/corpus            # builds first
//   node bench/sheets.mjs path/to/corpus --json       # the same as JSON on stdout
//
// Knobs: BENCH_TIMEOUT_SECONDS (per workbook, default 120), BENCH_TARGET (percent, default 70),
// BENCH_DIST (another build's output folder instead of dist/).
// A workbook refused as a whole (TOO_MANY_CELLS, TIME_LIMIT, …) counts as 0% in the average, and
// its formula cells — counted here from the sheets' XML — count in the summed figure's denominator.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unzipSync } from 'fflate';

const here = fileURLToPath(import.meta.url);

// ---- child: one workbook --------------------------------------------------------------------
if (process.argv[2] === '--one') {
  const file = process.argv[3];
  const dist = process.env.BENCH_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
  const service = pathToFileURL(join(dist, 'service', 'sheet-service.js')).href;
  const { convertSpreadsheetBytes } = await import(service);
  const started = performance.now();
  const result = await convertSpreadsheetBytes(new Uint8Array(readFileSync(file)), basename(file), undefined);
  const ms = performance.now() - started;
  const { spec: _spec, rejectedColumns: _columns, ...rest } = result;
  // maxRSS is in kilobytes on Linux: the child's peak, the conversion's memory and node's own
  const peakMb = process.resourceUsage().maxRSS / 1024;
  // exit once the pipe has the whole answer (a report with its cell map passes the pipe's 64 KB)
  const answer = JSON.stringify({ ...rest, ms, peakMb });
  await new Promise((resolve) => process.stdout.write(answer, resolve));
  process.exit(0);
}

// ---- parent: the corpus ---------------------------------------------------------------------
const args = process.argv.slice(2);
const json = args.includes('--json');
const folder = args.find((a) => !a.startsWith('--'));
if (!folder) {
  process.stderr.write('usage: node bench/sheets.mjs <folder of .xlsx files> [--json]\n');
  process.exit(2);
}
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 120);
const TARGET = Number(process.env.BENCH_TARGET ?? 70);

function workbooks(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...workbooks(path));
    else if (/\.xlsx$/i.test(name) && !name.startsWith('~$')) out.push(path);
  }
  return out;
}

/**
 * The report's count of cells checked only at the workbook's stored values, when the report has one
 * (its name is not settled: any numeric field of the report naming "stored"), else undefined.
 */
function storedOnlyOf(report) {
  if (!report) return undefined;
  const key = Object.keys(report).find((k) => /stored/i.test(k) && typeof report[k] === 'number');
  return key === undefined ? undefined : { key, count: report[key] };
}

function convert(file) {
  const started = performance.now();
  const child = spawnSync(process.execPath, [here, '--one', file], {
    encoding: 'utf8',
    timeout: TIMEOUT_S * 1000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (child.error?.code === 'ETIMEDOUT' || child.signal) {
    return { valid: false, reason: 'TIME_LIMIT', error: `stopped after ${TIMEOUT_S} s`, ms };
  }
  try {
    return JSON.parse(child.stdout);
  } catch {
    const why = child.stderr.trim().split('\n').pop() ?? `exit ${child.status}`;
    return { valid: false, reason: 'INTERNAL_ERROR', error: why, ms };
  }
}

/** Formula cells of a workbook from its sheets' XML (a `<f>` element per formula cell); null if unreadable. */
function countFormulaCells(file) {
  try {
    const parts = unzipSync(new Uint8Array(readFileSync(file)), {
      filter: (f) => /^xl\/worksheets\/[^/]+\.xml$/.test(f.name),
    });
    let n = 0;
    for (const bytes of Object.values(parts)) {
      n += (new TextDecoder().decode(bytes).match(/<(?:\w+:)?f[\s>/]/g) ?? []).length;
    }
    return n;
  } catch {
    return null;
  }
}

const pct = (part, whole) => (whole === 0 ? 0 : (100 * part) / whole);
const fmt = (n) => `${n.toFixed(1)}%`;

const rows = [];
const reasons = new Map();
for (const file of workbooks(folder)) {
  const name = relative(folder, file);
  const r = convert(file);
  const report = r.report;
  const row = {
    workbook: name,
    valid: r.valid,
    reason: r.valid ? undefined : r.reason,
    error: r.valid ? undefined : r.error,
    refusedWhole: !report,
    formulaCells: report?.formulaCells ?? countFormulaCells(file),
    compiledCells: report?.compiledCells ?? 0,
    verifiedCells: report?.verifiedCells ?? 0,
    verifiedPercent: report ? pct(report.verifiedCells, report.formulaCells) : 0,
    storedOnlyCells: storedOnlyOf(report)?.count,
    ms: r.ms === undefined ? null : Math.round(r.ms),
    peakMb: r.peakMb === undefined ? null : Math.round(r.peakMb),
  };
  rows.push(row);
  for (const g of report?.rejected ?? []) {
    const seen = reasons.get(g.reason) ?? { reason: g.reason, count: 0, workbooks: 0, examples: [] };
    seen.count += g.count;
    seen.workbooks++;
    for (const e of g.examples) {
      if (seen.examples.length < 5) seen.examples.push({ workbook: name, ...e });
    }
    reasons.set(g.reason, seen);
  }
  if (!report) {
    const key = `refused: ${r.reason}`;
    const seen = reasons.get(key) ?? { reason: key, count: 0, workbooks: 0, examples: [] };
    seen.workbooks++;
    if (seen.examples.length < 5) seen.examples.push({ workbook: name, message: r.error });
    reasons.set(key, seen);
  }
  if (!json) {
    const stored =
      row.storedOnlyCells === undefined ? '' : `, ${row.storedOnlyCells} checked at stored values only`;
    const what = report
      ? `${report.formulaCells} formula, ${report.compiledCells} compiled, ${report.verifiedCells} verified (${fmt(row.verifiedPercent)})${stored}`
      : `refused ${r.reason}: ${r.error} (${row.formulaCells ?? 'unknown'} formula cells counted from the XML)`;
    const cost = [
      row.ms === null ? '' : `, ${(row.ms / 1000).toFixed(1)} s`,
      row.peakMb === null ? '' : `, peak ${row.peakMb} MB`,
    ].join('');
    process.stdout.write(`${name}: ${what}${cost}\n`);
  }
}

// workbooks without a formula are left out of both figures: there is nothing to compile
const counted = rows.filter((r) => r.formulaCells !== 0);
const formulaCells = counted.reduce((n, r) => n + (r.formulaCells ?? 0), 0);
const compiledCells = counted.reduce((n, r) => n + r.compiledCells, 0);
const verifiedCells = counted.reduce((n, r) => n + r.verifiedCells, 0);
const hasStoredOnly = counted.some((r) => r.storedOnlyCells !== undefined);
const storedOnlyCells = counted.reduce((n, r) => n + (r.storedOnlyCells ?? 0), 0);
const seconds = rows.reduce((n, r) => n + (r.ms ?? 0), 0) / 1000;
const peakMb = rows.reduce((n, r) => Math.max(n, r.peakMb ?? 0), 0);
const summed = pct(verifiedCells, formulaCells);
const averaged =
  counted.length === 0 ? 0 : counted.reduce((n, r) => n + r.verifiedPercent, 0) / counted.length;
const overall = {
  workbooks: rows.length,
  withFormulas: counted.length,
  refused: counted.filter((r) => r.refusedWhole).length,
  formulaCells,
  compiledCells,
  verifiedCells,
  ...(hasStoredOnly ? { storedOnlyCells } : {}),
  seconds: Number(seconds.toFixed(1)),
  peakMb,
  verifiedSummedPercent: Number(summed.toFixed(2)),
  verifiedAveragedPercent: Number(averaged.toFixed(2)),
  target: TARGET,
  met: summed >= TARGET && averaged >= TARGET,
  rejected: [...reasons.values()].sort((a, b) => b.count - a.count || b.workbooks - a.workbooks),
};

if (json) {
  process.stdout.write(`${JSON.stringify({ workbooks: rows, overall }, null, 2)}\n`);
} else {
  process.stdout.write(
    [
      '',
      `${overall.workbooks} workbooks (${overall.withFormulas} counted: all but those without a formula; ${overall.refused} of them refused whole)`,
      `formula cells ${formulaCells}, compiled ${compiledCells}, verified ${verifiedCells}${hasStoredOnly ? `, checked at stored values only ${storedOnlyCells}` : ''}`,
      `seconds ${seconds.toFixed(1)} in all, peak ${peakMb} MB (the largest of one workbook's child)`,
      `verified, summed over all cells:     ${fmt(summed)}  (target ${TARGET}%)`,
      `verified, averaged per workbook:     ${fmt(averaged)}  (target ${TARGET}%)`,
      '',
      'rejections by reason (cells, workbooks):',
      ...overall.rejected.map((g) => {
        const e = g.examples[0];
        const example = e
          ? ` e.g. ${e.workbook}${e.sheet ? ` ${e.sheet}!` : ': '}${e.address ?? ''}${e.formula ? ` ${e.formula}` : ''} — ${e.message}`
          : '';
        return `  ${g.reason}: ${g.count} cells, ${g.workbooks} workbooks.${example}`;
      }),
      '',
    ].join('\n'),
  );
}
process.exitCode = 0;
