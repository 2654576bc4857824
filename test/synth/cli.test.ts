/** The `modelworks synth` commands end to end: output, exit codes, stdin, files. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'synth', 'support-queue.xml');
const work = mkdtempSync(join(tmpdir(), 'synth-cli-'));

function cli(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'synth', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      input,
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('modelworks synth', { timeout: 60_000 }, () => {
  it('grinds the recorded example, prints the summary line on stderr', () => {
    const r = cli(['grind', EXAMPLE, '--count', '10', '--header']);
    expect(r.status).toBe(0);
    const recorded = readFileSync(join(ROOT, 'examples', 'synth', 'support-queue.csv'), 'utf8');
    expect(r.stdout).toBe(recorded.slice(recorded.indexOf('\n') + 1));
    expect(r.stderr).toMatch(/^Emitted 10 observation\(s\) in \d+\.\d{3}s \(\d+\.\d obs\/s\)\n$/);
  });

  it('grinds Pro composites with a --formats config', () => {
    const formats = join(work, 'formats.properties');
    writeFileSync(formats, '# ours\nformat.phone = {areaCode}.{exchange}.{subscriber}\n');
    const model =
      '<dataset><root node="T"/><nodes><Phone name="T"><input name="A"/></Phone><Uniform name="A" min="200" max="1000"/></nodes></dataset>';
    const plain = cli(['grind', '-', '--count', '2', '--quiet', '--seed', '1'], model);
    expect(plain.stdout).toMatch(/^\(\d{3}\) \d{3}-\d{4}\n\(\d{3}\) \d{3}-\d{4}\n$/);
    const dotted = cli(['grind', '-', '--count', '2', '--quiet', '--seed', '1', '--formats', formats], model);
    expect(dotted.stdout).toBe(plain.stdout.replace(/\((\d{3})\) (\d{3})-/g, '$1.$2.'));
  });

  it('reads a model from stdin and writes to --output', () => {
    const out = join(work, 'out.ndjson');
    const r = cli(
      ['grind', '-', '--count', '3', '--quiet', '--format', 'ndjson', '--output', out, '--seed', '5'],
      readFileSync(EXAMPLE, 'utf8'),
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => Object.keys(JSON.parse(l)).length),
    ).toEqual([7, 7, 7]);
  });

  it('exits 2 on usage errors and unreadable input (docs/cli.md, exit codes)', () => {
    expect(cli(['grind', EXAMPLE, '--count', 'many']).status).toBe(2);
    expect(cli(['grind', EXAMPLE, '--count', '1', '--format', 'xlsx']).status).toBe(2);
    const bad = join(work, 'bad.sgm');
    const conv = cli(['convert', EXAMPLE, bad]);
    expect(conv.status).toBe(0);
    const missing = cli(['grind', join(work, 'nope.xml'), '--count', '1']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/cannot read/);
  });

  it('validates with the batch JSON wrapper and exit codes', () => {
    const ok = cli(['validate', '--json', EXAMPLE]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      success: true,
      results: [{ valid: true, rootName: 'Ticket', nodeCount: 13 }],
    });
    const broken = cli(
      ['validate', '-'],
      '<dataset><root node="Q"/><nodes><Uniform name="U"/></nodes></dataset>',
    );
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/root node "Q" is not defined/);
  });

  it('analyzes without timing when asked and lists components', () => {
    const a = cli(['analyze', '--json', '--no-throughput', EXAMPLE]);
    expect(a.status).toBe(0);
    expect(JSON.parse(a.stdout).results[0]).toMatchObject({
      rootName: 'Ticket',
      throughput: null,
      written: false,
      error: null,
    });
    const c = cli(['components', '--json', '--edition', 'free']);
    expect(JSON.parse(c.stdout)).toMatchObject({ edition: 'Free', totalCount: 45 });
    const all = JSON.parse(cli(['components', '--json']).stdout);
    expect(all.edition).toBe('Pro');
    expect(all.totalCount).toBeGreaterThan(45); // Free 45 plus outside data and the implemented Pro ones
    expect(cli(['components', '--json', '--markdown']).status).toBe(2);
  });

  it('replays a folder: exit 0 when every output matches, 1 when one differs', () => {
    const good = cli(['replay', join(ROOT, 'examples', 'synth')]);
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/\n6 passed, 0 shape-only, 0 failed, 0 skipped\n$/);
    const dir = mkdtempSync(join(work, 'corpus-'));
    copyFileSync(EXAMPLE, join(dir, 'support-queue.xml'));
    const recorded = readFileSync(join(ROOT, 'examples', 'synth', 'support-queue.csv'), 'utf8');
    writeFileSync(join(dir, 'support-queue.csv'), recorded.replace('25.9', '26.0'));
    const bad = cli(['replay', dir]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(
      /FAIL support-queue.xml -> support-queue.csv: first difference at output line 3/,
    );
    expect(bad.stdout).toMatch(/0 passed, 0 shape-only, 1 failed/);
  });

  it('converts between syntaxes without loss', () => {
    const sgm = join(work, 'q.sgm');
    const json = join(work, 'q.json');
    expect(cli(['convert', EXAMPLE, sgm]).status).toBe(0);
    expect(cli(['convert', sgm, json]).status).toBe(0);
    const a = cli(['grind', json, '--count', '50', '--quiet']);
    const b = cli(['grind', EXAMPLE, '--count', '50', '--quiet']);
    expect(a.stdout).toBe(b.stdout);
    expect(cli(['convert', EXAMPLE, join(work, 'q.txt')]).status).toBe(2);
  });
});
