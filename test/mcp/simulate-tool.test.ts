/**
 * The `simulate` MCP tool (issue 24): a live model simulated by id with progress notifications,
 * the model unchanged; a refusal as a structured error result; cancellation stops the run.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

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
  constraints: [{ id: 'sane', expr: 'price < 20', message: 'too dear', policy: 'flag' }],
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
  const client = new Client({ name: 'simulate-test', version: '1' });
  await server.connect(b);
  await client.connect(a);
  close = async () => (await client.close(), await calc.close());
  return { client, calc };
}

describe('the simulate tool', () => {
  it('simulates a live model by id with progress, and leaves it as it was', async () => {
    const { client, calc } = await connect();
    await calc.createModel(SPEC);
    const before = await calc.getState('price');
    const progress: number[] = [];
    const out = await client.callTool(
      {
        name: 'simulate',
        arguments: {
          id: 'price',
          inputs: { '$.cost': { type: 'Uniform', min: 8, max: 18 } },
          outputs: ['$.price'],
          runs: 2000,
          seed: 11,
        },
      },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(out.isError).toBeFalsy();
    const r = out.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(r.runs).toBe(2000);
    expect(r.seed).toBe('11');
    expect(r.outputs['$.price'].min).toBeGreaterThanOrEqual(8 * 1.2);
    expect(r.outputs['$.price'].max).toBeLessThan(18 * 1.2);
    // price < 20 fails when cost > 16.67: a third of the range
    expect(Math.abs(r.constraints.sane.flagRate - (18 - 20 / 1.2) / 10)).toBeLessThan(0.04);
    expect(Object.keys(r.sensitivity['$.price'])).toEqual(['$.cost']);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(2000);
    expect(await calc.getState('price')).toEqual(before);
  });

  it('answers a malformed request with an error result naming what is wrong', async () => {
    const { client } = await connect();
    const out = await client.callTool({
      name: 'simulate',
      arguments: { spec: SPEC, inputs: { '$.cost': { type: 'Bogus' } }, outputs: ['$.price'] },
    });
    expect(out.isError).toBe(true);
    expect(JSON.stringify(out.content)).toMatch(/inputs: .*Bogus/);
  });
});
