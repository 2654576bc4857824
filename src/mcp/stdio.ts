/**
 * stdio transport: one JSON-RPC message per line on stdin/stdout, implementing the SDK's Transport
 * interface. Compared with the SDK's StdioServerTransport it drops a leading UTF-8 BOM (which would
 * make the first message vanish), answers a line that is not JSON with -32700 and a JSON value that
 * is not a JSON-RPC message with -32600 (both vanish silently there), and parses each line once:
 * the SDK's transport behind a line filter parsed every message twice, a fifth of a small call's
 * server time. The envelope check is the SDK's JSONRPCMessageSchema restated as a JSON Schema
 * (jsonrpc-schema.ts) and compiled by ajv ahead of time (jsonrpc-validator.generated.ts), which
 * answers in a fraction of the time the zod union takes (its failed branches build error objects).
 * Only protocol messages go to stdout.
 */
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Server, Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import { serveStdio as serveStdioEntry } from '@modelcontextprotocol/server/stdio';
import type { Unsubscribe } from '../service/calc-api.js';
import { listenedResourceUris } from './listen.js';
import { watchResource } from './server.js';
import { validate as validateJsonRpcMessage } from './jsonrpc-validator.generated.js';

export { JSONRPC_MESSAGE_SCHEMA } from './jsonrpc-schema.js';

// ajv's standalone code for JSONRPC_MESSAGE_SCHEMA, generated ahead of time: compiling it at
// start took ~35–55 ms, all of it before `initialize` could be answered
const isJsonRpcMessage = validateJsonRpcMessage as (value: unknown) => value is JSONRPCMessage;

/**
 * A line longer than this is answered with one -32700 and dropped up to its newline, whether it
 * arrives whole or in pieces; the next line is read as usual.
 */
export const MAX_LINE_CHARS = 10 * 1024 * 1024;

export class NdjsonServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Sees each inbound message before the server does (serveStdio's listen watching). */
  inspect?: (message: JSONRPCMessage) => void;
  /** Settles once the transport has closed (stdin ended, or close()). */
  readonly closed: Promise<void>;
  private settleClosed!: () => void;

  /** The start of the line being read, in the pieces it arrived in. */
  private pending: string[] = [];
  private pendingChars = 0;
  /** Inside a line that was refused as too long (its newline has not arrived yet). */
  private discarding = false;
  private first = true;
  private isClosed = false;
  /** Keeps a multi-byte character split across two chunks whole. */
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {
    this.closed = new Promise((resolve) => (this.settleClosed = resolve));
  }

  private readonly onData = (chunk: Buffer): void => {
    let text = this.decoder.write(chunk);
    if (this.first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = false;
    }
    let start = 0;
    if (this.discarding) {
      // the rest of a line already answered as too long: drop it up to its newline
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      this.discarding = false;
      start = nl + 1;
    }
    // only the new text is searched: a long line in many chunks costs its length once
    let nl: number;
    while ((nl = text.indexOf('\n', start)) >= 0) {
      const piece = text.slice(start, nl);
      if (this.pendingChars + piece.length > MAX_LINE_CHARS) this.refuseLongLine();
      else this.line(this.pending.length === 0 ? piece : this.pending.join('') + piece);
      this.pending = [];
      this.pendingChars = 0;
      start = nl + 1;
    }
    if (start >= text.length) return;
    const rest = start === 0 ? text : text.slice(start);
    this.pendingChars += rest.length;
    if (this.pendingChars > MAX_LINE_CHARS) {
      this.pending = [];
      this.pendingChars = 0;
      this.discarding = true;
      this.refuseLongLine();
    } else {
      this.pending.push(rest);
    }
  };

  /** One -32700 per over-long line, however it arrives; nothing of it is parsed. */
  private refuseLongLine(): void {
    this.reply(-32700, `Parse error: a message longer than ${MAX_LINE_CHARS} characters`);
  }

  private readonly onEnd = (): void => {
    const last = this.pending.join('') + this.decoder.end();
    if (!this.discarding && last.trim() !== '') this.line(last);
    this.pending = [];
    this.pendingChars = 0;
    void this.close();
  };

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    this.isClosed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
    this.settleClosed();
    return Promise.resolve();
  }

  private line(raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.reply(-32700, 'Parse error: the line is not valid JSON');
      return;
    }
    if (!isJsonRpcMessage(value)) {
      this.reply(-32600, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    try {
      this.inspect?.(value);
      this.onmessage?.(value);
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }

  private reply(code: number, message: string): void {
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })}\n`);
  }
}

/**
 * Serves MCP over this process's stdin/stdout until stdin ends, through the SDK's era-aware entry:
 * an `initialize` opening pins a 2024-11-05 … 2025-11-25 connection (served as before), a
 * `server/discover` or enveloped opening a 2026-07-28 one. `createServer` builds the instance the
 * connection is pinned to (and, for a discover probe, one more that is dropped).
 */
export async function serveStdio(
  createServer: (context?: { era: 'legacy' | 'modern' }) => Server,
  transport: NdjsonServerTransport = new NdjsonServerTransport(),
): Promise<void> {
  let pinned: Server | undefined;
  // 2026-07-28 listen streams: a resource a listen names is watched for the rest of the connection;
  // the entry routes sendResourceUpdated onto the streams that asked for it (and only those)
  const watches = new Map<string, Unsubscribe>();
  transport.inspect = (message) => {
    for (const uri of listenedResourceUris(message)) {
      if (watches.has(uri) || !pinned) continue;
      const server = pinned;
      const off = watchResource(server, uri, () => void server.sendResourceUpdated({ uri }).catch(() => {}));
      if (off) watches.set(uri, off);
    }
  };
  const handle = serveStdioEntry(
    (context) => {
      pinned = createServer({ era: context.era });
      return pinned;
    },
    { transport, onerror: () => {} },
  );
  await transport.closed;
  for (const off of watches.values()) off();
  await handle.close();
}
