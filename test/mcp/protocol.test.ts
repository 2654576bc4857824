// The stdio wire as the protocol notes describe it, seen through raw JSON lines: version
// negotiation, BOM tolerance, parse errors, ping, logging, and nothing but JSON-RPC on stdout.
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NdjsonServerTransport } from '../../src/mcp/stdio.js';
import { RawStdio } from './helpers/peers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const children: RawStdio[] = [];
const start = (args: string[] = []): RawStdio => {
  const raw = new RawStdio(args);
  children.push(raw);
  return raw;
};
afterAll(async () => {
  await Promise.all(children.map((c) => c.close()));
});

const isLog = (m: Json) => m.method === 'notifications/message';

describe('MCP over stdio, raw', () => {
  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])(
    'negotiates protocol version %s by echoing it',
    async (version) => {
      const raw = start();
      const res = (await raw.request(1, 'initialize', raw.initializeParams(version))) as Json;
      expect(res.result.protocolVersion).toBe(version);
      expect(res.result.capabilities).toEqual({ tools: {}, resources: { subscribe: true }, logging: {} });
      expect(res.result.capabilities).not.toHaveProperty('prompts');
      expect(res.result.serverInfo).toMatchObject({ name: 'modelworks', version: expect.any(String) });
      expect(res.result.instructions).toContain('create_model');
      // the negotiated session works
      const listed = (await raw.request(2, 'tools/list')) as Json;
      expect(listed.result.tools.length).toBeGreaterThanOrEqual(26);
    },
  );

  it('answers an unknown protocol version with the newest, 2025-11-25', async () => {
    const raw = start();
    const res = (await raw.request(1, 'initialize', raw.initializeParams('1999-01-01'))) as Json;
    expect(res.result.protocolVersion).toBe('2025-11-25');
  });

  it('runs a whole session: BOM, parse error, ping, setLevel, readiness log; stdout is JSON-RPC only', async () => {
    const raw = start();
    // a UTF-8 BOM before the first message, as some Windows launchers send it
    raw.write(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(
          `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: raw.initializeParams('2025-06-18') })}\n`,
        ),
      ]),
    );
    expect(((await raw.response(1)) as Json).result.protocolVersion).toBe('2025-06-18');

    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const ready = (await raw.waitFor(isLog, 'the readiness log')) as Json;
    expect(ready.params).toMatchObject({ level: 'info', logger: 'modelworks' });
    expect(ready.params.data).toMatch(/ready/);
    expect(ready).not.toHaveProperty('id'); // a notification, not a reply to initialized

    raw.write('this is not json\n');
    const parseError = (await raw.waitFor(
      (m) => (m as Json).error?.code === -32700,
      'a parse error',
    )) as Json;
    expect(parseError).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });

    // valid JSON that is no JSON-RPC message is answered too (the SDK's transport drops it)
    raw.write('{"hello":"world"}\n');
    const invalidRequest = (await raw.waitFor(
      (m) => (m as Json).error?.code === -32600,
      'an invalid-request error',
    )) as Json;
    expect(invalidRequest).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.any(String) },
    });

    // the session goes on: blank lines are ignored, CRLF endings are fine
    raw.write('\n\r\n');
    raw.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\r\n`);
    expect(await raw.response(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });

    expect(((await raw.request(3, 'logging/setLevel', { level: 'debug' })) as Json).result).toEqual({});
    const badLevel = (await raw.request(4, 'logging/setLevel', { level: 'loud' })) as Json;
    expect(badLevel.error).toBeDefined();

    // malformed protocol requests are JSON-RPC errors, not tool results
    const unknownMethod = (await raw.request(5, 'tools/frobnicate')) as Json;
    expect(unknownMethod.error.code).toBe(-32601);
    const missingName = (await raw.request(6, 'tools/call', { arguments: {} })) as Json;
    expect(missingName).not.toHaveProperty('result');
    expect(missingName.error.code).toBe(-32602);
    const badArguments = (await raw.request(61, 'tools/call', { name: 'ping', arguments: 'x' })) as Json;
    expect(badArguments.error.code).toBe(-32602);

    // one tool call on the wire: the worked example's create_model
    const created = (await raw.request(7, 'tools/call', {
      name: 'create_model',
      arguments: {
        spec: {
          id: 'demo',
          version: '1',
          schema: {},
          derivations: [{ path: '$.total', expr: 'price * qty' }],
          constraints: [],
          metaDerivations: [],
          tests: [],
        },
      },
    })) as Json;
    expect(created.result.structuredContent).toMatchObject({ id: 'demo', version: '1', derivationCount: 1 });
    expect(created.result.isError ?? false).toBe(false);
    const multiline = (await raw.request(8, 'tools/call', {
      name: 'get_spec',
      arguments: { id: 'demo' },
    })) as Json;
    expect(multiline.result.content[0].text).toContain('\n'); // pretty JSON inside, escaped on the wire

    // every stdout line is one JSON-RPC message
    expect(raw.lines.length).toBeGreaterThanOrEqual(10);
    for (const line of raw.lines) {
      const msg = JSON.parse(line) as Json;
      expect(msg.jsonrpc, line).toBe('2.0');
    }
  });

  it('keeps a multi-byte character whole when a line arrives in pieces', async () => {
    // the server's own stdio transport, fed chunk by chunk: a child process's pipe could join them
    const input = new PassThrough();
    const transport = new NdjsonServerTransport(input, new PassThrough());
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    const text = 'é€😀'.repeat(30_000); // 2-, 3- and 4-byte characters, ~270 KB
    const message = { jsonrpc: '2.0', id: 2, method: 'echo', params: { s: text } };
    const line = Buffer.from(`${JSON.stringify(message)}\n`);
    // cut inside the first 4-byte character; the halves arrive as separate reads
    const cut = line.indexOf(Buffer.from('😀')) + 2;
    input.write(line.subarray(0, cut));
    await new Promise((r) => setImmediate(r));
    expect(received).toEqual([]);
    input.write(line.subarray(cut));
    await vi.waitFor(() => expect(received).toHaveLength(1));
    expect(received[0]).toEqual(message);
    await transport.close();
  });

  it('honours logging/setLevel: above info, the readiness line is suppressed', async () => {
    const raw = start();
    await raw.request(1, 'initialize', raw.initializeParams('2025-11-25'));
    expect(((await raw.request(2, 'logging/setLevel', { level: 'warning' })) as Json).result).toEqual({});
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // a later reply proves the server has handled `initialized` (messages are processed in order)
    await raw.request(3, 'ping');
    await raw.request(4, 'tools/list');
    expect(raw.messages.filter(isLog)).toEqual([]);
  });

  it('exits when stdin closes', async () => {
    const raw = start();
    await raw.request(1, 'initialize', raw.initializeParams('2025-11-25'));
    const code = new Promise<number | null>((resolve) => raw.child.once('exit', (c) => resolve(c)));
    raw.child.stdin!.end();
    expect(await code).toBe(0);
  });
});
