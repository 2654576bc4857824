/**
 * The input limits over MCP (issue 47): tool arguments over the key, write-size or nesting limit
 * get a tool error with code INPUT_LIMIT before the tool runs, as the REST routes answer 413.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { DEFAULT_INPUT_LIMITS } from '../../src/service/input-limits.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { orderSpec } from '../mcp/helpers/specs.js';

const calc = new CalcService(new MemoryStore());
const client = new Client({ name: 'limits-test', version: '1' });
beforeAll(async () => {
  const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  await calc.createModel(orderSpec('m'));
});
afterAll(async () => {
  await client.close();
  await calc.close();
});

const manyAddresses = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`$.attachment.k${i}`, i]));

describe('MCP tool arguments over the input limits', () => {
  it('mutate with more addresses than the write limit: INPUT_LIMIT, nothing written', async () => {
    const before = (await calc.getModelInfo('m')).revision;
    const out = await client.callTool({
      name: 'mutate',
      arguments: { id: 'm', mutations: manyAddresses(DEFAULT_INPUT_LIMITS.maxWriteKeys + 1) },
    });
    expect(out.isError).toBe(true);
    expect(out.structuredContent).toMatchObject({ code: 'INPUT_LIMIT', limit: 'writeKeys' });
    expect((await calc.getModelInfo('m')).revision).toBe(before);
  });

  it('patch_model with more operations than the write limit: INPUT_LIMIT', async () => {
    const patch = Array.from({ length: DEFAULT_INPUT_LIMITS.maxWriteKeys + 1 }, (_, i) => ({
      op: 'add',
      path: `/attachment/k${i}`,
      value: i,
    }));
    const out = await client.callTool({ name: 'patch_model', arguments: { id: 'm', patch } });
    expect(out.structuredContent).toMatchObject({ code: 'INPUT_LIMIT', limit: 'writeKeys' });
  });

  it('dry_run with an oversized write, and create_model with too many keys or too deep a spec', async () => {
    const dry = await client.callTool({
      name: 'dry_run',
      arguments: { spec: orderSpec('d'), mutations: manyAddresses(DEFAULT_INPUT_LIMITS.maxWriteKeys + 1) },
    });
    expect(dry.structuredContent).toMatchObject({ code: 'INPUT_LIMIT', limit: 'writeKeys' });

    const big = {
      ...orderSpec('big'),
      constants: { list: Array.from({ length: DEFAULT_INPUT_LIMITS.maxBodyKeys }, () => 1) },
    };
    const many = await client.callTool({ name: 'create_model', arguments: { spec: big } });
    expect(many.structuredContent).toMatchObject({ code: 'INPUT_LIMIT', limit: 'bodyKeys' });

    let deep: unknown = 1;
    for (let i = 0; i < DEFAULT_INPUT_LIMITS.maxDepth; i++) deep = [deep];
    const tooDeep = await client.callTool({
      name: 'create_model',
      arguments: { spec: { ...orderSpec('deep'), constants: { deep } } },
    });
    expect(tooDeep.structuredContent).toMatchObject({ code: 'INPUT_LIMIT', limit: 'depth' });
    await expect(calc.getModelInfo('big')).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
  });

  it('a write within the limits runs', async () => {
    const out = await client.callTool({
      name: 'mutate',
      arguments: { id: 'm', mutations: manyAddresses(100) },
    });
    expect(out.isError).toBeFalsy();
  });
});
