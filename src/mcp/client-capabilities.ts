/** What a connection's client can do, in either protocol era (server.ts, tool-catalog.ts). */
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { ClientCapabilities, Server, ServerContext } from '@modelcontextprotocol/server';

/**
 * What the client can do: told once by `initialize` (2024-11-05 … 2025-11-25), or by each request's
 * `_meta` envelope (2026-07-28, where no initialize runs and the instance may serve one request).
 */
export function clientCapabilitiesOf(server: Server, ctx?: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx?.mcpReq.envelope as Record<string, unknown> | undefined;
  const perRequest = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  if (typeof perRequest === 'object' && perRequest !== null) return perRequest;
  return server.getClientCapabilities();
}
