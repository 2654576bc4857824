// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13) against the
// synth-only server on Streamable HTTP, started the way the docs say: MODELWORKS_MCP_TRANSPORT=http
// with MODELWORKS_MCP_HTTP_PORT (0 here, any free port). Every failure must be listed, with its
// reason, in test/synth-mcp/conformance-baseline.yml.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cli, grindBytes, root, SKIRMISH, type Json } from './helpers.js';

const require = createRequire(import.meta.url);
const conformanceBin = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  (require('@modelcontextprotocol/conformance/package.json') as { bin: { conformance: string } }).bin
    .conformance,
);
const baseline = join(root, 'test/synth-mcp/conformance-baseline.yml');

function baselineEntries(): string[] {
  return readFileSync(baseline, 'utf8')
    .split('\n')
    .map((l) => /^\s+-\s+([a-z0-9-]+)\s*(#.*)?$/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}

interface Check {
  status: string;
}

describe('synth-only MCP server over Streamable HTTP', () => {
  let url: string;
  let stop: () => Promise<void>;
  let out: string;
  beforeAll(async () => {
    const child = spawn(process.execPath, [cli, 'mcp', '--tools', 'synth'], {
      cwd: root,
      env: childEnv({ MODELWORKS_MCP_TRANSPORT: 'http', MODELWORKS_MCP_HTTP_PORT: '0' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    };
    url = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`no URL within 20 s: ${stderr}`)), 20_000);
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        const m = /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    out = mkdtempSync(join(tmpdir(), 'synth-conformance-'));
  });
  afterAll(async () => {
    await stop?.();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('binds loopback by default and serves the six tools; generated pages equal grind', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 'synth-http-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'analyze_model',
        'generate',
        'get_allowlists',
        'list_components',
        'read_generation',
        'validate_model',
      ]);
      const g = (
        await client.callTool({
          name: 'generate',
          arguments: { modelText: SKIRMISH, count: 400, seed: 5, previewLimit: 100 },
        })
      ).structuredContent as Json;
      let text = g.preview as string;
      let offset = g.rowCount as number;
      while (offset < g.totalCount) {
        const page = (
          await client.callTool({
            name: 'read_generation',
            arguments: { generationId: g.generationId, offset, limit: 150 },
          })
        ).structuredContent as Json;
        text += page.data;
        offset += page.rowCount;
      }
      expect(text).toBe(await grindBytes(SKIRMISH, ['--seed', '5', '--count', '400']));
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });

  it('passes every conformance scenario not in the baseline, and every baseline entry still fails', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [conformanceBin, 'server', '--url', url, '-o', out, '--expected-failures', baseline],
        { cwd: out, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
    const report = `${run.stdout}\n${run.stderr}`;
    expect(report).toContain('Baseline check passed');
    expect(run.code, report.slice(-3000)).toBe(0);
    const byScenario = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
      if (scenario)
        byScenario.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
    }
    const failing = [...byScenario].filter(([, checks]) => checks.some((c) => c.status !== 'SUCCESS'));
    expect(failing.map(([name]) => name).sort()).toEqual(baselineEntries().sort());
    for (const name of [
      'server-initialize',
      'ping',
      'logging-set-level',
      'tools-list',
      'resources-list',
      'resources-subscribe',
      'resources-unsubscribe',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
    ]) {
      const checks = byScenario.get(name);
      expect(checks?.length, name).toBeGreaterThan(0);
      expect(
        checks!.filter((c) => c.status !== 'SUCCESS'),
        name,
      ).toEqual([]);
    }
  }, 150_000);
});
