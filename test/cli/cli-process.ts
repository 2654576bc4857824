// The built CLI as a user runs it: a child process on dist/cli/main.js (run `npm run build`, or
// `npx tsc -p tsconfig.build.json`, first).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const cli = join(root, 'dist/cli/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): CliResult {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    input: opts.input ?? '',
    env: { ...process.env, ...opts.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A running CLI with its output collected as it comes. */
export function start(args: string[]): { child: ChildProcess; out: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  return { child, out };
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** A stack frame line, which no failure may show without --debug. */
export const STACK_FRAME = /^\s+at /m;
