/** `modelworks synth` with editions and allowlists from the environment, end to end. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
// Runs from a temporary folder, so tsx is named by its file rather than resolved from there.
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const work = mkdtempSync(join(tmpdir(), 'synth-cli-access-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', TSX, join(ROOT, 'src', 'cli', 'main.ts'), 'synth', ...args],
    {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, ...env },
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

mkdirSync(join(work, 'tables'));
writeFileSync(join(work, 'tables', 'words.csv'), 'alpha\nbeta\n');
writeFileSync(
  join(work, 'lib.xml'),
  '<dataset><root node="C"/><nodes><Constant name="C" value="4"/></nodes></dataset>',
);
writeFileSync(
  join(work, 'importer.sgm'),
  `dataset.root = Row\nRow = Append(L, W)\nL = Import("lib.xml")\nW = FlatFile("${join(work, 'tables', 'words.csv')}", mode="sequential")\n`,
);

describe('modelworks synth: editions and allowlists', { timeout: 60_000 }, () => {
  it('refuses an absolute path until MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST lists its folder', () => {
    const refused = cli(['grind', 'importer.sgm', '--count', '2', '--quiet']);
    expect(refused.status).toBe(2); // a model that cannot be loaded is bad input (docs/cli.md)
    expect(refused.stderr).toMatch(
      /FlatFile "W": absolute path .* refused: .*MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST/,
    );
    expect(refused.stdout).toBe('');
    const allowed = cli(['grind', 'importer.sgm', '--count', '2', '--quiet'], {
      MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST: join(work, 'tables'),
    });
    expect(allowed).toMatchObject({ status: 0, stdout: '4.0,alpha\n4.0,beta\n' });
  });

  it('--edition free reports the licence gate; validate names a malformed setting', () => {
    const free = cli(['validate', '--edition', 'free', 'importer.sgm']);
    expect(free.status).toBe(1);
    expect(free.stdout).toMatch(/load error: Import \("L"\) needs the Pro edition/);
    const bad = cli(['validate', 'lib.xml'], { MODELWORKS_SYNTH_DATABASE_ALLOW_QUERY: 'maybe' });
    expect(bad.status).toBe(2); // a malformed setting is bad usage (docs/cli.md)
    expect(bad.stdout).toMatch(/MODELWORKS_SYNTH_DATABASE_ALLOW_QUERY must be true or false/);
  });
});
