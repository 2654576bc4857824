// pair_browser end to end over real processes: `modelworks serve` (memory store, with a key) and
// `modelworks mcp --url … --browser` as an SDK client's stdio child. The person's approval is a
// plain HTTP POST here (test/sandbox/browser.test.ts does it in Chromium).
import type { ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startAnnounced } from '../helpers/child.js';
import type { Progress } from '@modelcontextprotocol/client';
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

const KEY = 'pairing-test-key';

async function mcp(url: string, args: string[], capabilities: Json = {}, pin?: string): Promise<Client> {
  const client = new Client(
    { name: 'pairing-test', version: '1' },
    { capabilities, ...(pin ? { versionNegotiation: { mode: { pin } } } : {}) },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', '--url', url, ...args],
      env: { ...process.env, MODELWORKS_API_KEY: KEY, MODELWORKS_STORE: 'memory' },
      stderr: 'ignore',
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Json = {}) =>
  (await client.callTool({ name, arguments: args })) as unknown as Result;

/** What the person does in the browser: approve the code (their own session comes back). */
async function approve(base: string, userCode: string): Promise<Json> {
  const res = await fetch(`${base}/sandbox/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userCode }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe('pair_browser', () => {
  let serve: { url: string; child: ChildProcess };
  const clients: Client[] = [];

  beforeAll(async () => {
    serve = await startServe('memory', { MODELWORKS_API_KEY: KEY });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    serve?.child.kill('SIGTERM');
  });

  it('is absent in embedded mode, even when --browser is given without a URL', async () => {
    for (const args of [[], ['--browser']]) {
      const embedded = new Client({ name: 'embedded', version: '1' });
      await embedded.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [cli, 'mcp', ...args],
          env: { ...process.env, MODELWORKS_STORE: 'memory' },
          stderr: 'ignore',
        }),
      );
      clients.push(embedded);
      const names = (await embedded.listTools()).tools.map((t) => t.name);
      expect(names).toContain('list_models');
      expect(names).not.toContain('pair_browser');
    }
  });

  it('is offered only in remote mode with --browser', async () => {
    const plain = await mcp(serve.url, []);
    clients.push(plain);
    expect((await plain.listTools()).tools.map((t) => t.name)).not.toContain('pair_browser');
    const browser = await mcp(serve.url, ['--browser']);
    clients.push(browser);
    expect((await browser.listTools()).tools.map((t) => t.name)).toContain('pair_browser');
  });

  it('pairs while reporting progress; model tools wait for it, authoring tools do not', async () => {
    const agent = await mcp(serve.url, ['--browser']);
    clients.push(agent);
    const before = await call(agent, 'list_models');
    expect(before.isError).toBe(true);
    expect(before.content[0]!.text).toMatch(/Not paired.*pair_browser/);
    expect((await call(agent, 'validate_spec', { spec: looseSpec('x') })).isError).toBeFalsy();

    const progress: Progress[] = [];
    let approved: Json | undefined;
    const paired = agent.callTool(
      { name: 'pair_browser', arguments: {} },
      {
        timeout: 60_000,
        onprogress: (p) => {
          progress.push(p);
          const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(p.message ?? '')?.[1];
          if (code && !approved) void approve(serve.url, code).then((a) => (approved = a));
        },
      },
    ) as Promise<Result>;
    const result = await paired;
    expect(progress.length).toBeGreaterThan(0);
    expect(result.structuredContent).toEqual({ status: 'paired', namespaceId: approved?.namespaceId });
    expect((await call(agent, 'pair_browser')).structuredContent).toMatchObject({ status: 'already_paired' });

    // the agent's model lives in the session's namespace: the browser sees it under the wire id
    await call(agent, 'create_model', { spec: looseSpec('demo') });
    expect(JSON.parse((await call(agent, 'list_models')).content[0]!.text)).toEqual(['demo']);
    const ns = approved!.namespaceId as string;
    const asBrowser = { 'x-session-token': approved!.browserToken as string };
    const listed = await fetch(`${serve.url}/models`, { headers: asBrowser });
    expect(await listed.json()).toEqual([`${ns}__demo`]);

    // an edit in the browser reaches the subscribed agent and its get_state
    const updated = new Promise<string>((resolve) =>
      agent.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)),
    );
    await agent.subscribeResource({ uri: 'valem://state/demo' });
    const edit = await fetch(`${serve.url}/models/${ns}__demo/mutations`, {
      method: 'POST',
      headers: { ...asBrowser, 'content-type': 'application/json' },
      body: JSON.stringify({ '$.price': 41, '$.qty': 1 }),
    });
    expect(edit.status).toBe(200);
    expect(await updated).toBe('valem://state/demo');
    const state = await call(agent, 'get_state', { id: 'demo' });
    expect(JSON.parse(state.content[0]!.text)).toMatchObject({ price: 41, qty: 1, total: 41 });
  }, 90_000);

  it('hands the link over as a URL elicitation and completes it when paired', async () => {
    const agent = await mcp(serve.url, ['--browser'], { elicitation: { url: {} } });
    clients.push(agent);
    let completed = '';
    let elicitedId = '';
    agent.setNotificationHandler('notifications/elicitation/complete', (n) => {
      completed = n.params.elicitationId;
    });
    agent.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Json;
      expect(params.mode).toBe('url');
      elicitedId = params.elicitationId as string;
      const code = /#code=([A-Z]{4}-[A-Z]{4})$/.exec(params.url as string)?.[1];
      await approve(serve.url, code!);
      return { action: 'accept' };
    });
    const result = await call(agent, 'pair_browser');
    expect(result.structuredContent).toMatchObject({ status: 'paired' });
    await expect.poll(() => completed, { timeout: 5_000 }).toBe(elicitedId);
  }, 60_000);

  it('at 2026-07-28 hands the link over as an input_required round, then waits on the retry', async () => {
    const agent = await mcp(serve.url, ['--browser'], { elicitation: { url: {} } }, '2026-07-28');
    clients.push(agent);
    expect(agent.getProtocolEra()).toBe('modern');
    const elicited: Json[] = [];
    agent.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Json;
      elicited.push(params);
      const code = /#code=([A-Z]{4}-[A-Z]{4})$/.exec(params.url as string)?.[1];
      await approve(serve.url, code!);
      return { action: 'accept' };
    });
    const result = await call(agent, 'pair_browser');
    expect(result.structuredContent).toMatchObject({ status: 'paired' });
    // one round: the link in URL mode with the code in the message (no elicitationId at 2026-07-28)
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toMatchObject({ mode: 'url', message: expect.stringMatching(/approve code/) });
    expect(elicited[0]!.elicitationId).toBeUndefined();
  }, 60_000);

  it('at 2026-07-28 over Streamable HTTP: the link round and the wait on its retry', async () => {
    const http = await startAnnounced({
      args: [cli, 'mcp', '--url', serve.url, '--browser', '--http', '--host', '127.0.0.1', '--port', '0'],
      env: { ...process.env, MODELWORKS_API_KEY: KEY, MODELWORKS_STORE: 'memory' },
      announce: /MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/,
      what: 'modelworks mcp --url --browser --http',
    });
    const agent = new Client(
      { name: 'pairing-test-http', version: '1' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    try {
      await agent.connect(new StreamableHTTPClientTransport(new URL(http.match[1]!)));
      expect(agent.getProtocolEra()).toBe('modern');
      let elicited = 0;
      agent.setRequestHandler('elicitation/create', async (request) => {
        elicited++;
        const code = /#code=([A-Z]{4}-[A-Z]{4})$/.exec((request.params as Json).url as string)?.[1];
        await approve(serve.url, code!);
        return { action: 'accept' };
      });
      const result = await call(agent, 'pair_browser');
      expect(result.structuredContent).toMatchObject({ status: 'paired' });
      expect(elicited).toBe(1);
      // paired for this process: the next stateless request finds model tools open
      expect((await call(agent, 'list_models')).isError).toBeFalsy();
    } finally {
      await agent.close();
      await http.stop();
    }
  }, 60_000);

  it('at 2026-07-28 a declined link answers pending at once, with the link and code', async () => {
    const agent = await mcp(serve.url, ['--browser'], { elicitation: { url: {} } }, '2026-07-28');
    clients.push(agent);
    agent.setRequestHandler('elicitation/create', () => ({ action: 'decline' }));
    const started = Date.now();
    const result = await call(agent, 'pair_browser');
    expect(result.structuredContent).toMatchObject({
      status: 'pending',
      userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verificationUri: expect.any(String),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('stops waiting at once when the call is cancelled', async () => {
    const agent = await mcp(serve.url, ['--browser']);
    clients.push(agent);
    const controller = new AbortController();
    let progressed = 0;
    const pending = agent.callTool(
      { name: 'pair_browser', arguments: {} },
      {
        signal: controller.signal,
        onprogress: () => {
          progressed++;
          controller.abort();
        },
      },
    );
    await expect(pending).rejects.toThrow();
    // rejected after the first progress (not at the pairing deadline): the abort ended the wait
    expect(progressed).toBe(1);
    // the server is still there and answers
    expect((await call(agent, 'validate_spec', { spec: looseSpec('y') })).isError).toBeFalsy();
    // and a later call picks up the same pairing, still pending
    const again = await call(agent, 'list_models');
    expect(again.content[0]!.text).toMatch(/Not paired/);
  }, 60_000);
});
