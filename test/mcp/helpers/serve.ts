// A `modelworks serve` child process for cross-process tests (needs a build: dist/cli/main.js).
import type { ChildProcess } from 'node:child_process';
import { startAnnounced } from '../../helpers/child.js';
import { cli } from './peers.js';

export interface RunningServe {
  url: string;
  child: ChildProcess;
}

/** Starts `modelworks serve --port 0` on `store` with `env` added; resolves once it listens. */
export async function startServe(store: string, env: Record<string, string> = {}): Promise<RunningServe> {
  const started = await startAnnounced({
    args: [cli, 'serve', '--port', '0', '--store', store],
    env: { ...process.env, ...env },
    announce: /serving (http:\/\/[^\s]+)/,
    what: 'modelworks serve',
  });
  return { url: started.match[1]!, child: started.child };
}
