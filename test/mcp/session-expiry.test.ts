// The Streamable HTTP session host closes sessions nobody uses: idle ones go, ones with requests
// or an open event stream stay, and a full host takes a new session once an old one is idle.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpSessionHost, sessionIdleMsFromEnv, DEFAULT_SESSION_IDLE_SECONDS } from '../../src/mcp/http.js';
import { manualClock } from '../helpers/time.js';

const ACCEPT = 'application/json, text/event-stream';
// long enough that the host's own sweep timer never fires during a test: the tests move a clock
// and call closeIdle themselves
const IDLE_MS = 600_000;

interface Running {
  url: string;
  host: McpSessionHost;
  logs: string[];
  stop(): Promise<void>;
}

async function start(maxSessions = 10): Promise<Running> {
  const logs: string[] = [];
  const host = new McpSessionHost(
    () => new Server({ name: 'expiry-test', version: '1' }, { capabilities: {} }),
    { idleMs: IDLE_MS, maxSessions, log: (m) => logs.push(m), now: clock.now },
  );
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      let body: unknown;
      if (req.method === 'POST') {
        let text = '';
        for await (const chunk of req) text += String(chunk);
        body = JSON.parse(text);
      }
      await host.handle(req, res, body);
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    host,
    logs,
    stop: async () => {
      await host.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });

/** initialize + initialized; resolves with the headers that address the session (or the status). */
async function open(url: string): Promise<Record<string, string> | number> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await init.text();
  if (init.status !== 200) return init.status;
  const headers = {
    'mcp-session-id': init.headers.get('mcp-session-id')!,
    'mcp-protocol-version': '2025-11-25',
  };
  const ready = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  await ready.text();
  return headers;
}

async function ping(url: string, headers: Record<string, string>): Promise<number> {
  const res = await post(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
  await res.text();
  return res.status;
}

let clock = manualClock();

/** Moves the clock past the idle time and lets the host sweep, as its timer would. */
function idleLongEnough(host: McpSessionHost): void {
  clock.advance(IDLE_MS + 1);
  host.closeIdle();
}

describe('MCP HTTP sessions expire when unused', () => {
  let running: Running | undefined;
  beforeEach(() => {
    clock = manualClock();
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('closes an idle session (then 404) and keeps one with an open event stream', async () => {
    running = await start();
    const { url, host } = running;
    const idle = (await open(url)) as Record<string, string>;
    const streaming = (await open(url)) as Record<string, string>;
    const stream = await fetch(url, { headers: { ...streaming, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    expect(host.size).toBe(2);

    idleLongEnough(host);
    expect(host.size).toBe(1);
    expect(await ping(url, idle)).toBe(404);
    expect(running.logs.join('\n')).toMatch(/closed 1 session unused for/);
    // far longer than the idle time without a request, but its stream is open
    expect(await ping(url, streaming)).toBe(200);

    await stream.body?.cancel();
    // the server sees the stream end a moment later; from then on the session is idle
    await vi.waitFor(() => {
      idleLongEnough(host);
      expect(host.size).toBe(0);
    });
    expect(await ping(url, streaming)).toBe(404);
  });

  it('keeps a session that is used more often than the idle time', async () => {
    running = await start();
    const headers = (await open(running.url)) as Record<string, string>;
    for (let i = 0; i < 8; i++) {
      clock.advance(IDLE_MS / 2);
      running.host.closeIdle();
      expect(await ping(running.url, headers)).toBe(200);
    }
    expect(running.host.size).toBe(1);
  });

  it('refuses a session beyond the cap (429) until an old one is idle', async () => {
    running = await start(2);
    const { url } = running;
    const first = (await open(url)) as Record<string, string>;
    expect(typeof (await open(url))).toBe('object');
    expect(await open(url)).toBe(429);
    clock.advance(IDLE_MS * 2); // the full host sweeps before it refuses
    const third = await open(url);
    expect(typeof third).toBe('object');
    expect(await ping(url, third as Record<string, string>)).toBe(200);
    expect(await ping(url, first)).toBe(404);
  });
});

describe('MODELWORKS_MCP_SESSION_IDLE_SECONDS', () => {
  it('defaults to an hour and takes positive seconds', () => {
    expect(sessionIdleMsFromEnv({})).toBe(DEFAULT_SESSION_IDLE_SECONDS * 1000);
    expect(DEFAULT_SESSION_IDLE_SECONDS).toBe(3600);
    expect(sessionIdleMsFromEnv({ MODELWORKS_MCP_SESSION_IDLE_SECONDS: ' 90 ' })).toBe(90_000);
    expect(sessionIdleMsFromEnv({ MODELWORKS_MCP_SESSION_IDLE_SECONDS: '0.5' })).toBe(500);
  });

  it('refuses zero, negatives and text with a message naming the variable', () => {
    for (const bad of ['0', '-5', 'soon', 'Infinity']) {
      expect(() => sessionIdleMsFromEnv({ MODELWORKS_MCP_SESSION_IDLE_SECONDS: bad })).toThrow(
        /MODELWORKS_MCP_SESSION_IDLE_SECONDS must be a positive number of seconds/,
      );
    }
  });
});
