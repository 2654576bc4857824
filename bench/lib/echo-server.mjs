// The floor the MCP benches measure against: the SDK's McpServer with one trivial `echo` tool.
// Imported, it is a server to connect in-process (bench/lib/direct-mcp.mjs); run as a script
// (`node bench/lib/echo-server.mjs`), it serves stdio (bench/mcp-calc.mjs spawns it so).
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

export function echoServer() {
  const server = new McpServer({ name: 'echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echo the text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await echoServer().connect(new StdioServerTransport());
