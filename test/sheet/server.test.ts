// convert_spreadsheet on the real MCP server: the built CLI (`dist/cli/main.js`; `npm test` builds
// it) over stdio, driven by the official SDK client. The conversion runs in a worker thread within
// the MODELWORKS_SHEET_* budgets, and the server keeps answering whatever a conversion does.
import { spawn } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, root, serverEnv, type CallResult } from '../mcp/helpers/peers.js';
import { workbook, xlsx } from './helpers.js';
import { wideWorkbook } from './wide-workbook.mjs';

interface Server {
  client: Client;
  convert(bytes: Uint8Array, filename?: string): Promise<CallResult>;
}

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function server(env: Record<string, string> = {}): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp'],
    env: { ...(serverEnv as Record<string, string>), ...env },
    cwd: root,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'sheet-tests', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return {
    client,
    convert: async (bytes, filename = 'book.xlsx') =>
      (await client.callTool(
        { name: 'convert_spreadsheet', arguments: { data: Buffer.from(bytes).toString('base64'), filename } },
        { timeout: 120_000 },
      )) as CallResult,
  };
}

const body = (r: CallResult): Record<string, unknown> =>
  JSON.parse(r.content[0]!.text!) as Record<string, unknown>;

// wide workbooks are made and sent here: generous limits, the suite runs files side by side
describe('convert_spreadsheet off the event loop', { timeout: 120_000 }, () => {
  it('a ping sent while a conversion runs is answered before the conversion', async () => {
    const s = await server();
    const order: string[] = [];
    const conversion = s
      .convert(wideWorkbook({ rows: 2000, columns: 20, formulaColumns: 4 }))
      .then((r) => (order.push('conversion'), r));
    // messages are handled in order: once this ping is answered, the server has started the conversion
    await s.client.ping();
    await s.client.ping().then(() => order.push('ping'));
    const result = await conversion;
    expect(order).toEqual(['ping', 'conversion']);
    // its spec is far larger than a result may be: measured in the worker, withheld as before
    expect(result.isError).toBe(true);
    expect(body(result)).toMatchObject({ error: 'Result too large', limitChars: 50_000 });
    expect(body(result).resultChars).toBeGreaterThan(1_000_000);
  });

  it('the 10,000 × 100 workbook of issue 17 is refused by the default cell budget, naming size, limit and setting', async () => {
    const s = await server();
    const result = await s.convert(
      wideWorkbook({ rows: 10_000, columns: 100, formulaColumns: 10 }),
      'wide.xlsx',
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ valid: false, reason: 'TOO_MANY_CELLS' });
    const error = String(result.structuredContent!.error);
    expect(error).toContain("sheet 'Data' alone 1000100, in 10001 rows");
    expect(error).toContain('the limit is 200000 cells');
    expect(error).toContain('MODELWORKS_SHEET_MAX_CELLS');
    expect(error).toContain('modelworks calc from-xlsx');
  });

  it('the cell budget is checked before the sheet is parsed (a sheet broken after its cells is still TOO_MANY_CELLS)', async () => {
    const s = await server({ MODELWORKS_SHEET_MAX_CELLS: '1000' });
    const rows: string[] = [];
    for (let r = 1; r <= 101; r++) {
      const cells = Array.from(
        { length: 20 },
        (_, c) => `<c r="${String.fromCharCode(65 + c)}${r}"><v>${r}</v></c>`,
      );
      rows.push(`<row r="${r}">${cells.join('')}</row>`);
    }
    const broken = xlsx(`${rows.join('')}<row r="102"><c r="A102"`);
    const result = await s.convert(broken);
    expect(result.structuredContent).toMatchObject({ valid: false, reason: 'TOO_MANY_CELLS' });
    expect(String(result.structuredContent!.error)).toContain(
      'alone 2021, in 102 rows); the limit is 1000 cells',
    );
  });

  it('a conversion that outgrows its worker’s memory is refused; the server answers and converts on', async () => {
    const s = await server({
      MODELWORKS_SHEET_WORKER_MEMORY_MB: '32',
      MODELWORKS_SHEET_MAX_CELLS: '1000000',
    });
    const result = await s.convert(wideWorkbook({ rows: 3000, columns: 100, formulaColumns: 10 }));
    expect(result.structuredContent).toMatchObject({ valid: false, reason: 'RESOURCE_LIMIT' });
    expect(String(result.structuredContent!.error)).toContain('32 MB');
    expect(String(result.structuredContent!.error)).toContain('MODELWORKS_SHEET_WORKER_MEMORY_MB');
    await expect(s.client.ping()).resolves.toEqual({});
    const next = await s.convert(workbook('orders.xlsx'), 'orders.xlsx');
    expect(next.structuredContent).toMatchObject({ valid: true });
  });

  it('a bad budget setting stops the server at start-up, naming the setting', async () => {
    const child = spawn(process.execPath, [cli, 'mcp'], {
      cwd: root,
      env: { ...serverEnv, MODELWORKS_SHEET_WORKER_MEMORY_MB: 'lots' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdin.end(); // a server that did start would end with its input
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain(
      "MODELWORKS_SHEET_WORKER_MEMORY_MB must be a whole number from 32 to 65536 (got 'lots')",
    );
  });
});
