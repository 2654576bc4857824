// MCP 2026-07-28 multi-round trips (issue 43, point 3): an `llm` effect's completion reaches a
// 2026-07-28 client that samples as an `input_required` result of its own tool call (the client
// answers and retries; the write runs once), over stdio and Streamable HTTP, with the v2 SDK
// client pinned to that revision. Needs the build (dist/cli/main.js).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CreateMessageRequest } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, root, serverEnv, startHttpServer } from './helpers/peers.js';

const MODERN = '2026-07-28';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const TRIAGE = {
  id: 'triage',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: { note: { type: 'string' }, label: { type: 'string' }, triage: { type: 'object' } },
  },
  derivations: [],
  constraints: [],
  metaDerivations: [],
  tests: [],
  effects: [
    {
      id: 'classify',
      executor: 'llm',
      trigger: '$exists(note)',
      dedupeKey: 'note',
      statusPath: '$.triage',
      prompt: '"Classify this note: " & note',
      responseSchema: { type: 'object', required: ['label'], properties: { label: { type: 'string' } } },
      response: { set: { '$.label': '$response.label' } },
    },
  ],
};

/** A 2026-07-28 client that samples: each completion asked of it is recorded and answered. */
function samplingClient(asked: CreateMessageRequest[]): Client {
  const client = new Client(
    { name: 'modern-sampling-test', version: '1.0.0' },
    { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('sampling/createMessage', (request) => {
    asked.push(request);
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: '{"label":"billing"}' } };
  });
  return client;
}

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Json> {
  const out = await client.callTool({ name, arguments: args });
  if (out.isError) throw new Error(`${name} failed: ${JSON.stringify(out.content)}`);
  return JSON.parse((out.content[0] as { text: string }).text) as Json;
}

/** create → mutate (the completion rides on the mutate call) → the label folded back, once. */
async function runTriage(client: Client, asked: CreateMessageRequest[], id: string): Promise<void> {
  expect(client.getProtocolEra()).toBe('modern');
  await ok(client, 'create_model', { spec: { ...TRIAGE, id } });
  const mutated = await ok(client, 'mutate', { id, mutations: { '$.note': 'charged twice' } });
  // the call's own result came back after the round trip, and the write ran once
  expect(mutated).toMatchObject({ success: true, revision: 1, mutatedPaths: ['$.note'] });
  expect(asked).toHaveLength(1);
  const params = asked[0]!.params as Json;
  expect(params.messages[0].content.text).toBe('Classify this note: charged twice');
  expect(params.systemPrompt).toMatch(/JSON Schema/);
  await expect
    .poll(async () => (await ok(client, 'get_state', { id })).label, { timeout: 10_000 })
    .toBe('billing');
  const state = await ok(client, 'get_state', { id });
  expect(state.triage).toMatchObject({ phase: 'applied' });
  // one write by the agent, one fold of the completion: nothing ran twice
  const audit = await ok(client, 'get_audit', { id });
  expect(audit.filter((r: Json) => Object.hasOwn(r.mutations ?? {}, '$.note'))).toHaveLength(1);
}

describe('2026-07-28 input_required: llm effect sampling', () => {
  it('over stdio', async () => {
    const asked: CreateMessageRequest[] = [];
    const client = samplingClient(asked);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'mcp'],
        env: serverEnv as Record<string, string>,
        cwd: root,
        stderr: 'ignore',
      }),
    );
    cleanups.push(() => client.close());
    await runTriage(client, asked, 'triage-stdio');
  }, 60_000);

  it('over Streamable HTTP', async () => {
    const server = await startHttpServer();
    cleanups.push(() => server.stop());
    const asked: CreateMessageRequest[] = [];
    const client = samplingClient(asked);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    cleanups.push(() => client.close());
    await runTriage(client, asked, 'triage-http');
  }, 60_000);

  it('a 2026-07-28 client that does not sample leaves the effect blocked, saying why', async () => {
    const client = new Client(
      { name: 'modern-no-sampling', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'mcp'],
        env: serverEnv as Record<string, string>,
        cwd: root,
        stderr: 'ignore',
      }),
    );
    cleanups.push(() => client.close());
    await ok(client, 'create_model', { spec: { ...TRIAGE, id: 'triage-none' } });
    const mutated = await ok(client, 'mutate', { id: 'triage-none', mutations: { '$.note': 'x' } });
    expect(mutated.success).toBe(true);
    await expect
      .poll(async () => (await ok(client, 'get_state', { id: 'triage-none' })).triage?.phase, {
        timeout: 10_000,
      })
      .toBe('blocked');
  }, 60_000);
});
