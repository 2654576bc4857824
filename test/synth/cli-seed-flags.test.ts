/** `grind --seed N` and `--no-seed` together: a usage error whatever their order (issue 20). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const MODEL =
  '<dataset seed="3"><root node="U"/><nodes><Uniform name="U" min="0" max="1"/></nodes></dataset>';

function grind(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'synth', 'grind', '-', '--count', '2', ...args],
    { cwd: ROOT, encoding: 'utf8', input: MODEL },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('grind seed flags', { timeout: 60_000 }, () => {
  it('refuses --seed with --no-seed in either order (exit 2, nothing generated)', () => {
    for (const args of [
      ['--seed', '5', '--no-seed'],
      ['--no-seed', '--seed', '5'],
    ]) {
      const r = grind(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('give --seed <n> or --no-seed, not both');
    }
  });

  it('each flag alone still does what it says', () => {
    const five = grind(['--seed', '5', '--quiet']);
    expect(five.status).toBe(0);
    expect(grind(['--seed', '5', '--quiet']).stdout).toBe(five.stdout);
    const model = grind(['--quiet']);
    expect(model.stdout).not.toBe(five.stdout);
    const random = grind(['--no-seed']);
    expect(random.status).toBe(0);
    expect(random.stderr).toMatch(/Using random seed \d+/);
  });
});
