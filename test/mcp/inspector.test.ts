// A scripted session through the MCP Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3), as
// the README shows it: tools/list and tools/call against `node dist/cli/main.js mcp`. The CLI must
// run from a subdirectory (it reads ../package.json relative to its cwd), and exits 0 even for an
// isError result, so these tests read its JSON output.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, root, serverEnv } from './helpers/peers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const require = createRequire(import.meta.url);
const pkgJson = require.resolve('@modelcontextprotocol/inspector-cli/package.json');
const pkg = require(pkgJson) as { bin: string | Record<string, string> };
const inspectorBin = join(
  dirname(pkgJson),
  typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin['mcp-inspector-cli'] ?? Object.values(pkg.bin)[0]!),
);

function inspector(...args: string[]): Promise<{ code: number | null; json: Json; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      // -e: the inspector passes only a default environment on to the server child
      [inspectorBin, '--cli', '-e', 'MODELWORKS_STORE=memory', process.execPath, cli, 'mcp', ...args],
      { cwd: join(root, 'test'), timeout: 60_000, maxBuffer: 16 * 1024 * 1024, env: serverEnv },
      (err, stdout, stderr) => {
        try {
          resolve({
            code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
            json: JSON.parse(stdout) as Json,
            stderr,
          });
        } catch {
          reject(new Error(`inspector printed no JSON (${err?.message ?? 'exit 0'}): ${stdout}\n${stderr}`));
        }
      },
    );
  });
}

describe('MCP Inspector CLI, scripted', () => {
  it('tools/list shows every tool with its annotations', async () => {
    const { code, json } = await inspector('--method', 'tools/list');
    expect(code).toBe(0);
    const names = (json.tools as Json[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['create_model', 'mutate', 'get_state', 'eval_expression']));
    const evalTool = (json.tools as Json[]).find((t) => t.name === 'eval_expression')!;
    expect(evalTool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
  });

  it('tools/call eval_expression returns the text block and structuredContent', async () => {
    const { code, json } = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'eval_expression',
      '--tool-arg',
      'expr="price * qty"',
      '--tool-arg',
      'input={"price":10,"qty":3}',
    );
    expect(code).toBe(0);
    expect(json.isError ?? false).toBe(false);
    expect(json.structuredContent).toEqual({ ok: true, undefined: false, result: 30 });
    expect(JSON.parse((json.content as Json[])[0]!.text as string)).toEqual(json.structuredContent);
  });

  it('tools/call reports a tool error in the JSON, not the exit code', async () => {
    const { code, json } = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'get_state',
      '--tool-arg',
      'id="ghost"',
    );
    expect(code).toBe(0);
    expect(json.isError).toBe(true);
    expect((json.content as Json[])[0]!.text).toBe('Model not found: ghost');
  });
});
