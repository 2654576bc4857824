// /mcp inside the Fastify app: the SDK client over Streamable HTTP reaches the same models as REST.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { looseSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from './helpers.js';

const KEY = 'mcp-key';
let t: TestApp;
let base: string;

beforeAll(async () => {
  const ref: { calc?: TestApp['calc'] } = {};
  t = await testApp({
    apiKey: KEY,
    createMcpServer: () =>
      createMcpServer({ calc: ref.calc!, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
  });
  ref.calc = t.calc;
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

const connect = async (key: string) => {
  const client = new Client({ name: 'fastify-mcp-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
};

describe('/mcp on the REST server', () => {
  it('serves the MCP tools on the same service as the REST routes', async () => {
    const client = await connect(KEY);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(
        expect.arrayContaining(['create_model', 'mutate', 'get_state']),
      );
      await client.callTool({ name: 'create_model', arguments: { spec: looseSpec('shared') } });
      await client.callTool({
        name: 'mutate',
        arguments: { id: 'shared', mutations: { '$.price': 2, '$.qty': 5 } },
      });
      const rest = await fetch(`${base}/models/shared/state`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(await rest.json()).toEqual({ price: 2, qty: 5, total: 10 });
    } finally {
      await client.close();
    }
  });

  it('refuses a wrong key', async () => {
    await expect(connect('wrong')).rejects.toThrow(/401/);
  });
});

describe('/mcp sessions on the REST server expire when unused', () => {
  it('closes a session nobody uses and keeps a connected client (its event stream is open)', async () => {
    const idle = await testApp({
      mcpSessionIdleMs: 200,
      createMcpServer: () =>
        createMcpServer({ calc: idle.calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
    });
    await idle.app.listen({ host: '127.0.0.1', port: 0 });
    const info = vi.spyOn(idle.app.log, 'info');
    const url = `http://127.0.0.1:${(idle.app.server.address() as AddressInfo).port}/mcp`;
    const client = new Client({ name: 'kept', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(body),
        });
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'gone', version: '1' },
        },
      });
      const session = {
        'mcp-session-id': init.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-11-25',
      };
      await init.text();

      // the sweeper's own log line is the event: no sleeping for a guessed number of idle times
      await expect
        .poll(() => info.mock.calls.some(([line]) => /closed 1 session unused/.test(String(line))), {
          timeout: 10_000,
        })
        .toBe(true);
      const ping = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, session);
      await ping.text();
      expect(ping.status).toBe(404);
      const listed = await client.listTools();
      expect(listed.tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
      await idle.close();
    }
  });
});
