/**
 * Composition over MCP (issue 41, point 5): create_model with a `template` branches; get_model_info
 * shows the branch's lineage, its links and the inherited effects awaiting approval; approve_effect
 * approves one; composition_graph shows link and lineage edges. Run against the service in this
 * process and against a server reached over REST (the remote mode, `mcp --url`), which must answer
 * the same.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcClient } from '../../src/remote/calc-client.js';
import type { CalcApi } from '../../src/service/calc-api.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { testApp } from '../http/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const BASE = {
  id: 'acme/base',
  version: '1.0.0',
  schema: { type: 'object', properties: { n: { type: 'number' }, io: { type: 'object' } } },
  derivations: [{ path: '$.doubled', expr: 'n * 2' }],
  effects: [
    {
      id: 'push',
      executor: 'server',
      trigger: 'n > 0',
      dedupeKey: 'n',
      statusPath: '$.io.push',
      target: { ref: 'acme/ledger', path: '$.got' },
      body: 'n',
    },
  ],
};
const LEDGER = {
  id: 'acme/ledger',
  version: '1.0.0',
  schema: { type: 'object', properties: { got: { type: 'number' } } },
};

async function connect(calc: CalcApi): Promise<Client> {
  const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'composition-test', version: '1' });
  await server.connect(b);
  await client.connect(a);
  cleanups.push(() => client.close());
  return client;
}

function local(): Promise<CalcApi> {
  const calc = new CalcService(new MemoryStore());
  cleanups.push(() => calc.close());
  return Promise.resolve(calc);
}

/** A REST server on a loopback port and the remote-mode client of it. */
async function remote(): Promise<CalcApi> {
  const t = await testApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const client = new CalcClient({ url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` });
  cleanups.push(async () => {
    await client.close();
    await t.close();
  });
  return client;
}

const call = async (client: Client, name: string, args: Json = {}): Promise<Json> => {
  const r = (await client.callTool({ name, arguments: args })) as Json;
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as Json;
};

describe.each([
  ['in this process', local],
  ['over REST (remote mode)', remote],
])('composition tools, %s', (_name, service) => {
  it('branch, read lineage/links/awaiting approval, approve, graph', async () => {
    const client = await connect(await service());
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['approve_effect', 'composition_graph']));

    await call(client, 'create_model', { spec: LEDGER });
    await call(client, 'create_model', { spec: BASE });
    // another owner's branch: inherits the rule and the link, which waits for approval
    await call(client, 'create_model', {
      spec: { id: 'globex/quote', version: '2.0.0', schema: {}, template: { ref: 'acme/base@^1.0.0' } },
    });
    const info = await call(client, 'get_model_info', { id: 'globex/quote' });
    expect(info).toMatchObject({
      id: 'globex/quote',
      version: '2.0.0',
      derivationCount: 1,
      lineage: [
        { ref: 'acme/base', version: '1.0.0', repo: 'local', digest: expect.stringMatching(/^sha256:/) },
      ],
      links: [{ effectId: 'push', to: 'acme/ledger', kind: 'write' }],
      awaitingApproval: [{ effectId: 'push', fromRef: 'acme/base', fromOwner: 'acme' }],
    });
    // a plain model shows none of these
    const plain = await call(client, 'get_model_info', { id: 'acme/ledger' });
    expect(Object.keys(plain)).not.toEqual(expect.arrayContaining(['lineage']));
    expect(plain.links ?? plain.awaitingApproval).toBeUndefined();

    expect(await call(client, 'approve_effect', { id: 'globex/quote', effectId: 'push' })).toEqual({
      id: 'globex/quote',
      effectId: 'push',
      approved: true,
    });
    expect((await call(client, 'get_model_info', { id: 'globex/quote' })).awaitingApproval).toBeUndefined();
    const refused = (await client.callTool({
      name: 'approve_effect',
      arguments: { id: 'globex/quote', effectId: 'nosuch' },
    })) as Json;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('nosuch');

    const graph = await call(client, 'composition_graph');
    expect(graph.nodes.map((n: Json) => n.ref).sort()).toEqual(['acme/base', 'acme/ledger', 'globex/quote']);
    expect(graph.linkEdges).toEqual(
      expect.arrayContaining([
        { from: 'globex/quote', to: 'acme/ledger', effectId: 'push', kind: 'write', last: null },
      ]),
    );
    expect(graph.lineageEdges).toEqual([{ branch: 'globex/quote', template: 'acme/base' }]);
  });

  it('refuses an unresolved template through create_model, creating nothing', async () => {
    const client = await connect(await service());
    const r = (await client.callTool({
      name: 'create_model',
      arguments: { spec: { id: 'orphan', schema: {}, template: { ref: 'ghost' } } },
    })) as Json;
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).toMatch(/ghost/);
    expect(JSON.stringify(r.content)).toContain('resolves to no stored model');
    const orphan = (await client.callTool({ name: 'get_model_info', arguments: { id: 'orphan' } })) as Json;
    expect(orphan.isError).toBe(true);
  });
});
