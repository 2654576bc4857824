// The official MCP conformance kit's 2026-07-28 requirements (@modelcontextprotocol/conformance
// 0.2.0-alpha.12, installed as conformance-next: the newest release covering that revision; on
// Node 20 it runs with the globSync resolve hook of ./helpers/node20) against `modelworks mcp
// --http` with the fixtures on. Every failure must be listed, with its reason, in
// test/conformance-baseline-2026.yml; the kit itself fails the run on an unexpected failure or a
// stale entry. The 2025-era run is test/mcp/conformance.test.ts (0.1.16). Needs the build.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceNodeOptions } from './helpers/conformance.js';
import { root, serverEnv, startHttpServer, type HttpServerChild } from './helpers/peers.js';

const require = createRequire(import.meta.url);
const kit = '@modelcontextprotocol/conformance-next';
const bin = join(
  dirname(require.resolve(`${kit}/package.json`)),
  (require(`${kit}/package.json`) as { bin: { conformance: string } }).bin.conformance,
);

describe('MCP conformance kit, 2026-07-28 requirements', () => {
  let server: HttpServerChild;
  beforeAll(async () => {
    server = await startHttpServer({ ...serverEnv, MODELWORKS_MCP_CONFORMANCE_FIXTURES: '1' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('fails only the baseline scenarios, and every baseline entry still fails', async () => {
    const out = mkdtempSync(join(tmpdir(), 'modelworks-conformance-2026-'));
    try {
      const run = await new Promise<{ code: number | null; report: string }>((resolve) => {
        execFile(
          process.execPath,
          [
            ...conformanceNodeOptions,
            bin,
            'server',
            '--url',
            server.url,
            '--requirements',
            '2026-07-28',
            '-o',
            out,
            '--expected-failures',
            join(root, 'test/conformance-baseline-2026.yml'),
          ],
          { cwd: out, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
          (err, stdout, stderr) =>
            resolve({
              code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
              report: `${stdout}\n${stderr}`,
            }),
        );
      });
      expect(run.report).toContain('Baseline check passed');
      expect(run.code, run.report.slice(-3000)).toBe(0);
      const total = /Total: (\d+) passed, (\d+) failed/.exec(run.report);
      expect(Number(total?.[1])).toBeGreaterThanOrEqual(121);
      // what the revision changed and we serve: discover-era routing headers, -32602 for a missing
      // resource, the stateless HTTP rungs
      for (const scenario of [
        'http-header-validation',
        'sep-2164-resource-not-found',
        'dns-rebinding-protection',
      ])
        expect(run.report).toMatch(new RegExp(`✓ ${scenario}:`));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 200_000);
});
