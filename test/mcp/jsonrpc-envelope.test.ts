/**
 * The stdio transport checks the JSON-RPC envelope with its own JSON Schema (ajv, fast); it must
 * accept and refuse exactly what the SDK's own JSONRPCMessageSchema does. The transport runs ajv's
 * standalone code for the schema, generated ahead of time: it must be what ajv generates now, and
 * answer as the schema compiled here does.
 */
import { readFileSync } from 'node:fs';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { JSONRPC_MESSAGE_SCHEMA } from '../../src/mcp/jsonrpc-schema.js';
import { validate as generated } from '../../src/mcp/jsonrpc-validator.generated.js';
import { GENERATED, generatedText } from '../../scripts/gen-jsonrpc-validator.js';

const valid = new Ajv().compile(JSONRPC_MESSAGE_SCHEMA);

const messages: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } },
  { jsonrpc: '2.0', id: 'abc', method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 2.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: [1, 2] },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: true },
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { id: 1, method: 'x' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
  { jsonrpc: '2.0', id: 3, result: {} },
  { jsonrpc: '2.0', id: 3, result: { content: [], _meta: { a: 1 } } },
  { jsonrpc: '2.0', id: 3, result: { _meta: 'x' } },
  { jsonrpc: '2.0', id: 3, result: [] },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'no' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'parse' } },
  { jsonrpc: '2.0', id: 3, error: { code: 1.5, message: 'x' } },
  { jsonrpc: '2.0', id: 3, error: { code: 1 } },
  { jsonrpc: '2.0', id: 3, error: { code: 1, message: 'x', data: { any: 'thing' } } },
  { jsonrpc: '2.0', id: 3, result: {}, error: { code: 1, message: 'x' } },
  [{ jsonrpc: '2.0', method: 'x' }],
  'text',
  42,
  null,
];

describe('the stdio envelope check', () => {
  it.each(messages.map((m) => [JSON.stringify(m), m]))('agrees with the SDK on %s', (_, message) => {
    expect(valid(message)).toBe(JSONRPCMessageSchema.safeParse(message).success);
    expect((generated as (m: unknown) => boolean)(message)).toBe(valid(message));
  });

  it('runs the generated validator as ajv writes it from the schema now (npm run gen:jsonrpc)', async () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(await generatedText());
  });
});
