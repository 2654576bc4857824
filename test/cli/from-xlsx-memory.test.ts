// `calc from-xlsx` converts in a worker thread with a capped heap (issue 39 point 6: a 10,000 × 100
// workbook under ~500 MB): the spec and the report are those of an uncapped conversion in the
// command's own thread, progress still reaches stderr from the worker, a workbook that needs more
// than the cap is converted again uncapped (and stderr says so), and a bad cap is a usage error.
// Child processes on dist/cli/main.js (`npx tsc -p tsconfig.build.json` first).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type CliResult } from './cli-process.js';
import { wideWorkbook } from '../sheet/wide-workbook.mjs';

const ROWS = 2_000;
const FORMULA_CELLS = ROWS * 10;
const REPORT = new RegExp(
  `: ${FORMULA_CELLS} formula cells, ${FORMULA_CELLS} compiled, ${FORMULA_CELLS} verified \\(100%\\)`,
);
const FALLBACK =
  /the conversion needed more than its (\d+) MB heap \(--memory-mb, MODELWORKS_FROM_XLSX_MEMORY_MB\); converting again without a cap/;

let dir: string;
let book: string;
let uncapped: Converted;

/** A run's exit and stderr, and the spec it wrote (the spec is too large for a child's stdout buffer). */
interface Converted extends CliResult {
  spec: string;
}

let runs = 0;
const convert = (args: string[], env: Record<string, string> = {}): Converted => {
  const output = join(dir, `spec-${++runs}.json`);
  const result = run(['calc', 'from-xlsx', book, '--output', output, ...args], {
    env: { MODELWORKS_FROM_XLSX_MEMORY_MB: '', ...env },
  });
  return { ...result, spec: existsSync(output) ? readFileSync(output, 'utf8') : '' };
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'from-xlsx-memory-'));
  book = join(dir, 'wide.xlsx');
  // 2,000 rows × 60 columns, 10 of them formula columns: long enough (a few seconds) to show progress
  writeFileSync(book, wideWorkbook({ rows: ROWS, columns: 60, formulaColumns: 10 }));
  uncapped = convert(['--memory-mb', '0']);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('calc from-xlsx in a capped worker', { timeout: 240_000 }, () => {
  it('converts in this thread with --memory-mb 0: the reference run', () => {
    expect(uncapped.code).toBe(0);
    expect(uncapped.stderr).toMatch(REPORT);
    expect(JSON.parse(uncapped.spec)).toMatchObject({ id: 'wide' });
  });

  it('gives the same spec, report and exit in a worker capped by default, with progress from the worker', () => {
    const capped = convert([]);
    expect(capped.code).toBe(0);
    expect(capped.spec).toBe(uncapped.spec);
    expect(capped.stderr).toMatch(REPORT);
    expect(capped.stderr).not.toMatch(FALLBACK);
    // the worker's progress reaches stderr (plain lines: stderr is a pipe here)
    expect(capped.stderr).toMatch(/wide\.xlsx: [\d,]+ of 20,000 formula cells checked after what-if edits/);
  });

  it('converts again uncapped, and says so, when the worker runs out of its heap', () => {
    const tiny = convert([], { MODELWORKS_FROM_XLSX_MEMORY_MB: '32' });
    expect(tiny.stderr).toMatch(FALLBACK);
    expect(FALLBACK.exec(tiny.stderr)![1]).toBe('32');
    expect(tiny.code).toBe(0);
    expect(tiny.spec).toBe(uncapped.spec);
    expect(tiny.stderr).toMatch(REPORT);
  });

  it('takes --memory-mb before the environment, and refuses a cap that is not a number of MB', () => {
    const bad = convert(['--memory-mb', '12'], { MODELWORKS_FROM_XLSX_MEMORY_MB: '400' });
    expect(bad.code).toBe(2);
    expect(bad.spec).toBe('');
    expect(bad.stderr).toMatch(
      /--memory-mb must be 0 \(no worker, no cap\) or a whole number of MB from 32 to 65536 \(got '12'\)/,
    );
    const env = convert([], { MODELWORKS_FROM_XLSX_MEMORY_MB: 'lots' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/MODELWORKS_FROM_XLSX_MEMORY_MB must be 0 .*\(got 'lots'\)/);
  });
});
