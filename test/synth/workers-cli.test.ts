/**
 * `synth grind --workers`: the option end to end. A run past the 500,000-row threshold with 2
 * workers writes the file one thread writes, split (3d6) or pipelined (support-queue); a bad
 * count of workers is a usage error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'synth-workers-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function grind(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'synth', 'grind', ...args],
    // a grind that hung (a worker started ahead holding it open) is killed, and fails its test
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: r.status, stderr: r.stderr };
}

describe('synth grind --workers', () => {
  it('writes the same file with 2 workers as with 1', () => {
    const model = join(work, 'dice.sgm');
    writeFileSync(
      model,
      'dataset.root = Scores\nRoll = Uniform(1, 7)\nDie = ToInteger(Roll, mode="floor")\n' +
        'Scores = Redimension(Die, dimension=4)\n',
    );
    const common = [model, '--count', '510000', '--seed', '9', '--header', '--quiet'];
    expect(grind([...common, '--workers', '1', '--output', join(work, 'one.csv')]).status).toBe(0);
    expect(grind([...common, '--workers', '2', '--output', join(work, 'two.csv')]).status).toBe(0);
    const one = readFileSync(join(work, 'one.csv'));
    expect(one.length).toBeGreaterThan(510_000 * 8);
    expect(readFileSync(join(work, 'two.csv')).equals(one)).toBe(true);
  }, 180_000);

  it('writes the same JSON with 2 workers as with 1 for support-queue (pipelined: its draws vary)', () => {
    const model = join(ROOT, 'examples', 'synth', 'support-queue.xml');
    const common = [model, '--count', '510000', '--seed', '4', '--format', 'json', '--quiet'];
    expect(grind([...common, '--workers', '1', '--output', join(work, 'one.json')]).status).toBe(0);
    expect(grind([...common, '--workers', '2', '--output', join(work, 'two.json')]).status).toBe(0);
    const one = readFileSync(join(work, 'one.json'));
    expect(one.length).toBeGreaterThan(510_000 * 60);
    expect(readFileSync(join(work, 'two.json')).equals(one)).toBe(true);
  }, 240_000);

  it('exits when the model fails to load, with the workers it started ahead', () => {
    // the workers start before the model is read (to load while it is): they must not keep the
    // command alive once it has failed
    const model = join(work, 'broken.sgm');
    writeFileSync(model, 'dataset.root = X\nX = Uniform(\n');
    const r = grind([model, '--count', '1000000', '--workers', '3', '--quiet']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('.sgm line 2');
  }, 180_000);

  it('refuses 0 workers as a usage error', () => {
    const r = grind(['examples/synth/support-queue.xml', '--count', '1', '--workers', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--workers');
  }, 60_000);
});
