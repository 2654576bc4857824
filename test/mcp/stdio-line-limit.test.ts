/**
 * The stdio line limit: a line longer than MAX_LINE_CHARS is answered with exactly one -32700 and
 * dropped up to its newline, whether it arrives whole in one chunk or in many; nothing of it is ever
 * parsed as messages, and the next line is read as usual.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { MAX_LINE_CHARS, NdjsonServerTransport } from '../../src/mcp/stdio.js';

interface Wire {
  input: PassThrough;
  received: JSONRPCMessage[];
  replies: () => { id: unknown; error?: { code: number } }[];
}

async function wire(): Promise<Wire> {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (c: Buffer) => (written += c.toString('utf8')));
  const transport = new NdjsonServerTransport(input, output);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => received.push(m);
  await transport.start();
  return {
    input,
    received,
    replies: () =>
      written
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } }),
  };
}

const ping = (id: number): string => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * An over-long line that is valid JSON (JSON allows leading blanks): read whole, or read from
 * wherever a reader gave up on its start, it would be a message to answer.
 */
function hostileLine(): string {
  return `${' '.repeat(MAX_LINE_CHARS + 100_000)}${ping(900).trim()}`;
}

describe('stdio line limit', () => {
  it('a complete over-long line in one chunk: one -32700, then the next message', async () => {
    const w = await wire();
    w.input.write(`${hostileLine()}\n${ping(1)}`);
    await settle();
    expect(w.replies().map((r) => r.error?.code)).toEqual([-32700]);
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  });

  it('the same line in 64 KiB pieces: still one -32700 and nothing of its rest parsed', async () => {
    const w = await wire();
    const line = `${hostileLine()}\n${ping(2)}`;
    for (let i = 0; i < line.length; i += 65_536) {
      w.input.write(line.slice(i, i + 65_536));
      await settle();
    }
    await settle();
    expect(w.replies().map((r) => r.error?.code)).toEqual([-32700]);
    expect(w.received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('a line of exactly the limit is read; two over-long lines give two replies', async () => {
    const w = await wire();
    const padded = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: {} } });
    const exact = padded.replace('{}', `{"pad":"${'p'.repeat(MAX_LINE_CHARS - padded.length - 10)}"}`);
    expect(exact.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    w.input.write(`${exact}\n`);
    w.input.write(`${hostileLine()}\n${hostileLine()}\n${ping(4)}`);
    await settle();
    expect(w.replies().map((r) => r.error?.code)).toEqual([-32700, -32700]);
    expect(w.received.map((m) => (m as { id: number }).id)).toEqual([3, 4]);
  });

  it('input that ends inside a refused line parses nothing more', async () => {
    const w = await wire();
    w.input.write(hostileLine());
    await settle();
    w.input.end(ping(5).trim());
    await settle();
    expect(w.replies().map((r) => r.error?.code)).toEqual([-32700]);
    expect(w.received).toEqual([]);
  });
});
