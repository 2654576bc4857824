// Real peers for the MCP server: the built CLI (`dist/cli/main.js`, run `npm run build` first;
// `npm test` does) as a child process, driven by the official SDK Client over stdio or Streamable
// HTTP, or by raw JSON lines when a test needs to see the wire.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startAnnounced } from '../../helpers/child.js';
import { watchdog, within } from '../../helpers/time.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const cli = join(root, 'dist/cli/main.js');

/**
 * The environment every server child gets: ours, with the in-memory store, so tests neither see
 * nor leave models in the user's default store (nor share one between the children of a run).
 */
export const serverEnv: NodeJS.ProcessEnv = { ...process.env, MODELWORKS_STORE: 'memory' };

/** What `client.callTool` resolves to, narrowed to the fields these tests read. */
export interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface Peer {
  transport: 'stdio' | 'http';
  client: Client;
  /** Calls a tool; the raw result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  /** Calls a tool that must succeed; its parsed text block (checked against structuredContent). */
  ok(name: string, args?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** The first content block's text. */
export function textOf(result: CallResult): string {
  const block = result.content[0];
  if (!block || block.type !== 'text' || typeof block.text !== 'string')
    throw new Error(`expected a text block, got ${JSON.stringify(result.content)}`);
  return block.text;
}

export const jsonOf = (result: CallResult): unknown => JSON.parse(textOf(result));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function makePeer(transport: Peer['transport'], client: Client, close: () => Promise<void>): Peer {
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallResult> =>
    (await client.callTool({ name, arguments: args })) as CallResult;
  return {
    transport,
    client,
    call,
    async ok(name, args) {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
      const text = textOf(result);
      const parsed: unknown = JSON.parse(text);
      // the result-shape contract: pretty JSON text; structuredContent exactly for object results
      if (text !== JSON.stringify(parsed, null, 2)) throw new Error(`${name}: text is not pretty JSON`);
      if (isPlainObject(parsed)) {
        if (JSON.stringify(result.structuredContent) !== JSON.stringify(parsed))
          throw new Error(`${name}: structuredContent differs from the text block`);
      } else if (result.structuredContent !== undefined) {
        throw new Error(`${name}: a non-object result carries structuredContent`);
      }
      return parsed;
    },
    close,
  };
}

const newClient = () => new Client({ name: 'modelworks-tests', version: '1.0.0' });

/**
 * A bare SDK client on a stdio child running node with `args` (node's own arguments first),
 * optionally pinned to a protocol revision; the caller closes it.
 */
export async function stdioClient(options: {
  name: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  pin?: string;
}): Promise<Client> {
  const { name, args, env = serverEnv, pin } = options;
  const client = new Client({ name, version: '1.0.0' }, pin ? { versionNegotiation: { mode: { pin } } } : {});
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: env as Record<string, string>,
      cwd: root,
      stderr: 'ignore',
    }),
  );
  return client;
}

/** The server as a stdio child of an SDK client. */
export async function connectStdio(extraArgs: string[] = []): Promise<Peer & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...extraArgs],
    env: serverEnv as Record<string, string>,
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = newClient();
  await client.connect(transport);
  return Object.assign(
    makePeer('stdio', client, () => client.close()),
    { stderr: () => stderr },
  );
}

export interface HttpServerChild {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then waits for the exit; the exit code (null if it had to be killed). */
  stop(): Promise<number | null>;
}

/** `modelworks mcp --http --port 0`; resolves with the URL it prints on stderr. */
export async function startHttpServer(env: NodeJS.ProcessEnv = serverEnv): Promise<HttpServerChild> {
  const started = await startAnnounced({
    args: [cli, 'mcp', '--http', '--host', '127.0.0.1', '--port', '0'],
    env,
    cwd: root,
    announce: /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/,
    what: 'modelworks mcp --http',
  });
  return { url: started.match[1]!, child: started.child, stderr: started.stderr, stop: started.stop };
}

/**
 * An SDK client over Streamable HTTP. `standaloneStream` resolves once the server has accepted the
 * client's GET event stream, the channel for notifications that answer no request (resource
 * updates): a subscription test waits for it so no push is sent before anyone listens.
 */
export async function connectHttp(url: string): Promise<Peer & { standaloneStream: Promise<void> }> {
  let streamUp!: () => void;
  const standaloneStream = new Promise<void>((resolve) => (streamUp = resolve));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET' && response.ok) streamUp();
      return response;
    },
  });
  const client = newClient();
  await client.connect(transport);
  const close = async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  };
  return Object.assign(makePeer('http', client, close), { standaloneStream });
}

/** Raw newline-delimited JSON-RPC over a stdio child: for what the SDK client hides. */
export class RawStdio {
  readonly child: ChildProcess;
  /** Every stdout line, verbatim. */
  readonly lines: string[] = [];
  /** Every stdout line that parsed. */
  readonly messages: Record<string, unknown>[] = [];
  private waiters: {
    test: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];

  constructor(args: string[] = []) {
    this.child = spawn(process.execPath, [cli, 'mcp', ...args], {
      cwd: root,
      env: serverEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr!.resume();
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      this.messages.push(msg);
      this.waiters = this.waiters.filter((w) => {
        if (!w.test(msg)) return true;
        w.resolve(msg);
        return false;
      });
    });
  }

  /** Writes raw text (add the newline yourself). */
  write(text: string | Buffer): void {
    this.child.stdin!.write(text);
  }

  send(message: Record<string, unknown>): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** The first message (already received or still to come) that passes `test`. */
  waitFor(
    test: (m: Record<string, unknown>) => boolean,
    what = 'a message',
  ): Promise<Record<string, unknown>> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    const arrived = new Promise<Record<string, unknown>>((resolve) => this.waiters.push({ test, resolve }));
    return within(15_000, `waiting for ${what}`, arrived).catch((err: Error) => {
      throw new Error(`${err.message}; got ${this.lines.join('\n')}`);
    });
  }

  response(id: number | string): Promise<Record<string, unknown>> {
    return this.waitFor((m) => m.id === id && ('result' in m || 'error' in m), `the response to ${id}`);
  }

  async request(
    id: number,
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.response(id);
  }

  initializeParams(protocolVersion: string): Record<string, unknown> {
    return { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } };
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end();
    const cancel = watchdog(5000, () => this.child.kill('SIGKILL'));
    await exited;
    cancel();
  }
}
