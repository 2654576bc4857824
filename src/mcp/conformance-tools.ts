/**
 * Tools the official MCP conformance suite calls by name, offered only when
 * MODELWORKS_MCP_CONFORMANCE_FIXTURES is 1 (the conformance test sets it; a product server never
 * lists them). Only a fixture that exercises behaviour of ours is here: `test_reconnection` closes
 * its call's SSE stream before answering, so the answer reaches the client through the session's
 * event store when it reconnects with Last-Event-ID (scenario server-sse-polling, SEP-1699).
 */
import type { ToolDefinition } from './tool.js';
import { input, READ } from './tool.js';

const FIXTURES_ENV = 'MODELWORKS_MCP_CONFORMANCE_FIXTURES';

/** Whether to offer the conformance fixtures; throws on a value that is not 1/true/0/false. */
export function conformanceFixturesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const text = env[FIXTURES_ENV]?.trim().toLowerCase();
  if (!text || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw new Error(`${FIXTURES_ENV} must be 1 or 0 (got '${env[FIXTURES_ENV]}')`);
}

export function conformanceTools(): ToolDefinition[] {
  return [
    {
      name: 'test_reconnection',
      title: 'Conformance fixture: reconnection',
      description:
        "Conformance fixture (SEP-1699): closes this call's SSE stream, then answers; a client gets the answer by reconnecting with Last-Event-ID.",
      inputSchema: input({}),
      annotations: READ,
      run: (_args, ctx) => {
        // closing is offered to a 2025-11-25 client on a resumable session; others get the answer directly
        ctx.closeStream?.();
        return Promise.resolve({
          content: [
            { type: 'text', text: 'Reconnection test completed: this answer came after the stream closed.' },
          ],
        });
      },
    },
  ];
}
