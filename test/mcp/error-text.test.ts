/**
 * JSON-RPC error messages on the wire carry our words alone (issue 19): "Resource not found: …",
 * not "MCP error -32002: Resource not found: …", which a client prefixes again when it reads it.
 * The raw messages are read off an in-memory transport; the SDK client shows the message once.
 */
import { Client, InMemoryTransport, ResourceNotFoundError } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function newServer() {
  const calc = new CalcService(new MemoryStore());
  const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' });
  closers.push(async () => {
    await server.close();
    await calc.close();
  });
  return server;
}

/** A raw peer: sends requests and collects every message the server sends back. */
async function rawPeer() {
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  await newServer().connect(theirs);
  const received: JSONRPCMessage[] = [];
  mine.onmessage = (m) => received.push(m);
  await mine.start();
  let nextId = 1;
  const request = async (method: string, params?: Record<string, unknown>) => {
    const id = nextId++;
    await mine.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    // by time, not by event-loop turns: the first resources/read may wait for the tool catalog's
    // modules to load, which takes many turns on a busy machine
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const answer = received.find((m) => 'id' in m && m.id === id);
      if (answer) return answer as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error(`no answer to ${method}`);
  };
  await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });
  await mine.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return request;
}

describe('error messages on the wire', () => {
  it.each([
    [
      'an unknown resource',
      'resources/read',
      { uri: 'valem://nope' },
      -32002,
      'Resource not found: valem://nope',
    ],
    ['an unknown model state', 'resources/read', { uri: 'valem://state/ghost' }, -32002, undefined],
    ['tools/call without a name', 'tools/call', { arguments: {} }, -32602, undefined],
    ['a logging level that does not exist', 'logging/setLevel', { level: 'loud' }, -32603, undefined],
  ])('%s: the message has no "MCP error" prefix', async (_name, method, params, code, message) => {
    const request = await rawPeer();
    const answer = await request(method, params);
    expect(answer.error?.code).toBe(code);
    expect(answer.error?.message).not.toMatch(/MCP error/);
    if (message !== undefined) expect(answer.error?.message).toBe(message);
  });

  // the v1 client wrote "MCP error <code>: " in front once; the v2 client adds nothing, so the
  // message reads as the server wrote it; the wire's -32002 (above) reaches it as its
  // ResourceNotFoundError (the v2 client files -32002 and 2026-07-28's -32602 under one class)
  it('an SDK client reads the message once, as a resource-not-found error', async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await newServer().connect(b);
    const client = new Client({ name: 'error-text', version: '1' });
    await client.connect(a);
    closers.push(() => client.close());
    const error = await client.readResource({ uri: 'valem://nope' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).message).toMatch(/^Resource not found: valem:\/\/nope$/);
  });
});
