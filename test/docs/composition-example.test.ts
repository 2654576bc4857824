// docs/composition.md's worked example runs as it is written (issue 41, acceptance 3): the shell
// block after the `worked-example` marker is run with bash from the repository root against a real
// `modelworks serve` (the built CLI on PATH), and every line whose comment gives a value prints it.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function workedExample(): string {
  const doc = readFileSync(join(root, 'docs/composition.md'), 'utf8');
  const at = doc.indexOf('<!-- worked-example -->');
  const m = /```sh\n([\s\S]*?)```/.exec(doc.slice(at));
  if (at < 0 || !m) throw new Error('docs/composition.md has no worked-example block');
  return m[1]!;
}

describe('docs/composition.md', () => {
  it('runs the worked example verbatim and prints the values its comments give', () => {
    const script = workedExample();
    // the values the comments promise, in order: "get … # 32000"
    const promised = script
      .split('\n')
      .filter((l) => l.startsWith('get '))
      .map((l) => /#\s*(\S+)/.exec(l)?.[1]);
    expect(promised).toEqual(['32000', '32000', '110', '132', '120']);
    const bin = mkdtempSync(join(tmpdir(), 'mw-bin-'));
    try {
      const cli = join(root, 'dist/cli/main.js');
      chmodSync(cli, 0o755);
      symlinkSync(cli, join(bin, 'modelworks'));
      const out = execFileSync('bash', ['-e', '-c', script], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, PORT: '18093' },
        timeout: 60_000,
      });
      const lines = out.trim().split('\n');
      expect(lines.slice(0, 5)).toEqual(promised);
      expect(JSON.parse(lines[5]!)).toMatchObject([
        { ref: 'acme/invoice', version: '1.0.0', repo: 'local', owner: 'acme' },
      ]);
      const graph = JSON.parse(lines[6]!) as { linkEdges: { from: string; to: string; kind: string }[] };
      expect(graph.linkEdges.map((e) => `${e.from}→${e.to} ${e.kind}`)).toEqual([
        'acme/dept-ops→acme/company write',
        'acme/dept-sales→acme/company write',
        'acme/invoice→acme/rates read',
        'acme/invoice-eu→acme/rates read',
      ]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 90_000);
});
