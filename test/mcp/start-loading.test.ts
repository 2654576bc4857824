// What `modelworks mcp` loads before it answers `initialize` (issue 45): the tool modules (and the
// engines only they use), the language-model clients and the HTTP transport load on demand, after it. The built CLI runs
// as a child process with bench/import-log-hook.mjs logging every ES module file it loads; the files
// are read as source modules (test/helpers/loaded-modules.ts), so the test holds for the tsc build
// and for the bundle (`npm run build`), whose chunks load on demand the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, root, serverEnv } from './helpers/peers.js';
import { loadedModules } from '../helpers/loaded-modules.js';

const work = mkdtempSync(join(tmpdir(), 'mcp-start-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const line = (message: object): string => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
const INITIALIZE = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};

interface Run {
  /** The modules (src/…, node_modules/…) loaded when the answer to `initialize` arrived. */
  atInitialize: string[];
  /** ... and when the answer to tools/list did (sent after `initialized`). */
  atList: string[];
  toolCount: number;
}

function startAndList(name: string): Promise<Run> {
  const log = join(work, `${name}.txt`);
  const read = (): string[] => loadedModules(root, readFileSync(log, 'utf8').trim().split('\n'));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', join(root, 'bench/import-log-hook.mjs'), cli, 'mcp', '--store', 'memory'],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, BENCH_IMPORTS_LOG: log } },
    );
    let out = '';
    let atInitialize: string[] | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (atInitialize === undefined && out.includes('"id":1')) {
        atInitialize = read();
        child.stdin.write(line({ method: 'notifications/initialized' }));
        child.stdin.write(line({ id: 2, method: 'tools/list' }));
      }
      const listed = out.split('\n').find((l) => l.includes('"id":2'));
      if (listed && atInitialize) {
        const atList = read();
        child.kill();
        const toolCount = (JSON.parse(listed) as { result: { tools: unknown[] } }).result.tools.length;
        resolve({ atInitialize, atList, toolCount });
      }
    });
    child.on('exit', (code) => {
      if (!out.includes('"id":2')) reject(new Error(`exited ${code}: ${out}`));
    });
    child.stdin.write(line(INITIALIZE));
  });
}

const loaded = (modules: string[], part: string): boolean => modules.some((m) => m.includes(part));
/** dist/cli/main.js runs the esbuild bundle (npm run build), not the tsc build's files. */
const bundled = readFileSync(cli, 'utf8').includes('/bundle/');

describe('modelworks mcp start', () => {
  it('answers initialize before loading the tools, and lists them all after', async () => {
    const run = await startAndList('default');
    // none of these is needed to answer initialize (all but tool-catalog.js, new, were loaded before it)
    for (const part of [
      'src/mcp/tool-catalog',
      'src/mcp/calc-tools',
      'src/mcp/sheet-tools',
      'src/mcp/simulate-tool',
      'src/mcp/card-tools',
      'src/mcp/http',
      'node_modules/@anthropic-ai/sdk/',
      'node_modules/openai/',
      'node_modules/fastify/',
      // the store, the services and the engines: built after the answer (src/cli/mcp-services.ts)
      'src/cli/mcp-services',
      'src/service/calc-service',
      'src/store/',
      'src/calc/',
      'src/synth/',
      'src/sheet/',
      'node_modules/jsonata/',
      // the envelope check is generated ahead of time (jsonrpc-validator.generated.ts), and the
      // OpenTelemetry API loads only when tracing is on
      'node_modules/ajv/',
      'node_modules/@opentelemetry/',
      // the other commands' definitions: `modelworks mcp` registers only its own (src/cli/main.ts)
      'src/cli/all-commands',
      'src/cli/calc-commands',
      'src/cli/synth-commands',
      // the logger (pino): built with the services, nothing logs before them
      'src/observability/logger',
      'node_modules/pino/',
    ])
      expect(loaded(run.atInitialize, part), part).toBe(false);
    // the bundle (npm run build) also leaves out the SDK's own ajv (src/mcp/sdk-node-shims.ts) and
    // the zod locales but English (the SDK's zod imports keep only what is used; the tsc build's
    // zod loads them all)
    if (bundled)
      for (const part of [
        'node_modules/@modelcontextprotocol/server/dist/ajvProvider',
        'node_modules/@modelcontextprotocol/server/dist/shimsNode',
        'node_modules/zod/v4/locales/de.js',
        'node_modules/zod/v4/locales/zh-CN.js',
      ])
        expect(loaded(run.atInitialize, part), part).toBe(false);
    // with the memory store, the listing needs no database driver: the SQLite and PostgreSQL
    // stores, and the synth database port's drivers, load with the first use of their kind
    for (const part of [
      'src/store/sqlite-store',
      'src/store/postgres-store',
      'node_modules/better-sqlite3/',
      'node_modules/pg/',
      // nor the language-model client's rate limiter (built on its first call), nor all of semver
      // (the calc engine imports the three functions it uses)
      'node_modules/rate-limiter-flexible/',
      'node_modules/semver/index.js',
    ])
      expect(loaded(run.atList, part), part).toBe(false);
    expect(loaded(run.atList, 'node_modules/semver/functions/satisfies')).toBe(true);
    // the listing then has them all: calc's, synth's and the card tools
    expect(loaded(run.atList, 'src/mcp/tool-catalog')).toBe(true);
    expect(loaded(run.atList, 'src/mcp/card-tools')).toBe(true);
    expect(run.toolCount).toBeGreaterThan(40);
    expect(run.atInitialize.length).toBeLessThan(run.atList.length);
  }, 60_000);
});

/**
 * The services are built after the first answer (or 100 ms after start without one), but a
 * malformed setting still stops the server at start: exit 2 and one line naming it, whether a
 * client has sent something or not (its input stays open either way).
 */
function startRefused(
  sendInitialize: boolean,
): Promise<{ code: number | null; stderr: string; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'mcp'], {
      cwd: root,
      env: { ...serverEnv, MODELWORKS_SYNTH_GENERATE_MODE: 'sideways' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let out = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    if (sendInitialize) child.stdin.write(line(INITIALIZE));
    const timer = setTimeout(() => child.kill(), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, out });
    });
  });
}

describe('a malformed setting with the deferred start', () => {
  it.each([
    ['before any message', false],
    ['after initialize', true],
  ])(
    'stops the server %s: exit 2, the setting named',
    async (_name, sendInitialize) => {
      const { code, stderr, out } = await startRefused(sendInitialize);
      expect(code).toBe(2);
      expect(stderr).toContain("MODELWORKS_SYNTH_GENERATE_MODE must be embedded or proxy (got 'sideways')");
      // stdout holds protocol messages only (the answer to initialize, when one was asked)
      for (const l of out.split('\n').filter(Boolean))
        expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });
    },
    30_000,
  );
});
