/**
 * The stdio transport checks the JSON-RPC envelope with its own JSON Schema (ajv, fast); it must
 * accept and refuse exactly what the SDK's own JSONRPCMessageSchema does. The transport runs ajv's
 * standalone code for the schema, generated ahead of time: it must be what ajv generates now, and
 * answer as the schema compiled here does.
 */
import { readFileSync } from 'node:fs';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JSONRPC_MESSAGE_SCHEMA } from '../../src/mcp/jsonrpc-schema.js';
import { validate as generated } from '../../src/mcp/jsonrpc-validator.generated.js';
import { GENERATED, generatedText } from '../../scripts/gen-jsonrpc-validator.js';

const valid = new Ajv().compile(JSONRPC_MESSAGE_SCHEMA);

const messages: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } },
  { jsonrpc: '2.0', id: 'abc', method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: 9007199254740992, result: {} }, // past the safe integers (found by the property below)
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

  // generated messages near the envelope's shape (right and wrong members, odd ids and params),
  // and arbitrary JSON: the generated check, the compiled schema and the SDK give one verdict
  it('agrees with the compiled schema and the SDK on generated values', () => {
    const id = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), fc.boolean());
    const anyJson = fc.jsonValue({ maxDepth: 3 });
    const near = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer()),
        id,
        method: fc.oneof(fc.string(), fc.integer()),
        params: fc.oneof(
          anyJson,
          fc.record({ _meta: fc.oneof(anyJson, fc.record({ progressToken: id })) }, { requiredKeys: [] }),
        ),
        result: fc.oneof(anyJson, fc.record({ _meta: anyJson }, { requiredKeys: [] })),
        error: fc.oneof(anyJson, fc.record({ code: fc.oneof(fc.integer(), fc.double()), message: anyJson })),
        extra: anyJson,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(near, anyJson), (message) => {
        const sdk = JSONRPCMessageSchema.safeParse(message).success;
        expect(valid(message)).toBe(sdk);
        expect((generated as (m: unknown) => boolean)(message)).toBe(sdk);
      }),
      { numRuns: 2000 },
    );
  });

  it('runs the generated validator as ajv writes it from the schema now (npm run gen:jsonrpc)', async () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(await generatedText());
  });
});
