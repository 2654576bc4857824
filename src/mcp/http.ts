/**
 * Streamable HTTP at /mcp on node:http. `initialize` mints a session (Mcp-Session-Id); later
 * requests carry it; an unknown session is 404; a request with neither a session nor initialize
 * gets a one-off session. A session nobody has used for the idle time is closed (most clients just
 * go away without a DELETE). Origin and Host are checked against DNS rebinding.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  type NodeMcpRequestHandler,
} from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Server } from '@modelcontextprotocol/server';
import type { RequestLimiter } from './http-rate-limit.js';
import {
  answerClientError,
  DISCARD_BODY_MS,
  discardRestOfBody,
  MAX_MCP_BODY_BYTES,
  requestTimeoutsFromEnv,
  timeoutServerOptions,
  type RequestTimeouts,
} from '../http/limits.js';
import { inputLimitsFromEnv } from '../service/input-limits.js';
import { gateLimitsFromEnv } from '../service/work-gate.js';
import { SIMULATION_GATE_SETTINGS } from '../service/simulate/index.js';
import { FIT_GATE_SETTINGS } from '../service/fit-runner.js';
import { REQUEST_ID_HEADER, requestIdOf, withRequestId, type Logger } from '../observability/logger.js';
import { traceHttpRequest } from '../observability/tracing.js';
import { SessionEventStore, type EventStoreLimits } from './event-store.js';
import { conformanceFixturesFromEnv } from './conformance-tools.js';
import { announceReady, isModernRevision, watchResource } from './server.js';
import { listenedResourceUris } from './listen.js';
import type { ServerMetrics } from '../observability/metrics.js';

export const MAX_SESSIONS = 1000;
/** Each tool's documented maximum fits, JSON-escaped (an 8 MB fit_model sample): see http/limits.ts. */
export const MAX_BODY_BYTES = MAX_MCP_BODY_BYTES;
/** How long a session may sit unused (no request, no open event stream) before it is closed. */
export const DEFAULT_SESSION_IDLE_SECONDS = 3600;
const IDLE_ENV = 'MODELWORKS_MCP_SESSION_IDLE_SECONDS';
/** Events a session keeps for clients that reconnect with Last-Event-ID (0: no resumption). */
export const DEFAULT_EVENT_STORE_MAX_EVENTS = 1000;
/** Bytes of those events a session keeps. */
export const DEFAULT_EVENT_STORE_MAX_BYTES = 1024 * 1024;
/** The retry hint of a priming event: how long a client waits before reconnecting a closed stream. */
export const DEFAULT_SSE_RETRY_MS = 1000;
const EVENTS_ENV = 'MODELWORKS_MCP_EVENT_STORE_MAX_EVENTS';
const EVENT_BYTES_ENV = 'MODELWORKS_MCP_EVENT_STORE_MAX_BYTES';
const RETRY_ENV = 'MODELWORKS_MCP_SSE_RETRY_MS';

/**
 * The session idle time from `MODELWORKS_MCP_SESSION_IDLE_SECONDS`, in ms; throws on a bad value,
 * or on a bad value of any other Streamable HTTP setting (`streamSettingsFromEnv`), so one call at
 * start-up refuses them all.
 */
export function sessionIdleMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  streamSettingsFromEnv(env);
  conformanceFixturesFromEnv(env);
  // the request bounds (issue 47): bad values stop the command here, not at the first request
  requestTimeoutsFromEnv(env);
  inputLimitsFromEnv(env);
  gateLimitsFromEnv(SIMULATION_GATE_SETTINGS, env);
  gateLimitsFromEnv(FIT_GATE_SETTINGS, env);
  const text = env[IDLE_ENV]?.trim();
  if (!text) return DEFAULT_SESSION_IDLE_SECONDS * 1000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`${IDLE_ENV} must be a positive number of seconds (got '${text}')`);
  return seconds * 1000;
}

/** Resumable streams: the per-session event store's bounds and the retry hint. */
export interface StreamSettings {
  events: EventStoreLimits;
  retryMs: number;
}

function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got '${text}')`);
  return n;
}

/**
 * `MODELWORKS_MCP_EVENT_STORE_MAX_EVENTS` (0 turns resumption off), `…_MAX_BYTES` and
 * `MODELWORKS_MCP_SSE_RETRY_MS`; throws on a bad value.
 */
export function streamSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StreamSettings {
  return {
    events: {
      maxEvents: wholeNumber(env, EVENTS_ENV, DEFAULT_EVENT_STORE_MAX_EVENTS, 0, 1_000_000),
      maxBytes: wholeNumber(env, EVENT_BYTES_ENV, DEFAULT_EVENT_STORE_MAX_BYTES, 1024, 1024 ** 3),
    },
    retryMs: wholeNumber(env, RETRY_ENV, DEFAULT_SSE_RETRY_MS, 0, 3_600_000),
  };
}

/**
 * Builds a server; `era` says which protocol era it will serve when the SDK's entry knows it
 * (`modern`: one 2026-07-28 request or connection, which can never be asked to sample or elicit).
 */
export type CreateServer = (context?: { era: 'legacy' | 'modern' }) => Server;

export interface SessionHostOptions {
  /** A session unused this long is closed; default DEFAULT_SESSION_IDLE_SECONDS. */
  idleMs?: number;
  maxSessions?: number;
  log?: (message: string) => void;
  /** The clock idleness is measured on (tests pass one they move); Date.now by default. */
  now?: () => number;
  /** Resumable streams; default from the environment (`streamSettingsFromEnv`). */
  stream?: StreamSettings;
}

export interface HttpMcpOptions {
  host: string;
  port: number;
  /** Builds a fresh MCP server for each session (and each 2026-07-28 request). */
  createServer: CreateServer;
  /** Browser origins allowed to call /mcp; empty = loopback origins only. */
  allowedOrigins: readonly string[];
  log: (message: string) => void;
  /**
   * Request logging (the servers' one pino logger): each request gets an id, on its lines (and on
   * anything logged while it runs) and on its span when tracing is on.
   */
  logger?: Logger;
  /** A session unused this long is closed; default DEFAULT_SESSION_IDLE_SECONDS. */
  sessionIdleMs?: number;
  /** Resumable streams; default from the environment. */
  stream?: StreamSettings;
  /** Prometheus metrics at /metrics (after the Host and Origin checks) and of every request. */
  metrics?: ServerMetrics;
  /** The per-client request limit (http-rate-limit.ts); none when absent. */
  limit?: RequestLimiter;
  /** How long a client may take to send headers and body; default from the environment. */
  timeouts?: RequestTimeouts;
}

export interface RunningHttpMcp {
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  return hostHeader.split(':')[0];
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

/** A request body past MAX_BODY_BYTES (answered 413, told apart by type, not by message). */
class BodyTooLarge extends Error {}

/** The body as text; rejects with BodyTooLarge past the limit without destroying the request. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.off('end', onEnd);
      reject(new BodyTooLarge(`body over ${MAX_BODY_BYTES} bytes`));
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client went away while sending'));
    });
  });
}

/** A POST's JSON-RPC body, or the answer already sent (413 past the size cap, 400 when not JSON). */
async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ body: unknown } | undefined> {
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) {
    // refused on what the client announces, before reading; the rest is drained (for a bounded
    // time) so the client, still sending, reads the 413 rather than a reset
    sendJson(res, 413, rpcError(-32700, `Request body too large (limit ${MAX_BODY_BYTES} bytes)`));
    discardRestOfBody(req, DISCARD_BODY_MS);
    return undefined;
  }
  try {
    return { body: JSON.parse(await readBody(req)) };
  } catch (err) {
    const tooLarge = err instanceof BodyTooLarge;
    if (tooLarge) discardRestOfBody(req, DISCARD_BODY_MS);
    sendJson(
      res,
      tooLarge ? 413 : 400,
      rpcError(-32700, tooLarge ? `Request body too large (limit ${MAX_BODY_BYTES} bytes)` : 'Parse error'),
    );
    return undefined;
  }
}

/**
 * Calls `then` once `res` answers 200, i.e. a GET event stream has started: the SDK registers the
 * stream before it writes the head, so a notification sent from then on reaches the client.
 */
function onEventStreamOpen(res: ServerResponse, then: () => void): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const patched = (...args: unknown[]): ServerResponse => {
    const out = writeHead(...args);
    if (res.statusCode === 200) setImmediate(then);
    return out;
  };
  res.writeHead = patched;
}

/**
 * The request as the SDK's classifier reads it: method, URL and headers (the body is passed to it
 * already parsed, so this one carries none).
 */
function webRequestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  return new Request(new URL(req.url ?? '/mcp', 'http://localhost'), {
    method: req.method ?? 'POST',
    headers,
  });
}

/** True when a browser Origin may call us: listed, or (with no list) a loopback origin. */
export function originAllowed(origin: string | undefined, allowedOrigins: readonly string[]): boolean {
  if (!origin) return true; // non-browser clients send none
  if (allowedOrigins.length > 0) return allowedOrigins.includes(origin);
  try {
    const host = new URL(origin).hostname;
    return LOOPBACK_HOSTS.has(host) || LOOPBACK_HOSTS.has(`[${host}]`);
  } catch {
    return false;
  }
}

/** DNS rebinding: a server bound to loopback answers only to loopback host names. */
export function hostAllowed(hostHeader: string | undefined, bindHost: string): boolean {
  if (!LOOPBACK_HOSTS.has(bindHost)) return true;
  const host = hostnameOf(hostHeader);
  return host !== undefined && LOOPBACK_HOSTS.has(host);
}

/**
 * The Streamable HTTP session logic, independent of the HTTP framework: `modelworks mcp --http`
 * (node:http) and `modelworks serve` (Fastify, after reply.hijack) both hand it requests whose
 * body is already parsed and whose Host, Origin and credentials are already checked.
 */
export class McpSessionHost {
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly stream: StreamSettings;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  /** The 2026-07-28 entry, made at the first such request. */
  private modern: { handler: McpHttpHandler; node: NodeMcpRequestHandler } | undefined;
  /** A server kept only to watch resources for listen streams (its tools are never called). */
  private watcher: Server | undefined;
  private readonly watches = new Map<string, { off: () => void; count: number }>();

  constructor(
    private readonly createServer: CreateServer,
    private readonly options: SessionHostOptions = {},
  ) {
    this.idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_SECONDS * 1000;
    this.maxSessions = options.maxSessions ?? MAX_SESSIONS;
    this.stream = options.stream ?? streamSettingsFromEnv();
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method === 'POST' && !(await isLegacyRequest(webRequestOf(req), body)))
      return this.handleModern(req, res, body);
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && !known)
      return sendJson(res, 404, rpcError(-32001, 'Session not found'));
    if (known) {
      inUse(known, res, this.now);
      if (req.method === 'GET') {
        await resumeOver(known, req, res);
        onEventStreamOpen(res, () => announceReady(known.server));
      }
      if (req.method === 'POST') atNegotiatedVersion(req, known.protocolVersion);
      return known.transport.handleRequest(req, res, body);
    }

    const initializing =
      req.method === 'POST' &&
      (Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body));
    if (!initializing) {
      // a request outside any session: answer it with a one-off server
      if (req.method !== 'POST') {
        // 2026-07-28 has no GET stream and no session to DELETE (subscriptions/listen replaces both)
        const version = req.headers['mcp-protocol-version'];
        if (typeof version === 'string' && isModernRevision(version))
          return sendJson(res, 405, rpcError(-32000, `Method not allowed: ${req.method} /mcp at ${version}`));
        return sendJson(res, 400, rpcError(-32000, 'No session: send initialize first'));
      }
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      const server = this.createServer();
      await server.connect(transport);
      res.on('close', () => void server.close());
      return transport.handleRequest(req, res, body);
    }
    if (this.sessions.size >= this.maxSessions) this.closeIdle();
    if (this.sessions.size >= this.maxSessions)
      return sendJson(res, 429, rpcError(-32000, `Too many sessions (${this.maxSessions})`));
    const server = this.createServer();
    const protocolVersion = negotiatedVersion(body);
    // each session its own bounded store: a Last-Event-ID names an event of this session only
    const events = this.stream.events.maxEvents > 0 ? new SessionEventStore(this.stream.events) : undefined;
    const resumable = events ? { eventStore: events, retryInterval: this.stream.retryMs } : {};
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      ...resumable,
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, {
          transport,
          server,
          lastUsed: this.now(),
          open: 0,
          ...(events ? { events } : {}),
          getStreams: new Map(),
          protocolVersion,
        });
        this.startSweeper();
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  }

  /**
   * A 2026-07-28 request: no session, a fresh server for this one request (the SDK's entry), so any
   * process behind a balancer can answer it. A `subscriptions/listen` stream hears of the resources
   * it names through watches held while it is open.
   */
  private async handleModern(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!this.modern) {
      const handler = createMcpHandler((context) => this.createServer(context), {
        legacy: 'reject',
        onerror: (err) => this.options.log?.(`mcp http: ${err.message}`),
      });
      this.modern = { handler, node: toNodeHandler(handler) };
    }
    const { handler, node } = this.modern;
    for (const uri of listenedResourceUris(body)) {
      const release = this.watch(uri, () => handler.notify.resourceUpdated(uri));
      if (release) res.once('close', release);
    }
    await node(req, res, body);
  }

  /**
   * Watches a resource for the listen streams of this process, once per URI however many streams
   * name it (the SDK's router then tells each stream that asked); the returned function releases
   * one stream's interest.
   */
  private watch(uri: string, publish: () => void): (() => void) | undefined {
    const held = this.watches.get(uri);
    if (held) {
      held.count++;
    } else {
      this.watcher ??= this.createServer({ era: 'modern' });
      const off = watchResource(this.watcher, uri, publish);
      if (!off) return undefined;
      this.watches.set(uri, { off, count: 1 });
    }
    return () => {
      const w = this.watches.get(uri);
      if (!w || --w.count > 0) return;
      w.off();
      this.watches.delete(uri);
    };
  }

  async close(): Promise<void> {
    for (const w of this.watches.values()) w.off();
    this.watches.clear();
    await this.modern?.handler.close();
    await this.watcher?.close();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const { server } of this.sessions.values()) await server.close().catch(() => {});
    this.sessions.clear();
  }

  /**
   * Closes every session unused for the idle time; an open request or event stream is use. A timer
   * calls it every half idle period; tests call it after moving their clock.
   */
  closeIdle(): void {
    const cutoff = this.now() - this.idleMs;
    let closed = 0;
    for (const [id, session] of this.sessions) {
      if (session.open > 0 || session.lastUsed > cutoff) continue;
      this.sessions.delete(id);
      void session.server.close().catch(() => {});
      closed++;
    }
    if (closed > 0)
      this.options.log?.(
        `mcp http: closed ${closed} session${closed === 1 ? '' : 's'} unused for ${this.idleMs / 1000} s`,
      );
    if (this.sessions.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private startSweeper(): void {
    // a check every half idle period (at most every minute): a session goes at most that late
    this.sweeper ??= setInterval(() => this.closeIdle(), Math.min(this.idleMs / 2, 60_000)).unref();
  }
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
  /** Requests (event streams included) still open. */
  open: number;
  /** The session's event store, when streams are resumable. */
  events?: SessionEventStore;
  /** Open GET event streams by the SDK's stream id (the standalone stream, or one resumed). */
  getStreams: Map<string, ServerResponse>;
  /** The protocol version initialize settled on. */
  protocolVersion: string;
}

/** The version the SDK's initialize answers: the client's when supported, else the newest. */
function negotiatedVersion(body: unknown): string {
  const init = (Array.isArray(body) ? body : [body]).find((m) => isInitializeRequest(m));
  const asked = init?.params.protocolVersion;
  return typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked)
    ? asked
    : LATEST_PROTOCOL_VERSION;
}

/**
 * Stream features follow the version the session negotiated: a request whose MCP-Protocol-Version
 * header names an older one (the conformance suite's polling scenario sends 2025-03-26 in a
 * 2025-11-25 session) still gets its priming event, retry hint and resumable stream. The SDK's
 * transport decides those by the header, so an older header is raised to the negotiated version;
 * a session that negotiated an older version keeps its header, and no priming events.
 */
function atNegotiatedVersion(req: IncomingMessage, negotiated: string): void {
  const header = req.headers['mcp-protocol-version'];
  if (typeof header !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(header) || header >= negotiated)
    return;
  req.headers['mcp-protocol-version'] = negotiated;
  // the SDK's transport builds its Request from the raw header list
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.toLowerCase() === 'mcp-protocol-version') req.rawHeaders[i + 1] = negotiated;
}

/** The SDK transport's id for a session's standalone GET stream (its events are stored under it). */
const STANDALONE_STREAM = '_GET_stream';

/**
 * A GET event stream, resumed or not, is the session's stream of that id from now on. A client
 * reconnecting with Last-Event-ID has lost its previous connection even when the server has not
 * noticed yet (the SDK would refuse the resumption as a second live stream): that connection is
 * closed first, and the SDK has let go of it before the new one is handed over.
 */
async function resumeOver(session: Session, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const last = req.headers['last-event-id'];
  let streamId: string | undefined = STANDALONE_STREAM;
  if (typeof last === 'string' && session.events) {
    streamId = await session.events.getStreamIdForEventId(last);
    const previous = streamId === undefined ? undefined : session.getStreams.get(streamId);
    if (previous && !previous.closed) {
      const gone = new Promise((resolve) => previous.once('close', resolve));
      previous.destroy();
      await gone;
      await new Promise((resolve) => setImmediate(resolve)); // the SDK drops the stream on close
    }
  }
  if (streamId === undefined) return; // an unknown id: the SDK answers it
  const id = streamId;
  session.getStreams.set(id, res);
  res.once('close', () => {
    if (session.getStreams.get(id) === res) session.getStreams.delete(id);
  });
}

/** Counts `res` as use of the session until it closes. */
function inUse(session: Session, res: ServerResponse, now: () => number): void {
  session.open++;
  session.lastUsed = now();
  res.once('close', () => {
    session.open--;
    session.lastUsed = now();
  });
}

/** Starts the HTTP endpoint; resolves once it listens. */
export async function serveHttp(options: HttpMcpOptions): Promise<RunningHttpMcp> {
  const host = new McpSessionHost(options.createServer, {
    log: options.log,
    ...(options.sessionIdleMs !== undefined ? { idleMs: options.sessionIdleMs } : {}),
    ...(options.stream !== undefined ? { stream: options.stream } : {}),
  });

  const { metrics } = options;
  metrics?.watchMcpSessions(() => host.size);
  const { limit } = options;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const isMetrics = metrics !== undefined && url.pathname === '/metrics';
    const known = url.pathname === '/health' || url.pathname === '/mcp' || isMetrics;
    metrics?.countNodeRequest(req.method, known ? url.pathname : undefined, res);
    if (url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });
    // before every other check, so a client flooding the server with bad requests is limited too
    if (limit && !(await limit(req, res))) return;
    if (url.pathname !== '/mcp' && !isMetrics)
      return sendJson(res, 404, { error: 'Not found', code: 'NOT_FOUND' });
    if (!hostAllowed(req.headers.host, options.host))
      return sendJson(res, 403, rpcError(-32000, 'Forbidden host'));
    if (!originAllowed(req.headers.origin, options.allowedOrigins))
      return sendJson(res, 403, rpcError(-32000, 'Forbidden origin'));
    if (isMetrics) {
      if (req.method !== 'GET')
        return sendJson(res, 405, { error: 'Method not allowed: GET /metrics', code: 'BAD_REQUEST' });
      const scraped = await metrics.scrape();
      res.writeHead(200, { 'content-type': scraped.contentType }).end(scraped.body);
      return;
    }
    if (req.method !== 'POST') return host.handle(req, res, undefined);
    const read = await readJsonBody(req, res);
    if (read) return host.handle(req, res, read.body);
  };

  const { logger } = options;
  const failed = (res: ServerResponse, err: unknown): void => {
    if (logger) logger.error({ err }, 'mcp http: request failed');
    else options.log(`mcp http: ${(err as Error).message}`);
    if (!res.headersSent) sendJson(res, 500, rpcError(-32603, 'Internal error'));
  };

  // a slow sender is cut off (Node answers 408 and closes); open event streams are not affected
  const serverOptions = timeoutServerOptions(options.timeouts ?? requestTimeoutsFromEnv());
  const http: HttpServer = createServer(serverOptions, (req, res) => {
    const reqId = requestIdOf(req.headers);
    res.setHeader(REQUEST_ID_HEADER, reqId);
    // everything logged while the request runs carries its id, as on Fastify's servers
    withRequestId(reqId, () => {
      const started = performance.now();
      logger?.info({ req }, 'incoming request');
      res.once('close', () =>
        withRequestId(reqId, () =>
          logger?.info(
            { res: { statusCode: res.statusCode }, responseTime: performance.now() - started },
            'request completed',
          ),
        ),
      );
      const path = (req.url ?? '/').split('?')[0];
      const route = path === '/mcp' || path === '/health' || path === '/metrics' ? path : undefined;
      void traceHttpRequest(req, res, route, reqId, () =>
        handle(req, res).catch((err: unknown) => failed(res, err)),
      );
    });
  });
  http.on('clientError', answerClientError); // a slow sender's 408 in our shape, not an empty one
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    close: async () => {
      await host.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
