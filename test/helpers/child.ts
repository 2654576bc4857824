// A CLI child process that announces itself on stderr (a server printing its URL): started, waited
// for until a line matches, and stopped with SIGTERM (SIGKILL after 5 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { watchdog } from './time.js';

export interface AnnouncedChild {
  /** The match of `announce` in stderr. */
  match: RegExpExecArray;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then waits for the exit; the exit code (null if it had to be killed). */
  stop: () => Promise<number | null>;
}

export function startAnnounced(options: {
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** The stderr text that says the child is ready. */
  announce: RegExp;
  /** For error messages, e.g. "synth serve". */
  what: string;
}): Promise<AnnouncedChild> {
  const child = spawn(process.execPath, options.args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  // 'close', not 'exit': by then stderr has been read to its end
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const cancel = watchdog(5000, () => child.kill('SIGKILL'));
    const code = await exited;
    cancel();
    return code;
  };
  return new Promise((resolve, reject) => {
    const cancel = watchdog(60_000, () => {
      void stop();
      reject(new Error(`${options.what} did not announce itself within 60 s: ${stderr}`));
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const match = options.announce.exec(stderr);
      if (match) {
        cancel();
        resolve({ match, child, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      cancel();
      reject(new Error(`${options.what} exited (${code}) before it was ready: ${stderr}${stdout}`));
    });
  });
}
