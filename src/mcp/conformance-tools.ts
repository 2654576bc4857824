/**
 * Tools the official MCP conformance suite calls by name, offered only when
 * MODELWORKS_MCP_CONFORMANCE_FIXTURES is 1 (the conformance test sets it; a product server never
 * lists them). Only fixtures that exercise something of ours are here: the session's event store
 * (`test_reconnection`: its call's SSE stream is closed before it answers, so the answer reaches
 * the client on reconnection with Last-Event-ID), progress and logging during a call (the same
 * ToolContext channels pair_browser uses), and tools/list passing an input schema on verbatim.
 * Fixtures for what the product never does (image or audio results, sampling, form elicitation,
 * prompts, completions, test:// resources) are not offered; docs/mcp.md lists them.
 */
import type { ToolDefinition } from './tool.js';
import { input, READ } from './tool.js';

export { conformanceFixturesFromEnv } from './conformance-env.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const fixture = (what: string): string => `Conformance fixture: ${what}`;

export function conformanceTools(): ToolDefinition[] {
  return [
    {
      name: 'test_reconnection',
      title: 'Conformance fixture: reconnection',
      description: fixture(
        "closes this call's SSE stream, then answers (SEP-1699); a client gets the answer by reconnecting with Last-Event-ID.",
      ),
      inputSchema: input({}),
      annotations: READ,
      run: (_args, ctx) => {
        // offered to a 2025-11-25 client on a resumable session; others get the answer on the stream
        ctx.closeStream?.();
        return Promise.resolve(
          text('Reconnection test completed: this answer came after the stream closed.'),
        );
      },
    },
    {
      name: 'test_tool_with_progress',
      title: 'Conformance fixture: progress',
      description: fixture('reports progress 0, 50 and 100 of 100 when the call carries a progressToken.'),
      inputSchema: input({}),
      annotations: READ,
      run: async (_args, ctx) => {
        for (const step of [0, 50, 100]) {
          ctx.progress?.(step, 100, `step ${step}`);
          await new Promise((resolve) => setImmediate(resolve));
        }
        return text('Progress test completed.');
      },
    },
    {
      name: 'test_tool_with_logging',
      title: 'Conformance fixture: logging',
      description: fixture('sends three info log messages while it runs.'),
      inputSchema: input({}),
      annotations: READ,
      run: async (_args, ctx) => {
        for (const line of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
          ctx.log?.('info', line);
          await new Promise((resolve) => setImmediate(resolve));
        }
        return text('Logging test completed.');
      },
    },
    {
      name: 'json_schema_2020_12_tool',
      title: 'Conformance fixture: JSON Schema 2020-12',
      description: fixture(
        'an input schema using $schema, $defs and additionalProperties, listed as written.',
      ),
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
      annotations: READ,
      run: (args) => Promise.resolve(text(`Received ${JSON.stringify(args)}`)),
    },
  ];
}
