// /mcp inside the Fastify app: the SDK client over Streamable HTTP reaches the same models as REST.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
