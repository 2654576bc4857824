// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13) against
// `modelworks mcp --http`. Every failure must be listed, with its reason, in
// test/conformance-baseline.yml; an unexpected failure or a stale baseline entry fails this test.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, startHttpServer, type HttpServerChild } from './helpers/peers.js';

const require = createRequire(import.meta.url);
const conformanceBin = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  (require('@modelcontextprotocol/conformance/package.json') as { bin: { conformance: string } }).bin
    .conformance,
);
const baseline = join(root, 'test/conformance-baseline.yml');

/** Scenario names listed under `server:` in the baseline (comments stripped). */
function baselineEntries(): string[] {
  return readFileSync(baseline, 'utf8')
    .split('\n')
    .map((l) => /^\s+-\s+([a-z0-9-]+)\s*(#.*)?$/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}

interface Check {
  name: string;
  status: string;
  errorMessage?: string;
}

describe('MCP conformance suite', () => {
  let server: HttpServerChild;
  let out: string;
  beforeAll(async () => {
    server = await startHttpServer();
    out = mkdtempSync(join(tmpdir(), 'modelworks-conformance-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('passes every scenario not in the baseline, and every baseline entry still fails', async () => {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [conformanceBin, 'server', '--url', server.url, '-o', out, '--expected-failures', baseline],
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

    // read the per-scenario results: which passed, and that each baselined failure really failed
    const byScenario = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
      if (!scenario) continue;
      byScenario.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
    }
    const failing = [...byScenario].filter(([, checks]) => checks.some((c) => c.status !== 'SUCCESS'));
    expect(failing.map(([name]) => name).sort()).toEqual(baselineEntries().sort());
    // the generic scenarios any server must pass
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
      expect(checks, name).toBeDefined();
      expect(checks!.length, name).toBeGreaterThan(0);
      expect(
        checks!.filter((c) => c.status !== 'SUCCESS'),
        name,
      ).toEqual([]);
    }
    const total = /Total: (\d+) passed, (\d+) failed/.exec(run.stdout);
    expect(total, run.stdout).not.toBeNull();
    expect(Number(total![1])).toBeGreaterThanOrEqual(13);
  }, 150_000);
});
