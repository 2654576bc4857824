// The small model of the MCP benches (bench/mcp-calc.mjs, mcp-gc.mjs, mcp-cold.mjs): one
// derivation, `total = price * qty`, on an open schema.
export const demoSpec = (id) => ({
  id,
  version: '1',
  schema: {},
  derivations: [{ path: '$.total', expr: 'price * qty' }],
});
