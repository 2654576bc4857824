// Shared by the HTTP benchmarks: children that serve, their CPU time, and one keep-alive client.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from 'undici';

/** Starts `node …args` and resolves once it logs `serving <url>` on stderr. */
export function startChild(args, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MODELWORKS_API_KEY: '', ...env },
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /serving (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${err}`)));
  });
}

/** CPU seconds a process has used (user + system; Linux /proc, else undefined). */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined;
  }
}

/**
 * One keep-alive connection, one request at a time, through undici's Client (no pool, no fetch
 * layer: fetch alone costs more per request than a bare Fastify route, so it would hide the
 * servers' difference).
 */
export function httpClient(url) {
  const client = new Client(url, { pipelining: 1 });
  return {
    async post(path, value) {
      const res = await client.request({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(value),
      });
      return { status: res.statusCode, body: await res.body.text() };
    },
    close: () => client.close(),
  };
}
