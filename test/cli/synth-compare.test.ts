/**
 * `modelworks synth compare` through the built CLI: exit 0 and a readable table for the model's own
 * sample, exit 1 and the finding for a changed one, the --json shape, exit 2 for an unreadable sample.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from './cli-process.js';

const MODEL = 'examples/synth/support-queue.xml';
const dir = mkdtempSync(join(tmpdir(), 'mw-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sample(seed: number, edit?: (cells: string[]) => string[]): string {
  const out = run(['synth', 'grind', MODEL, '--count', '800', '--seed', String(seed), '--header', '--quiet']);
  expect(out.code).toBe(0);
  const [header, ...rows] = out.stdout.trim().split('\n');
  const body = rows.map((r) => (edit ? edit(r.split(',')) : r.split(',')).join(','));
  const path = join(dir, `sample-${seed}-${edit ? 'edited' : 'own'}.csv`);
  writeFileSync(path, `${header}\n${body.join('\n')}\n`);
  return path;
}

describe('modelworks synth compare', () => {
  it("the model's own sample: exit 0, a table for people", () => {
    const out = run(['synth', 'compare', '--seed', '1', MODEL, sample(7)]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Findings: 0 high');
    expect(out.stdout).toMatch(/COLUMN\s+AS\s+SAMPLE MEAN/);
  });

  it('--ignore (repeatable) leaves columns out: the shifted column ignored, exit 0', () => {
    const path = sample(9, (c) => c.map((x, i) => (i === 2 ? String(Number(x) + 5) : x)));
    expect(run(['synth', 'compare', '--seed', '1', MODEL, path]).code).toBe(1);
    const out = run([
      'synth',
      'compare',
      '--seed',
      '1',
      '--json',
      '--ignore',
      'dim2',
      '--ignore',
      'dim0',
      MODEL,
      path,
    ]);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as { ignored: string[]; columns: { name: string }[] };
    expect(report.ignored).toEqual(['dim2', 'dim0']);
    expect(report.columns.map((c) => c.name)).not.toContain('dim2');
  });

  it('a shifted column: exit 1, and --json carries the report', () => {
    const path = sample(8, (c) => c.map((x, i) => (i === 2 ? String(Number(x) + 5) : x)));
    const text = run(['synth', 'compare', '--seed', '1', MODEL, path]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/high\s+distribution\s+dim2/);
    const json = run(['synth', 'compare', '--seed', '1', '--json', MODEL, path]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ seed: '1', seedSource: 'cli', sampleRows: 800, generatedRows: 800 });
    expect(report.highCount).toBeGreaterThan(0);
    expect(report.findings[0]).toMatchObject({ severity: 'high' });
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(['columns', 'correlation', 'duplicateRate', 'tests']),
    );
  });

  it('an unreadable sample: exit 2, one line in our words', () => {
    const path = join(dir, 'ragged.csv');
    writeFileSync(path, 'a,b\n1,2\n3\n');
    const out = run(['synth', 'compare', '--seed', '1', MODEL, path]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^modelworks synth compare: .*rows differ in width/);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });
});
