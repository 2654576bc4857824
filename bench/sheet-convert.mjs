// convert_spreadsheet on a shared MCP server: the server (`node dist/cli/main.js mcp`) runs as a
// child over stdio; one client sends a wide workbook (10,000 rows × 100 columns by default, 10 of
// them formula columns) and pings every ~20 ms until the conversion answers. Prints the server's
// peak RSS (VmHWM of /proc/<pid>/status: the worker threads are in the same process), the ping
// round trips during the conversion (worst, median, count) and the conversion's outcome and time.
//
//   npx tsc -p tsconfig.build.json && node bench/sheet-convert.mjs
//   BENCH_MODE=cli node bench/sheet-convert.mjs   # the CLI instead, on two sizes (see cliBench)
//
// Knobs: BENCH_ROWS, BENCH_COLUMNS, BENCH_FORMULA_COLUMNS (the workbook); BENCH_CLI (another build's
// dist/cli/main.js, e.g. to measure the code before a change); MODELWORKS_SHEET_* pass through
// to the server (e.g. MODELWORKS_SHEET_MAX_CELLS=2000000 to convert past the default cell budget).
// In CLI mode MODELWORKS_FROM_XLSX_MEMORY_MB passes through to from-xlsx (its worker's heap cap,
// 400 MB by default; 0 converts in the command's own thread, uncapped).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { wideWorkbook } from '../test/sheet/wide-workbook.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const COLUMNS = Number(process.env.BENCH_COLUMNS ?? 100);
const FORMULA_COLUMNS = Number(process.env.BENCH_FORMULA_COLUMNS ?? 10);
const PING_EVERY_MS = 20;
const BASELINE_MS = 3000;

const status = (pid, field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
const mb = (n) => `${n.toFixed(0)} MB`;
const ms = (n) => `${n.toFixed(1)} ms`;

/**
 * BENCH_MODE=cli: `modelworks calc from-xlsx` on two sizes of the wide workbook (BENCH_CLI_SIZES,
 * rows×columns, default 2000x100 and 10000x100), each in its own process: wall seconds, peak RSS
 * (VmHWM, read every 50 ms while it runs) and the summary line it prints. Progress lines go to
 * stderr as a pipe would see them (plain lines past 2 s).
 */
async function cliBench() {
  const sizes = (process.env.BENCH_CLI_SIZES ?? '2000x100,10000x100')
    .split(',')
    .map((s) => s.split('x').map(Number));
  const dir = mkdtempSync(join(tmpdir(), 'bench-sheet-'));
  try {
    for (const [rows, columns] of sizes) {
      const book = join(dir, `wide-${rows}x${columns}.xlsx`);
      writeFileSync(book, wideWorkbook({ rows, columns, formulaColumns: FORMULA_COLUMNS }));
      const started = performance.now();
      const child = spawn(
        process.execPath,
        [cli, 'calc', 'from-xlsx', book, '--output', join(dir, 'spec.json')],
        {
          cwd: root,
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      let peak = 0;
      const poll = setInterval(() => {
        try {
          // NaN once the process is a zombie (its status has no memory lines left)
          const hwm = status(child.pid, 'VmHWM');
          if (Number.isFinite(hwm)) peak = Math.max(peak, hwm);
        } catch {
          // the process has just exited
        }
      }, 50);
      const code = await new Promise((resolve) => child.on('exit', resolve));
      clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      const lines = stderr.trim().split('\n');
      console.log(
        `from-xlsx ${rows} x ${columns} (${FORMULA_COLUMNS} formula columns): exit ${code}, ${seconds.toFixed(1)} s, peak RSS ${mb(peak)}`,
      );
      console.log(`  ${lines.filter((l) => /formula cells|sheets read/.test(l)).join('\n  ')}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_MODE === 'cli') {
  await cliBench();
  process.exit(0);
}

const bytes = wideWorkbook({ rows: ROWS, columns: COLUMNS, formulaColumns: FORMULA_COLUMNS });
const data = Buffer.from(bytes).toString('base64');

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli, 'mcp'],
  cwd: root,
  env: { ...process.env, MODELWORKS_STORE: 'memory' },
  stderr: 'inherit',
});
const client = new Client({ name: 'bench-sheet', version: '1.0.0' });
await client.connect(transport);
await client.listTools();
const pid = transport.pid;
const idleRss = status(pid, 'VmRSS');

/** Pings every PING_EVERY_MS while `busy()`; their round trips. */
async function pingWhile(busy) {
  const out = [];
  while (busy()) {
    const sent = performance.now();
    await client.ping();
    out.push(performance.now() - sent);
    const wait = PING_EVERY_MS - (performance.now() - sent);
    if (wait > 0 && busy()) await new Promise((r) => setTimeout(r, wait));
  }
  return out;
}

// the baseline: the same pings to the idle server, in this run (the machine may be busy)
const baselineEnd = performance.now() + BASELINE_MS;
const baseline = await pingWhile(() => performance.now() < baselineEnd);

const started = performance.now();
const call = client.callTool(
  { name: 'convert_spreadsheet', arguments: { data, filename: 'wide.xlsx' } },
  { timeout: 900_000 },
);
let done = false;
let elapsed = NaN;
const finished = call.then((r) => {
  done = true;
  elapsed = performance.now() - started;
  return r;
});
// the first ping travels behind the request's own bytes on the same pipe: its time is the upload
// and the server reading the request, reported apart from the pings during the conversion
const first = performance.now();
await client.ping();
const behindUpload = performance.now() - first;
// a ping sent during the conversion counts, even when its answer comes after the result
const pings = await pingWhile(() => !done);
const result = await finished;
const peak = status(pid, 'VmHWM');
await client.close();

const text = result.content[0]?.text ?? '';
let outcome;
try {
  const body = JSON.parse(text);
  if (body.error === 'Result too large')
    outcome = `result too large to return (${body.resultChars} characters)`;
  else if (body.valid === false) outcome = `refused ${body.reason}: ${body.error}`;
  else if (body.valid === true) outcome = `converted: ${body.spec.derivations.length} derivations`;
  else outcome = text.slice(0, 200);
} catch {
  outcome = text.slice(0, 200);
}
const spread = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
  return `worst ${ms(sorted.at(-1) ?? NaN)}, median ${ms(median)}, ${list.length} pings`;
};

console.log(
  `workbook        ${ROWS} rows × ${COLUMNS} columns (${FORMULA_COLUMNS} formula), ${bytes.length} bytes`,
);
console.log(`server          ${cli}`);
console.log(`outcome         ${outcome}`);
console.log(`conversion      ${ms(elapsed)}`);
console.log(`server RSS      idle ${mb(idleRss)}, peak (VmHWM) ${mb(peak)}`);
console.log(`first ping      ${ms(behindUpload)} (sent right behind the request, so behind its upload)`);
console.log(`pings after it  ${spread(pings)} (every ${PING_EVERY_MS} ms until the result)`);
console.log(
  `idle baseline   ${spread(baseline)} (the same pings for ${BASELINE_MS / 1000} s before the request)`,
);
