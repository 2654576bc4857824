// Real peers for the synth tools: the built CLI (`npm run build` first) as an MCP server child over
// stdio, `modelworks synth serve` as a child on a loopback port, and `modelworks synth grind` for
// the bytes generated data must equal.
import { execFile, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { cli, root } from '../mcp/helpers/peers.js';
import { startAnnounced } from '../helpers/child.js';

export { cli, root };

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const SUPPORT_QUEUE = readFileSync(join(root, 'examples/synth/support-queue.xml'), 'utf8');
export const SKIRMISH = readFileSync(join(root, 'examples/synth/skirmish.sgm'), 'utf8');

/** The environment of every child: ours, with the memory store and no inherited synth or MCP settings (nor SpiceGrinder aliases). */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(MODELWORKS_SYNTH_|MODELWORKS_MCP_|SPICEGRINDER_MCP_)/.test(k)) env[k] = v;
  return { ...env, MODELWORKS_STORE: 'memory', ...extra };
}

export interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

export interface SynthPeer {
  client: Client;
  call(name: string, args?: Json): Promise<CallResult>;
  /** A call that must succeed: its structured content. */
  ok(name: string, args?: Json): Promise<Json>;
  stderr(): string;
  /** The server child's process id. */
  pid(): number | null;
  close(): Promise<void>;
}

/** `modelworks mcp --tools synth` (or other args) as a stdio child of an SDK client. */
export async function connectSynth(
  env: Record<string, string> = {},
  args: string[] = ['--tools', 'synth'],
): Promise<SynthPeer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...args],
    env: childEnv(env),
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'synth-mcp-tests', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, a: Json = {}): Promise<CallResult> =>
    (await client.callTool({ name, arguments: a }, { timeout: 120_000 })) as CallResult;
  return {
    client,
    call,
    async ok(name, a) {
      const r = await call(name, a);
      if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text ?? ''}`);
      const text = r.content[0]?.text ?? '';
      expectSame(JSON.parse(text), r.structuredContent, name);
      return r.structuredContent!;
    },
    stderr: () => stderr,
    pid: () => transport.pid,
    close: () => client.close(),
  };
}

function expectSame(a: unknown, b: unknown, what: string): void {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: text and structuredContent differ`);
}

/** Reads a generation the way an agent would: the preview, then pages from rowCount on. */
export async function readAll(
  peer: SynthPeer,
  generated: Json,
  limit?: number,
): Promise<{ text: string; pages: number }> {
  let text = generated.preview as string;
  let offset = generated.rowCount as number;
  let pages = 0;
  let hasMore = generated.hasMore as boolean;
  while (hasMore) {
    const page = await peer.ok('read_generation', {
      generationId: generated.generationId,
      offset,
      ...(limit ? { limit } : {}),
    });
    if (page.offset !== offset || page.rowCount < 1) throw new Error(`bad page ${JSON.stringify(page)}`);
    text += page.data as string;
    offset += page.rowCount as number;
    hasMore = page.hasMore as boolean;
    pages++;
  }
  if (offset !== generated.totalCount) throw new Error(`read ${offset} of ${generated.totalCount} rows`);
  return { text, pages };
}

/** What `modelworks synth grind` writes to stdout for model text on stdin. */
export function grindBytes(
  modelText: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [cli, 'synth', 'grind', '-', '--quiet', ...args],
      { cwd: root, maxBuffer: 256 * 1024 * 1024, env: childEnv(env) },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
    child.stdin!.end(modelText);
  });
}

export interface ServiceChild {
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait; the exit code. */
  stop(): Promise<number | null>;
}

/** `modelworks synth serve` on loopback (port 0 = any free port); resolves once it listens. */
export async function startService(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<ServiceChild> {
  const started = await startAnnounced({
    args: [cli, 'synth', 'serve', '--host', '127.0.0.1', ...args],
    env: childEnv(env),
    cwd: root,
    announce: /listening at (http:\/\/[^\s:]+:(\d+))/,
    what: 'synth serve',
  });
  const { match, child, stderr, stop } = started;
  return { url: match[1]!, port: Number(match[2]), child, stderr, stop };
}

/** The six synth tools, sorted by name. */
/** The seed's six synth tools plus ours beside them (compare_sample, fit_model), sorted. */
export const SYNTH_TOOLS = [
  'analyze_model',
  'compare_sample',
  'fit_model',
  'generate',
  'get_allowlists',
  'list_components',
  'read_generation',
  'validate_model',
];
