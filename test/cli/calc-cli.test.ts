// The CLI as a user runs it: a child process on the built entry point (run `npm run build` first;
// `npm test` does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'dist/cli/main.js');

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'modelworks-cli-'));
const write = (name: string, value: unknown): string => {
  const p = join(tmp, name);
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value));
  return p;
};
const demo = write('demo.json', {
  id: 'demo',
  version: '1.0.0',
  schema: { type: 'object', properties: { price: { type: 'number' }, qty: { type: 'integer', minimum: 0 } } },
  derivations: [{ path: '$.total', expr: 'price * qty' }],
  tests: [
    { description: 'multiplies', given: { '$.price': 2, '$.qty': 3 }, expect: { '$.total': 6 } },
    { description: 'a wrong expectation', given: { '$.price': 2, '$.qty': 3 }, expect: { '$.total': 7 } },
  ],
});

describe('modelworks calc', () => {
  it('test: per-test lines, the summary line, exit 1 on a failure', () => {
    const r = run('calc', 'test', demo);
    expect(r.stdout).toContain('pass  multiplies');
    expect(r.stdout).toContain('FAIL  a wrong expectation');
    expect(r.stdout).toContain('$.total expected 7 but was 6');
    expect(r.stdout.trim().split('\n').pop()).toBe('1 passed, 1 failed');
    expect(r.code).toBe(1);
  });

  it('test: the bundled examples all pass (exit 0)', () => {
    const r = run(
      'calc',
      'test',
      'examples/calc/car-loan-calculator.json',
      'examples/calc/insurance-quote.json',
    );
    expect(r.stdout.trim().split('\n').pop()).toBe('7 passed, 0 failed');
    expect(r.code).toBe(0);
  });

  it('validate: errors with locations, exit 1; --json emits one report per file', () => {
    const bad = write('bad.json', { id: 'bad', schema: {}, derivations: [{ path: 'x.0', expr: 'a +' }] });
    const r = run('calc', 'validate', bad);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('INVALID');
    expect(r.stdout).toContain('derivations[0].path');
    expect(r.stdout).toContain('$.x[0]');
    const j = run('calc', 'validate', '--json', '--no-tests', demo);
    expect(JSON.parse(j.stdout)).toMatchObject({ file: demo, valid: true, errors: [] });
    expect(j.code).toBe(0);
  });

  it('eval: prints the value; a compile error exits 1', () => {
    const input = write('in.json', { items: [{ p: 2 }, { p: 5 }] });
    expect(run('calc', 'eval', '$sum(items.p)', '--input', input)).toMatchObject({ code: 0, stdout: '7\n' });
    const r = run('calc', 'eval', '1 +');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('compile error');
  });

  it('dry-run: applies --set as one cycle and prints the merged state; a schema violation exits 1', () => {
    const r = run('calc', 'dry-run', demo, '--set', '$.price=10', '--set', '$.qty=3');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ price: 10, qty: 3, total: 30 });
    const bad = run('calc', 'dry-run', demo, '--set', '$.qty=-1');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Schema violation');
  });

  it('usage errors exit 2: unknown command, unreadable file, malformed --set', () => {
    expect(run('calc', 'frobnicate').code).toBe(2);
    expect(run('calc', 'test', join(tmp, 'missing.json'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot read'),
    });
    expect(run('calc', 'dry-run', demo, '--set', 'nonsense').code).toBe(2);
    expect(run('calc', 'test', write('broken.json', '{oops'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('not valid JSON'),
    });
  });
});
