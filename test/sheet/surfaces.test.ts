// The tool and the CLI command around the converter.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerSheetCommands } from '../../src/cli/sheet-commands.js';
import { sheetTools } from '../../src/mcp/sheet-tools.js';
import { convertSpreadsheet, modelIdFromFilename } from '../../src/service/sheet-service.js';
import { cell, workbook, xlsx } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const book = (name: string) => join(here, 'workbooks', name);
const b64 = (name: string) => Buffer.from(workbook(name)).toString('base64');
const ctx = { signal: new AbortController().signal };

/** A workbook none of whose formulas compiles (two unsupported functions), written by hand. */
const NOTHING = xlsx(
  cell.row(
    1,
    cell.text('A1', 'Item'),
    cell.text('B1', 'Qty'),
    cell.text('C1', 'Root'),
    cell.text('D1', 'Moved'),
  ) +
    [2, 3]
      .map((r) =>
        cell.row(
          r,
          cell.text(`A${r}`, `i${r}`),
          cell.num(`B${r}`, 4),
          cell.formula(`C${r}`, `GAMMALN(B${r})`, 1.791759469228055),
          cell.formula(`D${r}`, `OFFSET(B${r},0,0)`, 4),
        ),
      )
      .join(''),
);
const nothingFile = (): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'modelworks-sheet-')), 'nothing.xlsx');
  writeFileSync(file, NOTHING);
  return file;
};

describe('convert_spreadsheet tool', () => {
  const tool = sheetTools().find((t) => t.name === 'convert_spreadsheet')!;

  it('is listed read-only with its arguments', () => {
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(tool.inputSchema).toMatchObject({ required: ['data'] });
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(['data', 'filename', 'modelId']);
  });

  it('returns {valid:true, spec, rejectedColumns} and registers nothing', async () => {
    const r = await tool.run(
      { data: b64('rejections.xlsx'), filename: 'rejections.xlsx', modelId: 'acme/items' },
      ctx,
    );
    expect(r.isError).toBeUndefined();
    const s = r.structuredContent as { valid: boolean; spec: { id: string }; rejectedColumns: unknown[] };
    expect(s.valid).toBe(true);
    expect(s.spec.id).toBe('acme/items');
    expect(s.rejectedColumns).toHaveLength(5); // the scalar array formula, the running, non-uniform and approximate-VLOOKUP columns compile
  });

  it('returns {valid:false, reason, error} for refused files and when every column fails', async () => {
    const notXlsx = await tool.run(
      { data: Buffer.from('just text').toString('base64'), filename: 'a.xlsx' },
      ctx,
    );
    expect(notXlsx.structuredContent).toMatchObject({ valid: false, reason: 'UNSUPPORTED_FORMAT' });
    const none = await tool.run(
      { data: Buffer.from(NOTHING).toString('base64'), filename: 'nothing.xlsx' },
      ctx,
    );
    expect(none.structuredContent).toMatchObject({ valid: false, reason: 'UNSUPPORTED_FUNCTION' });
    expect((none.structuredContent as { error: string }).error).toContain(
      'none of the 4 formula cells compiled; the most frequent reason, UNSUPPORTED_FUNCTION (4 cells)',
    );
    // the report comes with the refusal: what was found, and why nothing compiled
    expect(none.structuredContent).toMatchObject({
      report: {
        formulaCells: 4,
        compiledCells: 0,
        verifiedCells: 0,
        sheets: [{ name: 'Sheet1', formulaCells: 4, compiledCells: 0 }],
        rejected: [{ reason: 'UNSUPPORTED_FUNCTION', count: 4 }],
      },
    });
  });

  it('refuses bad arguments without throwing', async () => {
    expect(await convertSpreadsheet({ data: 42 })).toMatchObject({
      valid: false,
      reason: 'INVALID_ARGUMENT',
    });
    expect(await convertSpreadsheet({ data: '***' })).toMatchObject({
      valid: false,
      reason: 'INVALID_ARGUMENT',
    });
    expect(await convertSpreadsheet({ data: b64('orders.xlsx'), modelId: '9 bad' })).toMatchObject({
      valid: false,
      reason: 'INVALID_ARGUMENT',
    });
    expect(modelIdFromFilename('C:\\work\\Q3 budget.xlsx')).toBe('Q3-budget');
    expect(modelIdFromFilename('2024.xlsx')).toBe('spreadsheet');
  });
});

describe('modelworks calc from-xlsx', () => {
  let out = '';
  let err = '';
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });
  async function run(...args: string[]): Promise<number> {
    out = '';
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation(
      (s: string | Uint8Array) => ((out += String(s)), true),
    );
    vi.spyOn(process.stderr, 'write').mockImplementation(
      (s: string | Uint8Array) => ((err += String(s)), true),
    );
    const program = new Command().exitOverride();
    registerSheetCommands(program.command('calc'));
    await program.parseAsync(['node', 'modelworks', 'calc', 'from-xlsx', ...args]);
    vi.restoreAllMocks();
    const code = Number(process.exitCode ?? 0);
    process.exitCode = undefined;
    return code;
  }

  it('prints the spec, lists rejected columns on stderr, exits 1 (0 with --allow-rejected)', async () => {
    expect(await run(book('rejections.xlsx'), '--allow-rejected')).toBe(0);
    expect(await run(book('rejections.xlsx'))).toBe(1);
    const spec = JSON.parse(out) as { id: string; derivations: unknown[] };
    expect(spec.id).toBe('rejections');
    expect(spec.derivations).toHaveLength(15); // 10 columns, the 4 cells of the non-uniform one, a lookup index
    expect(err).toContain('rejected Loop a (R, 4 cells): CIRCULAR_REFERENCE');
    // the approximate VLOOKUP column (4 cells) reads its lookup block in place (a model input,
    // through MATCH) and agrees with the independent evaluator after the what-if edits
    expect(err).toContain('rejections.xlsx: 64 formula cells, 44 compiled, 44 verified (69%)\n');
  });

  it('--json prints the whole result with its report (without the spec when --output has it)', async () => {
    expect(await run(book('orders.xlsx'), '--json')).toBe(0);
    const result = JSON.parse(out) as { valid: boolean; spec: { id: string }; report: unknown };
    expect(result).toMatchObject({
      valid: true,
      spec: { id: 'orders' },
      rejectedColumns: [],
      report: { formulaCells: 10, compiledCells: 10, verifiedCells: 10, rejected: [] },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'modelworks-sheet-')), 'spec.json');
    expect(await run(nothingFile(), '--json', '--output', file)).toBe(1);
    expect(JSON.parse(out)).toMatchObject({ valid: false, report: { compiledCells: 0 } });
  });

  it('writes --output and takes --model-id', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'modelworks-sheet-')), 'spec.json');
    expect(await run(book('orders.xlsx'), '--model-id', 'shop/orders', '--output', file)).toBe(0);
    expect(out).toBe('');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ id: 'shop/orders' });
    expect(err).toContain('4 computed fields, 0 rejected');
  });

  it('exits 1 for an invalid workbook and 2 for an unreadable path', async () => {
    expect(await run(book('not-xlsx.ods'))).toBe(1);
    expect(err).toContain('UNSUPPORTED_FORMAT');
    expect(await run(nothingFile())).toBe(1);
    const missing = join(tmpdir(), 'no-such-book.xlsx');
    expect(await run(missing)).toBe(2);
    expect(err).toContain('cannot read');
    const text = join(mkdtempSync(join(tmpdir(), 'modelworks-sheet-')), 'fake.xlsx');
    writeFileSync(text, 'a,b\n1,2\n');
    expect(await run(text)).toBe(1);
  });
});
