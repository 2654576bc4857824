/**
 * stdio transport: one JSON message per line on stdin/stdout. A leading UTF-8 BOM is dropped, blank
 * lines are skipped, and a line that is not JSON is answered with a JSON-RPC parse error (-32700)
 * instead of vanishing. Only protocol messages go to stdout.
 */
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export class LineGuard extends Transform {
  private buffer = '';
  private first = true;
  /** Keeps a multi-byte character split across two chunks whole. */
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly out: Writable) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.buffer += this.decoder.write(chunk);
    if (this.first && this.buffer.length > 0) {
      if (this.buffer.charCodeAt(0) === 0xfeff) this.buffer = this.buffer.slice(1);
      this.first = false;
    }
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      this.line(this.buffer.slice(0, nl));
      this.buffer = this.buffer.slice(nl + 1);
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    this.buffer += this.decoder.end();
    if (this.buffer.length > 0) this.line(this.buffer);
    done();
  }

  private line(raw: string): void {
    const text = raw.replace(/\r$/, '');
    if (text.trim() === '') return;
    try {
      JSON.parse(text);
    } catch {
      this.out.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON' } })}\n`,
      );
      return;
    }
    this.push(`${text}\n`);
  }
}

/** Serves one server over this process's stdin/stdout until stdin ends. */
export async function serveStdio(server: Server): Promise<void> {
  const input = process.stdin.pipe(new LineGuard(process.stdout));
  const transport = new StdioServerTransport(input, process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    input.on('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
