// Output files are written whole or not at all (docs/cli.md, "Output files"): a temporary file
// beside the target, renamed on success, removed on failure; an interrupted run removes it and
// says so. Child processes on the built CLI (`npm run build` first).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { STACK_FRAME, exited, root, run, start } from './cli-process.js';

const model = join(root, 'examples/synth/support-queue.xml');
const workbook = (name: string) => join(root, 'test/sheet/workbooks', name);
const base = mkdtempSync(join(tmpdir(), 'modelworks-atomic-'));
let n = 0;
/** A fresh empty folder per test, so "nothing else is left" can be checked by listing it. */
const folder = (): string => {
  const dir = join(base, String(n++));
  mkdirSync(dir);
  return dir;
};

/** Polls `what` (a file appearing, a child's state) until it holds; fails after `ms`. */
async function until(what: () => boolean, ms = 30_000): Promise<void> {
  await vi.waitFor(() => expect(what()).toBe(true), { timeout: ms, interval: 50 });
}

/** The temporary file a run is writing in `dir`, once it holds some bytes. */
const partial = (dir: string): string | undefined =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.partial'))
    .find((f) => statSync(join(dir, f)).size > 0);

describe('synth grind --output', { timeout: 120_000 }, () => {
  it('a run writes the file whole and leaves nothing else', () => {
    const dir = folder();
    const out = join(dir, 'rows.csv');
    const r = run(['synth', 'grind', model, '--count', '500', '--seed', '7', '--quiet', '--output', out]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['rows.csv']);
    const direct = run(['synth', 'grind', model, '--count', '500', '--seed', '7', '--quiet']);
    expect(readFileSync(out, 'utf8')).toBe(direct.stdout);
  });

  it('a run that fails while generating leaves an existing file as it was, and no temporary file', () => {
    const dir = folder();
    const out = join(dir, 'rows.csv');
    writeFileSync(out, 'earlier\n');
    const impossible = join(dir, 'impossible.sgm');
    writeFileSync(impossible, 'dataset.root = T\nT = Truncate(U, min=5, max=6)\nU = Uniform(min=0, max=1)\n');
    const r = run(['synth', 'grind', impossible, '--count', '10', '--quiet', '--output', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `modelworks synth: Truncate "T": no value inside [5, 6] after 10000 attempts; ${out} was not written\n`,
    );
    expect(readFileSync(out, 'utf8')).toBe('earlier\n');
    expect(readdirSync(dir).sort()).toEqual(['impossible.sgm', 'rows.csv']);
  });

  it('a target that is a folder is refused before anything is written', () => {
    const dir = folder();
    const r = run(['synth', 'grind', model, '--count', '1', '--output', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`modelworks synth: cannot write ${dir}: it is a folder, not a file (EISDIR)\n`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('Ctrl-C removes the temporary file, says so and exits 130', async () => {
    const dir = folder();
    const out = join(dir, 'big.csv');
    const { child, out: io } = start(['synth', 'grind', model, '--count', '1000000000', '--output', out]);
    const done = exited(child);
    await until(() => partial(dir) !== undefined);
    const temp = join(dir, partial(dir)!);
    child.kill('SIGINT');
    expect(await done).toEqual({ code: 130, signal: null });
    expect(io.stderr).toMatch(
      /^modelworks synth: interrupted \(SIGINT\) after [\d,]+ of 1,000,000,000 rows; removed the unfinished temporary file (.+); (.+) was not written\n$/m,
    );
    expect(io.stderr).toContain(`removed the unfinished temporary file ${temp}; ${out} was not written`);
    expect(io.stderr).not.toMatch(STACK_FRAME);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an interrupted run leaves an existing file as it was', async () => {
    const dir = folder();
    const out = join(dir, 'big.csv');
    writeFileSync(out, 'earlier\n');
    const { child, out: io } = start(['synth', 'grind', model, '--count', '1000000000', '--output', out]);
    const done = exited(child);
    await until(() => partial(dir) !== undefined);
    child.kill('SIGTERM');
    expect((await done).code).toBe(143);
    expect(io.stderr).toContain(`interrupted (SIGTERM)`);
    expect(io.stderr).toContain(`; ${out} is left as it was\n`);
    expect(readdirSync(dir)).toEqual(['big.csv']);
    expect(readFileSync(out, 'utf8')).toBe('earlier\n');
  });

  it('Ctrl-C while writing to stdout says how far it got', async () => {
    const { child, out: io } = start(['synth', 'grind', model, '--count', '1000000000', '--quiet']);
    const done = exited(child);
    await until(() => io.stdout.length > 100_000);
    child.kill('SIGINT');
    expect((await done).code).toBe(130);
    expect(io.stderr).toMatch(
      /^modelworks synth: interrupted \(SIGINT\) after [\d,]+ of 1,000,000,000 rows; the output is incomplete\n$/,
    );
  });
});

describe('synth convert and calc from-xlsx --output', { timeout: 120_000 }, () => {
  it('convert writes the file whole; a failed conversion leaves the target as it was', () => {
    const dir = folder();
    const out = join(dir, 'q.sgm');
    expect(run(['synth', 'convert', model, out]).code).toBe(0);
    expect(readdirSync(dir)).toEqual(['q.sgm']);
    const converted = readFileSync(out, 'utf8');
    expect(converted).toMatch(/^dataset\.root = Ticket/m);
    const r = run(['synth', 'convert', join(dir, 'missing.xml'), out]);
    expect(r.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe(converted);
    expect(readdirSync(dir)).toEqual(['q.sgm']);
  });

  it('from-xlsx writes the spec whole; an unwritable target is one line, exit 2, nothing left', () => {
    const dir = folder();
    const out = join(dir, 'orders.json');
    const ok = run(['calc', 'from-xlsx', workbook('orders.xlsx'), '--output', out]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ id: 'orders' });
    expect(readdirSync(dir)).toEqual(['orders.json']);
    const missing = join(dir, 'no', 'orders.json');
    const r = run(['calc', 'from-xlsx', workbook('orders.xlsx'), '--output', missing]);
    expect(r).toMatchObject({
      code: 2,
      stderr: `modelworks: cannot write ${missing}: no such file or folder (ENOENT)\n`,
    });
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('the writer they share removes its temporary file on an interrupt and says so', async () => {
    // convert and from-xlsx finish too fast to interrupt reliably: the same writer, held open
    const dir = folder();
    const target = join(dir, 'spec.json');
    const script = `
      import { openAtomic } from ${JSON.stringify(pathToFileURL(join(root, 'dist/cli/atomic-file.js')).href)};
      const file = await openAtomic(${JSON.stringify(target)}, { prefix: 'modelworks' });
      file.stream.write('{"half": ', () => process.stdout.write('ready\\n'));
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const done = exited(child);
    await until(() => stdout.includes('ready'));
    expect(partial(dir)).toBeDefined();
    child.kill('SIGINT');
    expect((await done).code).toBe(130);
    expect(stderr).toMatch(
      new RegExp(
        `^modelworks: interrupted \\(SIGINT\\); removed the unfinished temporary file .+\\.partial; ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was not written\\n$`,
      ),
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
