/**
 * The `solve` MCP tool (issue 46): goal seek on a live model by id with progress, the model
 * untouched; `apply: true` committing one cycle; a refusal as an error result with its code's
 * words; the card notes beside a result; and the tool's tools/list entry (printed; the whole
 * listing's 50 KB budget is checked in test/mcp/e2e.test.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { simulationGate } from '../../src/service/simulate/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/** price = cost × (1 + margin); margin for a price of 15 at cost 10 is 0.5. */
const SPEC = {
  id: 'price',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      cost: { type: 'number', default: 10 },
      margin: { type: 'number', default: 0.2 },
      price: { type: 'number' },
    },
  },
  derivations: [{ path: '$.price', expr: 'cost * (1 + margin)' }],
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function connect(): Promise<{ client: Client; calc: CalcService }> {
  const calc = new CalcService(new MemoryStore());
  const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'solve-test', version: '1' });
  await server.connect(b);
  await client.connect(a);
  close = async () => (await client.close(), await calc.close());
  return { client, calc };
}

type Result = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the solve tool', () => {
  it('is listed with a short description and the card as its UI resource', async () => {
    const { client } = await connect();
    const listed = await client.listTools();
    const tool = listed.tools.find((t) => t.name === 'solve')!;
    expect(tool.inputSchema.required).toEqual(['vary']);
    expect(tool.description!.length).toBeLessThan(500);
    expect(tool._meta).toMatchObject({ ui: { resourceUri: 'ui://valem/model-card.html' } });
    console.log(
      `solve's tools/list entry: ${JSON.stringify(tool).length} bytes; the whole listing ${JSON.stringify(listed).length} of ${50 * 1024}`,
    );
  });

  it('goal-seeks a live model by id with progress, leaves it as it was, and writes the answer with apply', async () => {
    const { client, calc } = await connect();
    await calc.createModel(SPEC);
    const before = {
      state: await calc.getState('price'),
      audit: await calc.getAudit('price', { limit: 100 }),
    };
    const progress: number[] = [];
    const args = {
      id: 'price',
      vary: { '$.margin': { min: 0, max: 2 } },
      target: { path: '$.price', value: 15 },
    };
    const out = await client.callTool({ name: 'solve', arguments: args }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(out.isError).toBeFalsy();
    const r = out.structuredContent as Result;
    expect(r).toMatchObject({ met: true, reason: 'converged' });
    expect(r.inputs['$.margin']).toBeCloseTo(0.5, 9);
    expect(progress.length).toBeGreaterThan(0);
    expect(out._meta?.['valem/card']).toMatchObject({ mode: 'solve', modelId: 'price' });
    expect(await calc.getState('price')).toEqual(before.state);
    expect(await calc.getAudit('price', { limit: 100 })).toEqual(before.audit);

    const applied = await client.callTool({ name: 'solve', arguments: { ...args, apply: true } });
    expect((applied.structuredContent as Result).applied).toMatchObject({ committed: true });
    const audit = await calc.getAudit('price', { limit: 100 });
    expect(audit.length).toBe(before.audit.length + 1);
    // the write is the agent's in the audit trail (it read `client` before)
    expect(audit.filter((r) => r.source === 'agent')).toHaveLength(1);
    expect(await calc.getField('price', '$.margin')).toBe(
      (applied.structuredContent as Result).inputs['$.margin'],
    );
  });

  it('stops when the client cancels the call', async () => {
    const { client } = await connect();
    const slow = {
      ...SPEC,
      derivations: [{ path: '$.price', expr: '$count([1..200000]) * 0 + cost * (1 + margin)' }],
    };
    const controller = new AbortController();
    const call = client.callTool(
      {
        name: 'solve',
        arguments: {
          spec: slow,
          vary: { '$.cost': { min: 0, max: 100 }, '$.margin': { min: 0, max: 1 } },
          objective: { maximize: '$.price' },
        },
      },
      undefined,
      {
        signal: controller.signal,
        onprogress: () => controller.abort(new Error('the person changed their mind')),
      },
    );
    await expect(call).rejects.toThrow(/changed their mind/);
    // the server stopped too: the gate it ran behind empties (5,000 slow cycles would take minutes)
    await expect.poll(() => simulationGate().load, { timeout: 3000 }).toEqual({ running: 0, waiting: 0 });
  });

  it('answers a refusal as an error result naming what is wrong', async () => {
    const { client } = await connect();
    const out = await client.callTool({
      name: 'solve',
      arguments: {
        spec: SPEC,
        vary: { '$.price': { min: 0, max: 1 } },
        target: { path: '$.price', value: 1 },
      },
    });
    expect(out.isError).toBe(true);
    expect(JSON.stringify(out.content)).toMatch(/computed by the model/);
    expect(out._meta?.['valem/card']).toBeUndefined();
  });
});
