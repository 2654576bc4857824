// A `modelworks serve` child on a SQLite store in a temporary folder, on a port chosen here so a
// test can stop it and start it again at the same address (needs a build: dist/cli/main.js).
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnnounced, type AnnouncedChild } from '../helpers/child.js';
import { cli } from '../mcp/helpers/peers.js';

/** A port free now (the OS picks it; the child binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Serve {
  url: string;
  port: number;
  child: AnnouncedChild;
  /** Everything the server wrote to stderr (its request log included). */
  log: () => string;
}

/** Starts `modelworks serve` on `port` with `store` (default: SQLite in a new temporary folder). */
export async function startServe(
  options: { port?: number; store?: string; env?: Record<string, string> } = {},
): Promise<Serve> {
  const port = options.port ?? (await freePort());
  const store = options.store ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'mw-client-')), 'models.db')}`;
  const child = await startAnnounced({
    args: [cli, 'serve', '--port', String(port), '--store', store],
    env: { ...process.env, MODELWORKS_LOG_LEVEL: 'info', ...options.env },
    announce: /serving (http:\/\/[^\s]+)/,
    what: 'modelworks serve',
  });
  return { url: child.match[1]!, port, child, log: child.stderr };
}

/** The car loan example: inputs with bounds, a rollback constraint, two views. */
export const carLoanSpec = (id = 'car-loan'): Record<string, unknown> => ({
  ...(JSON.parse(
    readFileSync(new URL('../../examples/calc/car-loan-calculator.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>),
  id,
});
