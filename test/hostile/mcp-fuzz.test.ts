/**
 * Property-based fuzzing of every MCP tool with a liveness oracle: a real server (calc and synth
 * tools, the card tools for a UI client) on a memory store, driven by the SDK client with hostile
 * arguments generated from each tool's own input schema. After every call: an answer (a result or a
 * JSON-RPC error) in our words, no polluted prototype, bounded memory; every few calls and after each
 * tool: `ping` answers and a fresh model can be created, written and read.
 *
 * Replay a failure with the seed fast-check prints: MODELWORKS_FUZZ_SEED=<seed> npx vitest run
 * test/hostile/mcp-fuzz.test.ts; MODELWORKS_FUZZ_RUNS=<n> changes the total number of calls;
 * MODELWORKS_FUZZ_TRACE=1 prints each call to stderr as it is made (to find a call that hangs).
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { synthMcpGroup, type SynthMcpGroup } from '../../src/mcp/synth-setup.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { argumentsFor, BASE_SPEC, LIVE_IDS } from './arbitraries.js';
import { checkAfterCall, fuzzParameters, runsPer } from './oracle.js';

/** Tools that write or walk request data into models: three times the calls of the others. */
const WALKERS = new Set([
  'create_model',
  'mutate',
  'patch_model',
  'dry_run',
  'restore',
  'evolve_spec',
  'eval_expression',
  'get_state',
  'render_model',
  'valem_recompute',
  'valem_card_edit',
  'generate',
  'validate_model',
]);

/** Calls across all tools in one run of the suite (CI): at least this many. */
const TOTAL_CALLS = 1700;
const CALL_TIMEOUT_MS = 30_000;

let client: Client;
let calc: CalcService;
let synth: SynthMcpGroup;
let tools: Tool[] = [];
let calls = 0;

async function seedModels(): Promise<void> {
  for (const id of LIVE_IDS) {
    try {
      await calc.deleteModel(id);
    } catch {
      // absent: fine
    }
    await calc.createModel({ ...BASE_SPEC, id });
    await calc.mutate(id, { '$.price': 2, '$.qty': 3, '$.rows[0].price': 1 });
  }
}

/** The server still answers and still does real work: ping, then create / mutate / read / delete. */
async function liveness(label: string): Promise<void> {
  await expect(client.ping(), `${label}: ping`).resolves.toBeDefined();
  const id = `alive-${calls}`;
  const created = await client.callTool({ name: 'create_model', arguments: { spec: { ...BASE_SPEC, id } } });
  expect(
    created.isError,
    `${label}: create_model after hostile calls: ${JSON.stringify(created)}`,
  ).toBeFalsy();
  const mutated = await client.callTool({
    name: 'mutate',
    arguments: { id, mutations: { '$.price': 5, '$.qty': 7 } },
  });
  expect(mutated.isError, `${label}: mutate: ${JSON.stringify(mutated)}`).toBeFalsy();
  const total = await client.callTool({ name: 'get_field', arguments: { id, path: '$.total' } });
  expect(total.content, `${label}: get_field`).toEqual([{ type: 'text', text: '35' }]);
  await client.callTool({ name: 'delete_model', arguments: { id } });
}

async function call(name: string, args: unknown): Promise<void> {
  calls++;
  const label = `#${calls} ${name} ${JSON.stringify(args)?.slice(0, 300)}`;
  if (process.env.MODELWORKS_FUZZ_TRACE) process.stderr.write(`${label}\n`);
  let text: string;
  try {
    const result = await client.callTool(
      { name, arguments: args as Record<string, unknown> },
      {
        timeout: CALL_TIMEOUT_MS,
      },
    );
    text = JSON.stringify(result);
  } catch (err) {
    // a JSON-RPC error is an answer too (invalid params, say); a timeout is not
    expect(String(err), `${label}: no answer`).not.toMatch(/timed out|Request timeout/i);
    text = String(err);
  }
  checkAfterCall(label, text);
  if (calls % 25 === 0) await liveness(label);
}

beforeAll(async () => {
  calc = new CalcService(new MemoryStore());
  synth = synthMcpGroup({}, () => {});
  const server = createMcpServer({
    calc,
    guidanceTopics: [],
    groups: new Set(['calc', 'synth']),
    modeLine: 'hostile-input suite',
    extraTools: synth.tools,
    extraResources: [synth.resources],
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // a client that shows cards, so the card tools are listed and fuzzed too
  client = new Client(
    { name: 'hostile-suite', version: '1.0.0' },
    {
      capabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
    },
  );
  await client.connect(clientSide);
  tools = (await client.listTools()).tools;
  await seedModels();
});

afterAll(async () => {
  await client?.close();
  await synth?.close();
  await calc?.close();
});

describe('every MCP tool under hostile arguments', () => {
  it('lists the tools to fuzz (calc, synth, cards)', () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['mutate', 'patch_model', 'generate', 'convert_spreadsheet']),
    );
    expect(names.length).toBeGreaterThanOrEqual(35);
  });

  it(
    'answers every call in our words, pollutes nothing, stays within memory and stays alive',
    async () => {
      const weight = (name: string): number => (WALKERS.has(name) ? 3 : 1);
      const perUnit = runsPer(
        tools.reduce((n, t) => n + weight(t.name), 0),
        TOTAL_CALLS,
      );
      let planned = 0;
      for (const tool of tools) {
        const args = argumentsFor(tool.inputSchema as Parameters<typeof argumentsFor>[0]);
        planned += perUnit * weight(tool.name);
        await fc.assert(
          fc.asyncProperty(args, (a) => call(tool.name, a)),
          fuzzParameters(perUnit * weight(tool.name)),
        );
        await liveness(`after ${tool.name}`);
        // writes may have changed or deleted the seeded models: later tools start from them again
        await seedModels();
      }
      expect(calls).toBeGreaterThanOrEqual(planned);
    },
    15 * 60_000,
  );
});
