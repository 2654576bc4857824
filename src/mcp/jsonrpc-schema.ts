/**
 * JSON-RPC 2.0 as MCP uses it, as a JSON Schema: the SDK's JSONRPCMessageSchema restated
 * (test/mcp/jsonrpc-envelope.test.ts holds that both accept and refuse the same messages). The
 * stdio transport checks each inbound message with ajv's standalone code for it,
 * jsonrpc-validator.generated.ts (`npm run gen:jsonrpc` after a change here; a test fails while
 * the generated file is stale).
 */
// zod's int() (the SDK's check) takes safe integers only
const requestId = {
  anyOf: [{ type: 'string' }, { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }],
};
const jsonrpc = { const: '2.0' };
const params = {
  type: 'object',
  properties: {
    _meta: {
      type: 'object',
      properties: {
        progressToken: requestId,
        'io.modelcontextprotocol/related-task': {
          type: 'object',
          required: ['taskId'],
          properties: { taskId: { type: 'string' } },
        },
      },
    },
  },
};

/** A request, a notification, a result or an error; nothing else. */
export const JSONRPC_MESSAGE_SCHEMA = {
  anyOf: [
    {
      type: 'object',
      required: ['jsonrpc', 'id', 'method'],
      additionalProperties: false,
      properties: { jsonrpc, id: requestId, method: { type: 'string' }, params },
    },
    {
      type: 'object',
      required: ['jsonrpc', 'method'],
      additionalProperties: false,
      properties: { jsonrpc, method: { type: 'string' }, params },
    },
    {
      type: 'object',
      required: ['jsonrpc', 'id', 'result'],
      additionalProperties: false,
      properties: {
        jsonrpc,
        id: requestId,
        result: { type: 'object', properties: { _meta: { type: 'object' } } },
      },
    },
    {
      type: 'object',
      required: ['jsonrpc', 'error'],
      additionalProperties: false,
      properties: {
        jsonrpc,
        id: requestId,
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'integer' }, message: { type: 'string' } },
        },
      },
    },
  ],
};
