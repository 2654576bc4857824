// A short scripted session against the MCP server, the way an agent drives it: the server runs as
// a child process over stdio (embedded mode), and the official SDK client calls its tools.
// Run with `npm start` (it builds first) or `node examples/mcp-session.mjs` after `npm run build`.
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The embedded default is a SQLite file; the demo uses a fresh one so it can run again and again
// without touching the models in your own data directory.
const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'modelworks-demo-')), 'demo.db')}`;
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli, 'mcp', '--store', store],
  stderr: 'inherit',
});
const client = new Client({ name: 'modelworks-demo', version: '1.0.0' });
await client.connect(transport);

const call = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${result.content[0].text}`);
  return result.structuredContent ?? JSON.parse(result.content[0].text);
};
const show = (label, value) => console.log(`${label.padEnd(34)} ${JSON.stringify(value)}`);

const { tools } = await client.listTools();
show('tools offered', tools.length);

show(
  'create_model demo',
  await call('create_model', {
    spec: { id: 'demo', version: '1', schema: {}, derivations: [{ path: '$.total', expr: 'price * qty' }] },
  }),
);
const m = await call('mutate', { id: 'demo', mutations: { '$.price': 10, '$.qty': 3 } });
show('mutate price=10 qty=3', { success: m.success, derivedUpdated: m.derivedUpdated });
show('get_state', await call('get_state', { id: 'demo' }));
show('explain $.total (last trace)', (await call('explain', { id: 'demo', path: '$.total', limit: 1 }))[0]);
show('verify_audit', await call('verify_audit', { id: 'demo' }));

const example = JSON.parse(
  (await client.readResource({ uri: 'valem://examples/car-loan-calculator' })).contents[0].text,
);
await call('create_model', { spec: example });
await call('mutate', { id: 'car-loan-calculator', mutations: { '$.years': 5, '$.deposit': 2000 } });
show(
  'car loan, 5 years, 2000 down',
  await call('get_state', { id: 'car-loan-calculator', paths: ['$.monthlyPayment', '$.costOfCredit'] }),
);

await client.close();
console.log(`session complete (store: ${store})`);
