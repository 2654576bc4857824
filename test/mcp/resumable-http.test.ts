/**
 * Resumable Streamable HTTP (issue 19): a client that loses an SSE stream reconnects with
 * Last-Event-ID and gets what was sent meanwhile. Priming events carry an id and the retry hint;
 * each session keeps its own bounded store. Seen with raw HTTP (to see the wire) and with the SDK
 * client (which reconnects on its own).
 */
import { Client, StreamableHTTPClientTransport, InMemoryTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionEventStore } from '../../src/mcp/event-store.js';
import {
  DEFAULT_EVENT_STORE_MAX_BYTES,
  DEFAULT_EVENT_STORE_MAX_EVENTS,
  DEFAULT_SSE_RETRY_MS,
  serveHttp,
  sessionIdleMsFromEnv,
  streamSettingsFromEnv,
  type StreamSettings,
} from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { input, READ } from '../../src/mcp/tool.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const message = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { n },
});

describe('SessionEventStore', () => {
  it('replays the events of one stream after an id, in order, without priming events', async () => {
    const store = new SessionEventStore({ maxEvents: 100, maxBytes: 1 << 20 });
    const prime = await store.storeEvent('a', {} as JSONRPCMessage);
    const a1 = await store.storeEvent('a', message(1));
    await store.storeEvent('b', message(2));
    await store.storeEvent('a', message(3));
    const sent: [string, JSONRPCMessage][] = [];
    const send = (id: string, m: JSONRPCMessage) => Promise.resolve(void sent.push([id, m]));
    expect(await store.replayEventsAfter(prime, { send })).toBe('a');
    expect(sent.map(([, m]) => m)).toEqual([message(1), message(3)]);
    sent.length = 0;
    await store.replayEventsAfter(a1, { send });
    expect(sent.map(([, m]) => m)).toEqual([message(3)]);
    expect(await store.getStreamIdForEventId(a1)).toBe('a');
    expect(await store.getStreamIdForEventId('nope')).toBeUndefined();
    expect(await store.replayEventsAfter('nope', { send })).toBe('');
  });

  it('keeps at most maxEvents and maxBytes, dropping the oldest; a dropped id is unknown', async () => {
    const byCount = new SessionEventStore({ maxEvents: 3, maxBytes: 1 << 20 });
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) ids.push(await byCount.storeEvent('s', message(n)));
    expect(byCount.size).toBe(3);
    expect(await byCount.getStreamIdForEventId(ids[6]!)).toBeUndefined();
    expect(await byCount.getStreamIdForEventId(ids[7]!)).toBe('s');

    const one = Buffer.byteLength(JSON.stringify(message(1)));
    const byBytes = new SessionEventStore({ maxEvents: 1000, maxBytes: one * 4 });
    for (let n = 0; n < 10; n++) await byBytes.storeEvent('s', message(n));
    expect(byBytes.size).toBe(4);
    expect(byBytes.heldBytes).toBeLessThanOrEqual(one * 4);
    // the newest event stays whatever its size
    const big: JSONRPCMessage = { jsonrpc: '2.0', method: 'x', params: { pad: 'x'.repeat(one * 10) } };
    const bigId = await byBytes.storeEvent('s', big);
    expect(byBytes.size).toBe(1);
    expect(await byBytes.getStreamIdForEventId(bigId)).toBe('s');
  });
});

describe('conformance fixtures', () => {
  it('are listed only when switched on', async () => {
    const calc = new CalcService(new MemoryStore());
    const names = async (conformanceFixtures?: boolean) => {
      const server = createMcpServer({
        calc,
        guidanceTopics: [],
        groups: new Set(['calc']),
        modeLine: 'test',
        ...(conformanceFixtures === undefined ? {} : { conformanceFixtures }),
      });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      const client = new Client({ name: 'fixtures', version: '1' });
      await client.connect(a);
      const tools = (await client.listTools()).tools.map((t) => t.name);
      await client.close();
      return tools;
    };
    const fixtures = [
      'test_reconnection',
      'test_tool_with_progress',
      'test_tool_with_logging',
      'json_schema_2020_12_tool',
    ];
    expect(await names()).not.toEqual(expect.arrayContaining([fixtures[0]]));
    expect(await names(false)).toEqual((await names()).filter((n) => !fixtures.includes(n)));
    expect(await names(true)).toEqual(expect.arrayContaining(fixtures));
    await calc.close();
  });
});

describe('stream settings', () => {
  it('defaults, and refusals at start-up', () => {
    expect(streamSettingsFromEnv({})).toEqual({
      events: { maxEvents: DEFAULT_EVENT_STORE_MAX_EVENTS, maxBytes: DEFAULT_EVENT_STORE_MAX_BYTES },
      retryMs: DEFAULT_SSE_RETRY_MS,
    });
    expect(
      streamSettingsFromEnv({
        MODELWORKS_MCP_EVENT_STORE_MAX_EVENTS: '0',
        MODELWORKS_MCP_EVENT_STORE_MAX_BYTES: '65536',
        MODELWORKS_MCP_SSE_RETRY_MS: '250',
      }),
    ).toEqual({ events: { maxEvents: 0, maxBytes: 65536 }, retryMs: 250 });
    for (const [name, value] of [
      ['MODELWORKS_MCP_EVENT_STORE_MAX_EVENTS', '-1'],
      ['MODELWORKS_MCP_EVENT_STORE_MAX_BYTES', '10'],
      ['MODELWORKS_MCP_SSE_RETRY_MS', '1.5'],
      ['MODELWORKS_MCP_CONFORMANCE_FIXTURES', 'maybe'],
    ] as const) {
      // sessionIdleMsFromEnv is what both servers call at start-up
      expect(() => sessionIdleMsFromEnv({ [name]: value }), name).toThrow(new RegExp(name));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Over HTTP

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

/** A tool that answers when the test says so (a long call the client may lose the stream of). */
function gate(): { tool: ToolDefinition; release: () => void; started: Promise<void> } {
  let release!: () => void;
  let started!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const begun = new Promise<void>((r) => (started = r));
  return {
    release,
    started: begun,
    tool: {
      name: 'wait_for_release',
      title: 'Wait',
      description: 'Answers once released',
      inputSchema: input({}),
      annotations: READ,
      run: async () => {
        started();
        await released;
        return { content: [{ type: 'text', text: 'released' }] };
      },
    },
  };
}

async function start(stream: StreamSettings, extraTools: ToolDefinition[] = []) {
  const calc = new CalcService(new MemoryStore());
  const server = await serveHttp({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [],
    log: () => {},
    stream,
    createServer: () =>
      createMcpServer({
        calc,
        guidanceTopics: [],
        groups: new Set(['calc']),
        modeLine: 'test',
        conformanceFixtures: true,
        extraTools,
      }),
  });
  running.push({ close: async () => (await server.close(), await calc.close()) });
  return { url: server.url, calc };
}

const RESUMABLE: StreamSettings = { events: { maxEvents: 100, maxBytes: 1 << 20 }, retryMs: 40 };

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events off a response until `stop` says so or the stream ends. */
async function readEvents(res: Response, stop: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    while (!stop(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue; // keep-alive comment
        const event: SseEvent = { data: '' };
        for (const line of block.split('\n')) {
          const [field, ...rest] = line.split(':');
          const text = rest.join(':').replace(/^ /, '');
          if (field === 'id') event.id = text;
          else if (field === 'retry') event.retry = Number(text);
          else if (field === 'data') event.data += text;
        }
        events.push(event);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

/** A raw session: initialize, initialized; then POSTs and GETs with its headers. */
async function rawSession(url: string) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const sessionId = init.headers.get('mcp-session-id')!;
  await init.text();
  const session = { ...headers, 'mcp-session-id': sessionId };
  await fetch(url, {
    method: 'POST',
    headers: session,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return {
    sessionId,
    post: (body: unknown, signal?: AbortSignal) =>
      fetch(url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      }),
    get: (lastEventId?: string, signal?: AbortSignal) =>
      fetch(url, {
        method: 'GET',
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        ...(signal ? { signal } : {}),
      }),
  };
}

const call = (id: number, name: string, args: Json = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const rpc = (e: SseEvent): Json | undefined =>
  e.data.trim().startsWith('{') ? (JSON.parse(e.data) as Json) : undefined;

describe('resumable streams over HTTP', () => {
  it('a POST stream starts with a priming event (id, retry hint, no data); a closed stream resumes with Last-Event-ID', async () => {
    const { url } = await start(RESUMABLE);
    const s = await rawSession(url);
    const res = await s.post(call(1, 'test_reconnection'));
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const first = await readEvents(res, () => false);
    // the server closed the stream before answering: only the priming event came
    expect(first).toHaveLength(1);
    expect(first[0]).toEqual({ id: expect.any(String), retry: 40, data: '' });

    const resumed = await s.get(first[0]!.id);
    expect(resumed.status).toBe(200);
    const events = await readEvents(resumed, (got) => got.some((e) => rpc(e)?.id === 1));
    const answer = events.map(rpc).find((m) => m?.id === 1);
    expect(answer?.result.content[0].text).toMatch(/after the stream closed/);
  });

  it('a client that drops a stream mid-call gets the answer it missed', async () => {
    const g = gate();
    const { url } = await start(RESUMABLE, [g.tool]);
    const s = await rawSession(url);
    const abort = new AbortController();
    const res = await s.post(call(7, 'wait_for_release'), abort.signal);
    const primed = await readEvents(res, (got) => got.length >= 1);
    await g.started;
    abort.abort(); // the connection goes; the call goes on
    g.release();
    const resumed = await s.get(primed[0]!.id);
    const events = await readEvents(resumed, (got) => got.some((e) => rpc(e)?.id === 7));
    expect(events.map(rpc).find((m) => m?.id === 7)?.result.content).toEqual([
      { type: 'text', text: 'released' },
    ]);
  });

  it('notifications sent while the GET stream is down are replayed on reconnect', async () => {
    const { url, calc } = await start(RESUMABLE);
    const s = await rawSession(url);
    await calc.createModel({ id: 'm', schema: {}, derivations: [] });
    await (
      await s.post({
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/subscribe',
        params: { uri: 'valem://state/m' },
      })
    ).text();

    const abort = new AbortController();
    const stream = await s.get(undefined, abort.signal);
    const reading = readEvents(stream, (got) =>
      got.some((e) => rpc(e)?.method === 'notifications/resources/updated'),
    );
    await calc.mutate('m', { '$.a': 1 });
    const seen = await reading;
    const last = seen.filter((e) => e.id !== undefined).at(-1)!;
    abort.abort();

    await calc.mutate('m', { '$.a': 2 }); // no stream open: kept for replay
    await calc.mutate('m', { '$.a': 3 });
    const resumed = await s.get(last.id);
    const replayed = await readEvents(
      resumed,
      (got) => got.filter((e) => rpc(e)?.method === 'notifications/resources/updated').length >= 2,
    );
    expect(replayed.filter((e) => rpc(e)?.method === 'notifications/resources/updated')).toHaveLength(2);
  });

  it("a session's event ids mean nothing to another session", async () => {
    const { url } = await start(RESUMABLE);
    const a = await rawSession(url);
    const b = await rawSession(url);
    const primed = await readEvents(await a.post(call(1, 'test_reconnection')), () => false);
    const wrong = await b.get(primed[0]!.id);
    expect(wrong.status).toBe(400);
    await wrong.text();
  });

  it('stream features follow the negotiated version, not an older header on one request', async () => {
    const { url } = await start(RESUMABLE);
    const s = await rawSession(url); // negotiated 2025-11-25
    const older = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': s.sessionId,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(call(1, 'test_reconnection')),
    });
    expect(await readEvents(older, () => false)).toEqual([{ id: expect.any(String), retry: 40, data: '' }]);

    // a session that negotiated an older version gets no priming event (its client may not read one)
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      }),
    });
    const oldSession = init.headers.get('mcp-session-id')!;
    await init.text();
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': oldSession,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(call(2, 'test_reconnection')),
    });
    const events = await readEvents(answer, () => false);
    expect(events.every((e) => e.id === undefined || e.data !== '')).toBe(true);
    expect(events.map(rpc).find((m) => m?.id === 2)?.result).toBeDefined();
  });

  it('with the store off (0 events) streams carry no ids and the call answers on its own stream', async () => {
    const { url } = await start({ events: { maxEvents: 0, maxBytes: 1 << 20 }, retryMs: 40 });
    const s = await rawSession(url);
    const events = await readEvents(await s.post(call(1, 'test_reconnection')), () => false);
    expect(events.every((e) => e.id === undefined)).toBe(true);
    expect(events.map(rpc).find((m) => m?.id === 1)?.result).toBeDefined();
  });

  it('the SDK client reconnects by itself and gets the answer', async () => {
    const { url } = await start(RESUMABLE);
    const client = new Client({ name: 'resume', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    running.push({ close: () => client.close() });
    const result = (await client.callTool({ name: 'test_reconnection', arguments: {} })) as Json;
    expect(result.content[0].text).toMatch(/after the stream closed/);
  });
});
