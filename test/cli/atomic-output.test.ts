// Output files are written whole or not at all (docs/cli.md, "Output files"): a temporary file
// beside the target, renamed on success, removed on failure; an interrupted run removes it and
// says so. Child processes on the built CLI (`npm run build` first).
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { STACK_FRAME, cli, exited, root, run, start } from './cli-process.js';

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

// Issue 47: a rename replaces whatever the name points at, so only a regular file (or none) is
// replaced; a device, FIFO or standard stream is written in place, a symlink's target replaced.
describe('--output onto what is not a regular file', { timeout: 120_000 }, () => {
  const grindArgs = ['synth', 'grind', model, '--count', '300', '--seed', '7', '--quiet'];
  const expected = () => run(grindArgs).stdout;

  it('a FIFO stays a FIFO and its reader gets the rows', async () => {
    const dir = folder();
    const fifo = join(dir, 'rows.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // the reader waits on the other end, as `grind --output fifo & consumer < fifo` would
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let read = '';
    reader.stdout.on('data', (c: Buffer) => (read += c.toString('utf8')));
    const readerDone = exited(reader);
    const { child, out } = start([...grindArgs, '--output', fifo]);
    const code = (await exited(child)).code;
    if (code !== 0 || !lstatSync(fifo).isFIFO()) reader.kill(); // the old writer never opened it
    await readerDone;
    expect({ code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(read).toBe(expected());
    expect(readdirSync(dir)).toEqual(['rows.fifo']);
  });

  it('a symlink is kept and its target file replaced whole', () => {
    const dir = folder();
    const real = join(dir, 'real');
    mkdirSync(real);
    writeFileSync(join(real, 'rows.csv'), 'earlier\n');
    chmodSync(join(real, 'rows.csv'), 0o640);
    const link = join(dir, 'rows.csv');
    symlinkSync(join('real', 'rows.csv'), link);
    const r = run([...grindArgs, '--output', link]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join('real', 'rows.csv'));
    expect(readFileSync(join(real, 'rows.csv'), 'utf8')).toBe(expected());
    expect(statSync(join(real, 'rows.csv')).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['real', 'rows.csv']);
    expect(readdirSync(real)).toEqual(['rows.csv']);
  });

  it('a dangling symlink creates its target and keeps the link', () => {
    const dir = folder();
    const link = join(dir, 'spec.json');
    symlinkSync('made.json', link);
    const r = run(['calc', 'from-xlsx', workbook('orders.xlsx'), '--output', link]);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'made.json'), 'utf8'))).toMatchObject({ id: 'orders' });
  });

  it('"-" is standard output, not a file named "-"', () => {
    const dir = folder();
    const r = spawnSync(process.execPath, [cli, ...grindArgs, '--output', '-'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(expected());
    expect(readdirSync(dir)).toEqual([]);
  });

  // mknod needs root (CAP_MKNOD); the node is made in a temporary folder, never /dev itself
  const root0 = process.getuid?.() === 0;
  if (!root0) console.warn('[atomic-output] device-node tests skipped: mknod needs root');
  it.skipIf(!root0)('a character device (a /dev/null made with mknod) stays a device', () => {
    const dir = folder();
    const device = join(dir, 'null');
    expect(spawnSync('mknod', ['-m', '666', device, 'c', '1', '3']).status).toBe(0);
    const before = lstatSync(device);
    symlinkSync('null', join(dir, 'null.sgm'));
    for (const args of [
      [...grindArgs, '--output', device],
      ['calc', 'from-xlsx', workbook('orders.xlsx'), '--output', device],
      // convert takes the syntax from the extension: a link named .sgm leads to the device
      ['synth', 'convert', model, join(dir, 'null.sgm')],
    ]) {
      const r = run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const after = lstatSync(device);
      expect(after.isCharacterDevice(), args.join(' ')).toBe(true);
      expect(after.rdev).toBe(before.rdev);
    }
    expect(lstatSync(join(dir, 'null.sgm')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['null', 'null.sgm']);
  });
});

describe('--output onto a Unix socket', { timeout: 120_000 }, () => {
  it('connects and sends the rows; the socket is left in place', async () => {
    const dir = folder();
    const path = join(dir, 'rows.sock');
    let received = '';
    const server = createServer((socket) =>
      socket.on('data', (c: Buffer) => (received += c.toString('utf8'))),
    );
    await new Promise<void>((ok) => server.listen(path, ok));
    try {
      const args = ['synth', 'grind', model, '--count', '300', '--seed', '7', '--quiet'];
      const { child, out } = start([...args, '--output', path]);
      expect((await exited(child)).code, out.stderr).toBe(0);
      await until(() => received.length > 0 && received === run(args).stdout, 10_000);
      expect(lstatSync(path).isSocket()).toBe(true);
      expect(readdirSync(dir)).toEqual(['rows.sock']);
    } finally {
      server.close();
    }
  });
});
