// The esbuild bundle of the CLI (scripts/bundle-cli.mjs, run by `npm run build`) works end to end
// (issue 45): built here into a folder of its own under dist/ (the tsc build must exist: its
// worker entries are what the bundle starts), then run as child processes — the MCP server over
// stdio in both protocol eras, remote mode against a bundled `serve`, the worker threads, the
// files read at run time — and compared with the unbundled server run from the sources.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnnounced } from '../helpers/child.js';
import { root, serverEnv, stdioClient } from './helpers/peers.js';
import { priceSpec } from './helpers/specs.js';

const outdir = join(root, 'dist', `bundle-test-${process.pid}`);
const bundled = join(outdir, 'main.js');
const cleanups: (() => unknown)[] = [];

beforeAll(() => {
  if (!existsSync(join(root, 'dist/service/expression-worker.js')))
    throw new Error('no tsc build: run `npx tsc -p tsconfig.build.json` first');
  const built = spawnSync(
    process.execPath,
    [join(root, 'scripts/bundle-cli.mjs'), '--outdir', outdir, '--no-bin'],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  if (built.status !== 0) throw new Error(`bundling failed: ${built.stderr}`);
}, 130_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(outdir, { recursive: true, force: true });
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SPEC = priceSpec('price');

/** An SDK client on a stdio child running `args` (node's own arguments first). */
async function connect(args: string[], pin?: string): Promise<Client> {
  const client = await stdioClient({ name: 'bundle-test', args, pin });
  cleanups.push(() => client.close());
  return client;
}

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Json> {
  const out = await client.callTool({ name, arguments: args });
  if (out.isError) throw new Error(`${name} failed: ${JSON.stringify(out.content)}`);
  return JSON.parse((out.content[0] as { text: string }).text) as Json;
}

/** create_model, mutate, get_state and eval_expression (run in the expression worker thread). */
async function modelFlow(client: Client, id: string): Promise<void> {
  expect(await ok(client, 'create_model', { spec: { ...SPEC, id } })).toMatchObject({ id });
  await ok(client, 'mutate', { id, mutations: { '$.cost': 10 } });
  expect(await ok(client, 'get_state', { id })).toMatchObject({ cost: 10, price: 12 });
  expect(await ok(client, 'eval_expression', { expr: '$sum([1..a])', input: { a: 6 } })).toMatchObject({
    result: 21,
  });
}

describe('the bundled CLI', () => {
  it('finds the worker entries and package files where the tsc build put them', () => {
    // every file path the bundle resolves against a module's own URL (import.meta.url rewritten
    // by the bundle step): worker entries, guides, web assets, package.json
    const code = readdirSync(outdir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(outdir, f), 'utf8'))
      .join('\n');
    const at = (path: string, base: string) => fileURLToPath(new URL(path, base));
    const dir = pathToFileURL(`${outdir}/`).href;
    // each module's own (tsc-built) file, which the worker entries and package files sit beside
    const modules = [...code.matchAll(/new URL\("([^"]+)", import\.meta\.url\)\.href/g)].map(([, p]) =>
      at(p!, dir),
    );
    for (const module of ['service/expression-workers.js', 'synth-io/parallel/worker-start.js', 'version.js'])
      expect(modules, module).toContain(join(root, 'dist', module));
    const targets = [
      ...modules,
      ...[...code.matchAll(/new URL\("(\.[^"]+)", new URL\("([^"]+)", import\.meta\.url\)\.href\)/g)].map(
        ([, path, module]) => at(path!, pathToFileURL(at(module!, dir)).href),
      ),
    ];
    expect(targets).toContain(join(root, 'dist/service/expression-worker.js'));
    expect(targets).toContain(join(root, 'package.json'));
    // (the .ts twins are for a run from the sources, which a bundle never is)
    for (const target of targets.filter((t) => !t.endsWith('.ts')))
      expect(existsSync(target), target).toBe(true);
  });

  it('holds every module once: one SDK, one zod, one Ajv for all chunks', () => {
    const meta = JSON.parse(readFileSync(join(outdir, 'meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const seen = new Map<string, number>();
    for (const [file, output] of Object.entries(meta.outputs))
      if (file.endsWith('.js'))
        for (const input of Object.keys(output.inputs)) seen.set(input, (seen.get(input) ?? 0) + 1);
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
    for (const pkg of ['@modelcontextprotocol/server/', 'zod/', 'ajv/', 'src/mcp/server.ts'])
      expect(
        [...seen.keys()].some((input) => input.includes(pkg)),
        pkg,
      ).toBe(true);
  });

  it("stands in for the SDK's Node shims: the SDK's own ajv is not bundled (it loads when first needed)", () => {
    const meta = JSON.parse(readFileSync(join(outdir, 'meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const inputs = Object.values(meta.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs).toContain('src/mcp/sdk-node-shims.ts');
    expect(
      inputs.filter((input) => /@modelcontextprotocol\/server\/dist\/(shimsNode|ajvProvider)/.test(input)),
    ).toEqual([]);
  });

  it('serves MCP over stdio: the same listing as the unbundled server, then a model flow', async () => {
    const bundle = await connect([bundled, 'mcp']);
    const unbundled = await connect(['--import', 'tsx', join(root, 'src/cli/main.ts'), 'mcp']);
    const [fromBundle, fromSources] = await Promise.all([bundle.listTools(), unbundled.listTools()]);
    expect(JSON.stringify(fromBundle)).toBe(JSON.stringify(fromSources));
    expect(fromBundle.tools.length).toBeGreaterThan(40);
    await modelFlow(bundle, 'legacy-era');
    // the guides are files read from the package, found from the bundle's folder
    const guide = await bundle.readResource({ uri: 'valem://guide/model-spec-format' });
    expect(JSON.stringify(guide.contents)).toContain('derivations');
  }, 90_000);

  it('serves the 2026-07-28 era over stdio', async () => {
    const client = await connect([bundled, 'mcp'], '2026-07-28');
    expect(client.getProtocolEra()).toBe('modern');
    await modelFlow(client, 'modern-era');
  }, 60_000);

  it('exports traces over OTLP/HTTP (the OpenTelemetry packages are CommonJS, loaded lazily)', async () => {
    // a collector of our own: the spans the bundled server posts to /v1/traces as OTLP JSON
    const bodies: string[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => collector.close(resolve)));
    const { port } = collector.address() as AddressInfo;
    const client = await stdioClient({
      name: 'bundle-tracing',
      args: [bundled, 'mcp'],
      env: {
        ...serverEnv,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
    cleanups.push(() => client.close());
    await modelFlow(client, 'traced');
    await expect.poll(() => bodies.join('\n'), { timeout: 20_000 }).toMatch(/"name":"calc\.cycle"/);
    expect(bodies.join('\n')).toMatch(/"name":"tools\/call mutate"/);
  }, 60_000);

  it('prints only protocol messages on stdout', async () => {
    const child = spawn(process.execPath, [bundled, 'mcp', '--store', 'memory'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: process.env,
    });
    cleanups.push(() => child.kill());
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const send = (m: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    send({ id: 3, method: 'tools/call', params: { name: 'create_model', arguments: { spec: SPEC } } });
    const deadline = Date.now() + 30_000;
    while (!out.includes('"id":3') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  }, 60_000);

  it('runs remote mode (`mcp --url`) against a bundled `serve`', async () => {
    const serve = await startAnnounced({
      args: [bundled, 'serve', '--port', '0', '--store', 'memory'],
      env: process.env,
      announce: /serving (http:\/\/[^\s]+)/,
      what: 'bundled modelworks serve',
    });
    cleanups.push(() => serve.child.kill());
    const client = await connect([bundled, 'mcp', '--url', serve.match[1]!, '--tools', 'calc']);
    expect(await ok(client, 'create_model', { spec: { ...SPEC, id: 'remote' } })).toMatchObject({
      id: 'remote',
    });
    await ok(client, 'mutate', { id: 'remote', mutations: { '$.cost': 5 } });
    expect(await ok(client, 'get_state', { id: 'remote' })).toMatchObject({ cost: 5, price: 6 });
  }, 60_000);

  it('starts the synth row workers from the built output, and prints the package version', () => {
    const grind = (workers: string) =>
      spawnSync(
        process.execPath,
        [
          bundled,
          'synth',
          'grind',
          'examples/synth/support-queue.xml',
          '--count',
          '200',
          '--partitions',
          '2',
          '--workers',
          workers,
        ],
        { cwd: root, encoding: 'utf8', timeout: 60_000 },
      );
    const threaded = grind('2');
    expect(threaded.stderr).toMatch(/^Emitted 200 observation/);
    expect(threaded.status).toBe(0);
    // the rows depend on the partitions, not on the threads
    expect(threaded.stdout.trim().split('\n')).toHaveLength(200);
    expect(threaded.stdout).toBe(grind('1').stdout);
    const version = spawnSync(process.execPath, [bundled, '--version'], { encoding: 'utf8' });
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
  }, 90_000);
});
