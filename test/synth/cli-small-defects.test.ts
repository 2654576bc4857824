/**
 * Small defects of the synth command line (issue 40): SpiceGrinder's own flags (`--no-write`,
 * `--free`, `--pro`) are accepted, usage errors carry the synth prefix the docs promise, and a
 * node's failure names the node once.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const { put } = scratchDir('mw-synth-cli-small-');
const EXAMPLE = join(ROOT, 'examples', 'synth', 'support-queue.xml');

function synth(args: string[]): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'synth', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('synth command line, SpiceGrinder spelling and wording', { timeout: 120_000 }, () => {
  it('analyze takes --no-write and --free/--pro as the analyzer does', () => {
    const free = synth(['analyze', '--json', '--no-throughput', '--no-write', '--free', EXAMPLE]);
    expect(free.stderr).toBe('');
    expect(free.status).toBe(0);
    expect(JSON.parse(free.stdout)).toMatchObject({ success: true });
    const pro = synth(['analyze', '--json', '--no-throughput', '--pro', EXAMPLE]);
    expect(pro.status).toBe(0);
  });

  it('--free applies the Free gates, as --edition free does', () => {
    const pro = put(
      'pro.xml',
      '<dataset seed="1"><root node="R"/><nodes><Append name="R"><input name="A"/></Append>' +
        '<SSN name="A"/></nodes></dataset>',
    );
    const viaFlag = synth(['validate', '--json', '--free', pro]);
    const viaOption = synth(['validate', '--json', '--edition', 'free', pro]);
    expect(viaFlag.status).toBe(1);
    expect(viaFlag.stdout).toBe(
      viaOption.stdout.replace(/"model": "[^"]*"/, `"model": ${JSON.stringify(pro)}`),
    );
    expect(synth(['validate', '--json', '--pro', pro]).status).toBe(0);
  });

  it('--free and --pro together are a usage error', () => {
    const r = synth(['grind', '--count', '1', '--free', '--pro', EXAMPLE]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^modelworks synth: option '--free' cannot be used with option '--pro'/);
  });

  it('usage errors of the synth commands say `modelworks synth:`', () => {
    const missing = synth(['grind', EXAMPLE]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(
      "modelworks synth: required option '--count <n>' not specified (--help shows the usage and examples)\n",
    );
    expect(synth(['validate', '--bogus', EXAMPLE]).stderr).toMatch(
      /^modelworks synth: unknown option '--bogus'/,
    );
  });

  it('validate names a failing node once', () => {
    const bad = put(
      'bad.xml',
      '<dataset seed="1"><root node="M"/><nodes><Mix name="M"><input name="A" weight="1"/></Mix>' +
        '<Constant name="A" value="1"/></nodes></dataset>',
    );
    const r = synth(['validate', bad]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('  Mix "M": needs at least two inputs');
    expect(r.stdout).not.toContain('Mix "M": Mix "M"');
  });

  it('a reader that closes the pipe early (`| head`) ends the command quietly', () => {
    const main = join(ROOT, 'src', 'cli', 'main.ts');
    const r = spawnSync(
      'bash',
      [
        '-c',
        `set -o pipefail; "${process.execPath}" --import tsx "${main}" synth components --json | head -c 100 >/dev/null`,
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).not.toMatch(/internal error|this is a bug/);
    expect(r.status).toBe(0);
  });
});
