// A CLI child process that announces itself on stderr (a server printing its URL): started, waited
// for until a line matches, and stopped with SIGTERM (SIGKILL after 5 s).
import { spawn, type ChildProcess } from 'node:child_process';

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
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${options.what} did not announce itself within 20 s: ${stderr}`));
    }, 20_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const match = options.announce.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ match, child, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.what} exited (${code}) before it was ready: ${stderr}${stdout}`));
    });
  });
}
