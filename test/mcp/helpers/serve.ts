// A `modelworks serve` child process for cross-process tests (needs a build: dist/cli/main.js).
import { spawn, type ChildProcess } from 'node:child_process';
import { cli } from './peers.js';

export interface RunningServe {
  url: string;
  child: ChildProcess;
}

/** Starts `modelworks serve --port 0` on `store` with `env` added; resolves once it listens. */
export function startServe(store: string, env: Record<string, string> = {}): Promise<RunningServe> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--store', store], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 20_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      err += chunk;
      const m = /serving (http:\/\/[^\s]+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}
