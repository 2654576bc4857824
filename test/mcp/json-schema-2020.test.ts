// Tools speak JSON Schema 2020-12 (issue 43, point 6): the dialect MCP gives a tool schema without
// `$schema` (2025-11-25 on, 2026-07-28 included). Every listed input and output schema compiles as
// 2020-12 and none names another dialect; arguments are checked in 2020-12, so a fixture schema
// that declares it (with `$defs` and `$ref`) is enforced as written. Needs the build.
import type { Client } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, serverEnv, stdioClient } from './helpers/peers.js';

const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function connect(pin?: string): Promise<Client> {
  const client = await stdioClient({
    name: 'json-schema-2020',
    args: [cli, 'mcp'],
    env: { ...serverEnv, MODELWORKS_MCP_CONFORMANCE_FIXTURES: '1' },
    pin,
  });
  clients.push(client);
  return client;
}

/** Every `$schema` value anywhere in a schema. */
function dialects(schema: unknown, out: string[] = []): string[] {
  if (typeof schema !== 'object' || schema === null) return out;
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$schema' && typeof v === 'string') out.push(v);
    else dialects(v, out);
  }
  return out;
}

describe('JSON Schema 2020-12 tools', () => {
  it.each([['2026-07-28'], [undefined]])(
    'every listed schema is 2020-12 (pin %s)',
    async (pin) => {
      const client = await connect(pin);
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(40);
      const ajv = new Ajv2020({ strict: false });
      for (const tool of tools)
        for (const schema of [tool.inputSchema, tool.outputSchema].filter(Boolean)) {
          expect(() => ajv.compile(schema as object), tool.name).not.toThrow();
          for (const d of dialects(schema))
            expect(d, tool.name).toBe('https://json-schema.org/draft/2020-12/schema');
        }
    },
    60_000,
  );

  it('checks arguments against a 2020-12 schema as written ($defs through $ref)', async () => {
    const client = await connect();
    const call = (args: Record<string, unknown>) =>
      client.callTool({ name: 'json_schema_2020_12_tool', arguments: args });
    const ok = await call({ name: 'Ada', address: { street: '1 Loop Rd', city: 'Leeds' } });
    expect(ok.isError).toBeFalsy();
    const refused = await call({ name: 'Ada', address: { street: 1 } });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toMatch(
      /Invalid arguments for json_schema_2020_12_tool: \/address\/street must be string/,
    );
  }, 60_000);
});
