// An SDK server driven in-process: a transport that hands each message straight over (no stdio,
// no other process), so what a bench times or counts is the server's own work. Used by
// bench/mcp-gc.mjs and bench/mcp-cold.mjs.
import { fileURLToPath } from 'node:url';

export { echoServer } from './echo-server.mjs';
export { demoSpec } from './demo-model.mjs';

const dist = process.env.BENCH_DIST ?? fileURLToPath(new URL('../../dist', import.meta.url));

/** Connects `server` to a direct transport; returns `call(tool, args)`, which settles with the result. */
export async function directClient(server) {
  const waiting = new Map();
  let id = 0;
  const transport = {
    async start() {},
    async send(message) {
      const settle = waiting.get(message.id);
      waiting.delete(message.id);
      settle?.(message);
    },
    async close() {},
  };
  await server.connect(transport);
  const request = (method, params) =>
    new Promise((settle) => {
      const next = ++id;
      waiting.set(next, settle);
      transport.onmessage({ jsonrpc: '2.0', id: next, method, params });
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'direct-bench', version: '1' },
  });
  transport.onmessage({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return async (name, args) => {
    const answer = await request('tools/call', { name, arguments: args });
    if (answer.error || answer.result?.isError) throw new Error(`${name}: ${JSON.stringify(answer)}`);
    return answer.result;
  };
}

/** Our MCP server on an in-memory store, as `modelworks mcp` builds it (the calc tools). */
export async function calcServer() {
  const { createMcpServer } = await import(`${dist}/mcp/server.js`);
  const { CalcService } = await import(`${dist}/service/calc-service.js`);
  const { MemoryStore } = await import(`${dist}/store/memory-store.js`);
  const calc = new CalcService(new MemoryStore());
  return createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'bench' });
}
