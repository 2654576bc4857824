// Cross-process: `modelworks serve` on PostgreSQL; two MCP servers in remote mode (stdio children
// of SDK clients) and a WebSocket client on it. A mutate through one MCP process is seen by the
// other's get_state and by the WebSocket frame; a wrong key is refused everywhere.
// Needs MODELWORKS_TEST_POSTGRES_URL (skipped without it) and a build (dist/cli/main.js).
import type { ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../mcp/helpers/peers.js';
import { startServe } from '../mcp/helpers/serve.js';
import { looseSpec } from '../mcp/helpers/specs.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Result {
  content: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

const PG = process.env.MODELWORKS_TEST_POSTGRES_URL;
const KEY = 'cross-process-key';
const MODEL = `xp-${process.pid}-${Date.now()}`;

async function remoteMcp(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'cross-process', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', '--url', url],
      env: { ...process.env, MODELWORKS_API_KEY: key, MODELWORKS_STORE: 'memory' },
      stderr: 'ignore',
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Json) =>
  (await client.callTool({ name, arguments: args })) as unknown as Result;

describe.skipIf(!PG)('serve on PostgreSQL, shared by remote MCP processes and a WebSocket client', () => {
  let serve: { url: string; child: ChildProcess };
  let a: Client;
  let b: Client;

  beforeAll(async () => {
    serve = await startServe(PG!, { MODELWORKS_API_KEY: KEY });
    [a, b] = await Promise.all([remoteMcp(serve.url, KEY), remoteMcp(serve.url, KEY)]);
  }, 60_000);
  afterAll(async () => {
    await call(a, 'delete_model', { id: MODEL }).catch(() => {});
    await Promise.all([a?.close(), b?.close()]);
    serve?.child.kill('SIGTERM');
  });

  it('a mutate from one MCP process is seen by the other and by the WebSocket', async () => {
    const created = await call(a, 'create_model', { spec: looseSpec(MODEL) });
    expect(created.structuredContent).toMatchObject({ id: MODEL });

    const ws = new WebSocket(`${serve.url.replace('http', 'ws')}/models/${MODEL}/subscribe?paths=total`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    let subscribed!: () => void;
    const subscribedFrame = new Promise<void>((resolve) => (subscribed = resolve));
    const mutationFrame = new Promise<Json>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as Json;
        if (frame.kind === 'subscribed') subscribed();
        if (frame.kind === 'mutation') resolve(frame);
      }),
    );
    await subscribedFrame;

    const mutated = await call(a, 'mutate', { id: MODEL, mutations: { '$.price': 6, '$.qty': 7 } });
    expect(mutated.structuredContent).toMatchObject({ success: true, derivedUpdated: ['$.total'] });

    const state = await call(b, 'get_state', { id: MODEL });
    expect(JSON.parse(state.content[0]!.text)).toEqual({ price: 6, qty: 7, total: 42 });

    expect(await mutationFrame).toEqual({
      kind: 'mutation',
      modelId: MODEL,
      mutatedPaths: ['$.price', '$.qty'],
      derivedUpdated: ['$.total'],
      flaggedConstraints: [],
      dispatchedEffects: [],
    });
    ws.close();
  });

  it('refuses a wrong key everywhere: REST, WebSocket, /mcp, and a remote MCP process', async () => {
    const rest = await fetch(`${serve.url}/models`, { headers: { authorization: 'Bearer nope' } });
    expect(rest.status).toBe(401);

    const wsStatus = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${serve.url.replace('http', 'ws')}/models/${MODEL}/subscribe?token=nope`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(wsStatus).toBe(401);

    const direct = new Client({ name: 'wrong-key', version: '1' });
    await expect(
      direct.connect(
        new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer nope' } },
        }),
      ),
    ).rejects.toThrow(/401/);

    const wrong = await remoteMcp(serve.url, 'nope');
    try {
      const res = await call(wrong, 'get_state', { id: MODEL });
      expect(res.isError).toBe(true);
      expect(res.content[0]!.text).toContain(`server at ${serve.url} refused the request (401)`);
    } finally {
      await wrong.close();
    }
  });
});
