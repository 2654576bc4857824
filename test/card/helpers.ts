// A real MCP server (createMcpServer over a memory-store CalcService) and an SDK Client linked to it
// in memory, with the client capabilities a test chooses (card host or not).
import { readFileSync } from 'node:fs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import type { CardRunner } from '../../src/service/card-runner.js';
import { BUILTIN_GUIDANCE_TOPICS } from '../../src/service/guidance/topics.js';
import type { ShareLinks } from '../../src/service/share-links.js';
import { MemoryStore } from '../../src/store/memory-store.js';

export const UI_CAPS: ClientCapabilities = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

/** Any JSON, loosely typed for tests that poke into results. */
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const carLoan = (): Json =>
  JSON.parse(readFileSync(new URL('../../examples/calc/car-loan-calculator.json', import.meta.url), 'utf8'));

export interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  _meta?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  isError?: boolean;
}

export interface Linked {
  client: Client;
  calc: CalcService;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

export async function linked(
  options: {
    capabilities?: ClientCapabilities;
    runner?: CardRunner;
    shareLinks?: ShareLinks;
    calc?: CalcService;
  } = {},
): Promise<Linked> {
  const calc = options.calc ?? new CalcService(new MemoryStore());
  const server = createMcpServer({
    calc,
    guidanceTopics: BUILTIN_GUIDANCE_TOPICS,
    groups: new Set(['calc']),
    modeLine: 'test',
    cards: {
      ...(options.runner ? { runner: options.runner } : {}),
      ...(options.shareLinks ? { shareLinks: options.shareLinks } : {}),
    },
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client(
    { name: 'card-test', version: '1' },
    { capabilities: options.capabilities ?? UI_CAPS },
  );
  await client.connect(b);
  return {
    client,
    calc,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
