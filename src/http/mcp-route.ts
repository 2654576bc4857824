/**
 * `/mcp`: the same MCP server as stdio, over Streamable HTTP, inside the Fastify app. Fastify has
 * already checked Host, Origin and the API key and parsed the body; the session logic is shared
 * with `modelworks mcp --http` (src/mcp/http.ts).
 */
import type { Server } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { McpSessionHost, type SessionHostOptions } from '../mcp/http.js';
import { MAX_MCP_BODY_BYTES } from './limits.js';

export function registerMcpRoute(
  app: FastifyInstance,
  createServer: () => Server,
  options: Pick<SessionHostOptions, 'idleMs'> = {},
): McpSessionHost {
  const host = new McpSessionHost(createServer, { ...options, log: (message) => app.log.info(message) });
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    // each tool's documented maximum (an 8 MB fit_model sample) fits, JSON-escaped
    bodyLimit: MAX_MCP_BODY_BYTES,
    schema: { hide: true },
    handler: async (req, reply) => {
      reply.hijack();
      try {
        await host.handle(req.raw, reply.raw, req.body);
      } catch (err) {
        req.log.error({ err }, 'mcp request failed');
        if (!reply.raw.headersSent)
          reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32603, message: 'Internal error' },
            }),
          );
      }
    },
  });
  app.addHook('onClose', async () => {
    await host.close();
  });
  return host;
}
