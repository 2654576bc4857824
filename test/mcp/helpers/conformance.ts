// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) run against a
// running Streamable HTTP server, judged against a known-failures baseline. Shared by the calc and
// the synth-only server tests. On Node 20 the suite runs with a resolve hook that gives it the
// fs.globSync of Node 22 (./node20/register.mjs).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';

const require = createRequire(import.meta.url);
/** Node options the suite needs here: none on Node 22, the globSync hook on Node 20. */
export const conformanceNodeOptions: string[] =
  typeof (fs as { globSync?: unknown }).globSync === 'function'
    ? []
    : ['--import', new URL('./node20/register.mjs', import.meta.url).href];

const conformanceBin = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  (require('@modelcontextprotocol/conformance/package.json') as { bin: { conformance: string } }).bin
    .conformance,
);

/** The scenarios any server must pass, whatever it serves. */
const GENERIC = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** Scenario names listed under `server:` in a baseline file (comments stripped). */
function baselineEntries(baseline: string): string[] {
  return readFileSync(baseline, 'utf8')
    .split('\n')
    .map((l) => /^\s+-\s+([a-z0-9-]+)\s*(#.*)?$/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}

/**
 * Runs the suite against `url` and asserts: exit 0 with "Baseline check passed", the failing
 * scenarios are exactly the baseline's, and every generic scenario passes all its checks.
 * `suite`: the suite's own choice, `active` (default) or `all` (pending scenarios too).
 * @returns the suite's stdout (its summary line has the totals) and each scenario's checks
 */
export async function expectConformance(
  url: string,
  baseline: string,
  suite: 'active' | 'all' = 'active',
): Promise<{ stdout: string; checks: Map<string, Check[]> }> {
  const out = mkdtempSync(join(tmpdir(), 'modelworks-conformance-'));
  try {
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          ...conformanceNodeOptions,
          conformanceBin,
          'server',
          '--url',
          url,
          '--suite',
          suite,
          '-o',
          out,
          '--expected-failures',
          baseline,
        ],
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

    // the per-scenario results: which passed, and that each baselined failure really failed
    const byScenario = new Map<string, Check[]>();
    for (const dir of readdirSync(out)) {
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
      if (scenario)
        byScenario.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
    }
    // as the suite counts them: a FAILURE or a WARNING fails a scenario; INFO checks are its log
    const failing = [...byScenario].filter(([, checks]) =>
      checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING'),
    );
    expect(failing.map(([name]) => name).sort()).toEqual(baselineEntries(baseline).sort());
    for (const name of GENERIC) {
      const checks = byScenario.get(name);
      expect(checks?.length, name).toBeGreaterThan(0);
      expect(
        checks!.filter((c) => c.status !== 'SUCCESS'),
        name,
      ).toEqual([]);
    }
    return { stdout: run.stdout, checks: byScenario };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
