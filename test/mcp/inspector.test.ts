// A scripted session through the MCP Inspector's CLI (@modelcontextprotocol/inspector 2.x, the
// maintained package; the separate inspector-cli is deprecated), as the README shows it: run from
// the repository root against `node dist/cli/main.js mcp`. The CLI prints the result as JSON on
// stdout; an isError result exits 5 (with a one-line JSON note on stderr), a protocol error 1.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, root, serverEnv } from './helpers/peers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const require = createRequire(import.meta.url);
const pkgJson = require.resolve('@modelcontextprotocol/inspector/package.json');
const pkg = require(pkgJson) as { bin: Record<string, string> };
const inspectorBin = join(dirname(pkgJson), pkg.bin['mcp-inspector']!);

function inspector(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // -e: the environment the inspector gives the server child (the in-memory store here)
      [inspectorBin, '--cli', '-e', 'MODELWORKS_STORE=memory', process.execPath, cli, 'mcp', ...args],
      { cwd: root, timeout: 60_000, maxBuffer: 16 * 1024 * 1024, env: serverEnv },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

const json = (text: string): Json => {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new Error(`the inspector printed no JSON: ${text}`);
  }
};

describe('MCP Inspector CLI, scripted from the repository root', () => {
  it('tools/list shows every tool with its annotations', async () => {
    const { code, stdout } = await inspector('--method', 'tools/list');
    expect(code).toBe(0);
    const tools = json(stdout).tools as Json[];
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['create_model', 'mutate', 'get_state', 'eval_expression']),
    );
    const evalTool = tools.find((t) => t.name === 'eval_expression')!;
    expect(evalTool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    // the conformance fixtures are not part of the product's list
    expect(tools.map((t) => t.name)).not.toContain('test_reconnection');
  });

  it('tools/call eval_expression as the README writes it returns the text block and structuredContent', async () => {
    const { code, stdout } = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'eval_expression',
      '--tool-arg',
      'expr="1 + 2"',
    );
    expect(code).toBe(0);
    const result = json(stdout);
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ ok: true, undefined: false, result: 3 });
    expect(JSON.parse((result.content as Json[])[0]!.text as string)).toEqual(result.structuredContent);
  });

  it('an isError result is printed and exits 5', async () => {
    const { code, stdout, stderr } = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'get_state',
      '--tool-arg',
      'id="ghost"',
    );
    expect(code).toBe(5);
    expect(json(stdout)).toEqual({
      content: [{ type: 'text', text: 'Model not found: ghost' }],
      isError: true,
    });
    expect(stderr).toContain('tool_is_error');
  });

  it('a protocol error reads once, without an "MCP error" prefix', async () => {
    const { code, stderr } = await inspector('--method', 'resources/read', '--uri', 'valem://nope');
    expect(code).toBe(1);
    expect(json(stderr.trim().split('\n').at(-1)!)).toEqual({
      error: { code: 'error', message: 'Resource not found: valem://nope' },
    });
  });
});
