/**
 * generate_model (issue 44): the server's own provider over MCP, against the loopback provider.
 * The loop converges and creates the model when asked, with a progress notification per phase;
 * without a provider the tool says how to configure one.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmClient, llmConfigFromEnv } from '../../src/llm/index.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SpecGenerator } from '../../src/service/generate.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { CONVERGING_SCRIPT } from '../helpers/generation-specs.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let llm: LoopbackLlm;
let calc: CalcService;

async function connect(generator?: SpecGenerator): Promise<Client> {
  const server = createMcpServer({
    calc,
    guidanceTopics: [],
    groups: new Set(['calc']),
    modeLine: 'generate test',
    ...(generator ? { generator } : {}),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'generate-test', version: '1' });
  await server.connect(b);
  await client.connect(a);
  return client;
}

beforeAll(async () => {
  llm = await startLoopbackLlm();
  calc = new CalcService(new MemoryStore());
});
afterAll(async () => {
  await llm?.close();
  await calc?.close();
});

describe('generate_model', () => {
  it('converges through the server provider and creates the model, reporting progress', async () => {
    const config = llmConfigFromEnv({
      MODELWORKS_LLM_PROVIDER: 'openai-compatible',
      MODELWORKS_LLM_MODEL: 'llama3.1',
      MODELWORKS_LLM_BASE_URL: llm.openaiUrl,
    })!;
    const client = await connect(new SpecGenerator(new LlmClient(config), []));
    llm.script(CONVERGING_SCRIPT);
    const progress: string[] = [];
    const r = (await client.callTool(
      { name: 'generate_model', arguments: { description: 'a car loan', modelId: 'mcp-loan', create: true } },
      { onprogress: (p) => progress.push(p.message ?? '') },
    )) as { isError?: boolean; structuredContent?: Json };
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ valid: true, attempts: 4, created: { id: 'mcp-loan' } });
    expect(await calc.getField('mcp-loan', '$.financed')).toBe(18000);
    expect(progress[0]).toBe('attempt 1: llm_requesting');
    expect(progress).toContain('attempt 3: test_failed');
    // JSON mode for a compatible endpoint (Ollama's default here)
    expect(llm.requests.at(-1)!.body.response_format).toEqual({ type: 'json_object' });
    await client.close();
  });

  it('without a provider it says how to configure one', async () => {
    const client = await connect();
    const r = (await client.callTool({
      name: 'generate_model',
      arguments: { description: 'a car loan' },
    })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/^LLM_NOT_CONFIGURED: .*MODELWORKS_LLM_PROVIDER/);
    await client.close();
  });
});
