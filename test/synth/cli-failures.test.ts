/**
 * What the synth commands print when something fails: our own words and a stable shape, never the
 * JavaScript engine's text; the budgets apply on the command line too (same settings).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureText } from '../../src/cli/synth-failure.js';
import { SynthError } from '../../src/synth/index.js';
import { scratchDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const { dir, put } = scratchDir('mw-synth-cli-failures-');

function cli(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'synth', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    },
  );
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('synth command failures', { timeout: 60_000 }, () => {
  it('words system errors by their code and hides engine errors behind a generic line', () => {
    const missing = Object.assign(new Error("ENOENT: no such file or directory, open 'x.xml'"), {
      code: 'ENOENT',
    });
    expect(failureText(missing, 'read x.xml')).toBe('cannot read x.xml: no such file or folder (ENOENT)');
    expect(failureText(new SynthError('SYNTH_LOAD', 'ours'), 'read x.xml')).toBe('ours');
    expect(failureText(new Error('MODELWORKS_SYNTH_MAX_COLUMNS must be …'), 'read the settings')).toBe(
      'MODELWORKS_SYNTH_MAX_COLUMNS must be …',
    );
    const engine = failureText(
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      'generate',
    );
    expect(engine).toBe(
      'internal error (TypeError): could not generate; this is a bug, please report it with the command that failed',
    );
  });

  it('a missing model file is reported in our words', () => {
    const r = cli(['grind', join(dir, 'nope.xml'), '--count', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `modelworks synth: cannot read ${join(dir, 'nope.xml')}: no such file or folder (ENOENT)\n`,
    );
  });

  it('grind and validate apply the column budget and name the setting that raises it', () => {
    const model = put('wide.sgm', 'dataset.root = W\nW = Redimension(U, dimension=20000)\nU = Uniform()\n');
    const refused = cli(['validate', model]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(
      `Redimension "W": dimension 20000 is over this server's limit of 10000 (MODELWORKS_SYNTH_MAX_COLUMNS)`,
    );
    const raised = cli(['grind', model, '--count', '1', '--quiet'], {
      MODELWORKS_SYNTH_MAX_COLUMNS: '20000',
    });
    expect(raised.status).toBe(0);
    expect(raised.stdout.split(',')).toHaveLength(20_000);
    const malformed = cli(['grind', model, '--count', '1'], { MODELWORKS_SYNTH_MAX_COLUMNS: 'lots' });
    expect(malformed.stderr).toMatch(
      /^modelworks synth: MODELWORKS_SYNTH_MAX_COLUMNS must be a positive number/,
    );
  });
});
