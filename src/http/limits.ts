/**
 * What every HTTP server we start (`serve`, `mcp --http`, `synth serve`) bounds about a request
 * before a route sees it (issue 47): the body's size, and how long a client may take to send its
 * headers and its body. A slow sender holds a socket and a parser; a client sending past the size
 * limit is answered 413 and given a bounded time to finish sending, so it reads the answer instead
 * of a reset connection.
 */
import { STATUS_CODES, type IncomingMessage, type ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_INPUT_LIMITS, type InputLimits } from '../service/input-limits.js';

/** JSON bodies of the REST API (specs, mutations, patches); blobs and /mcp have their own limits. */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

/**
 * MCP messages over HTTP: large enough for each tool's documented maximum once JSON-escaped (an
 * 8 MB fit_model sample, a 10 MiB workbook as base64 for convert_spreadsheet, a 4 MiB
 * compare_sample), still bounded.
 */
export const MAX_MCP_BODY_BYTES = 24 * 1024 * 1024;

/** Time limits on receiving a request (Node's headersTimeout and requestTimeout). */
export interface RequestTimeouts {
  /** From the connection's first byte of a request to the end of its headers. */
  headersMs: number;
  /** From the first byte to the end of the body; a response may take longer (event streams). */
  bodyMs: number;
}

export const DEFAULT_REQUEST_TIMEOUTS: Readonly<RequestTimeouts> = { headersMs: 10_000, bodyMs: 30_000 };

export const REQUEST_TIMEOUT_SETTINGS = {
  MODELWORKS_HTTP_HEADERS_TIMEOUT_SECONDS: { key: 'headersMs', min: 1, max: 3600 },
  MODELWORKS_HTTP_BODY_TIMEOUT_SECONDS: { key: 'bodyMs', min: 1, max: 3600 },
} as const satisfies Record<string, { key: keyof RequestTimeouts; min: number; max: number }>;

/** The timeouts from the environment (whole seconds), defaults for what is unset. @throws Error on a bad value */
export function requestTimeoutsFromEnv(env: NodeJS.ProcessEnv = process.env): RequestTimeouts {
  const out: RequestTimeouts = { ...DEFAULT_REQUEST_TIMEOUTS };
  for (const [name, { key, min, max }] of Object.entries(REQUEST_TIMEOUT_SETTINGS)) {
    const text = env[name]?.trim();
    if (text === undefined || text === '') continue;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max)
      throw new Error(`${name} must be a whole number of seconds from ${min} to ${max} (got '${text}')`);
    out[key] = n * 1000;
  }
  // Node requires the headers' limit to be within the whole request's
  out.headersMs = Math.min(out.headersMs, out.bodyMs);
  return out;
}

/**
 * node:http server options enforcing the timeouts. Node checks them on an interval (30 s by
 * default): a tighter one makes a slow sender go close to its limit, not up to 30 s after it.
 */
export function timeoutServerOptions(timeouts: RequestTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.bodyMs,
    connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
  };
}

/**
 * After a refusal answered before the body was read (413): read and discard the rest of the body
 * so the client, still sending, gets the answer rather than a reset; a client that has not
 * finished within `ms` is cut off.
 */
export function discardRestOfBody(req: IncomingMessage, ms: number): void {
  if (req.complete || req.destroyed) return;
  const timer = setTimeout(() => req.socket.destroy(), ms);
  timer.unref();
  const stop = (): void => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
  req.on('data', () => {}); // keeps it flowing once every other reader has let go
  req.resume();
}

/** How long a client refused for its size may go on sending before it is cut off. */
export const DISCARD_BODY_MS = 5_000;

const inputLimitsByApp = new WeakMap<FastifyInstance, InputLimits>();

/** The input limits buildApp settled on, for the routes that check a write's size. */
export function rememberInputLimits(app: FastifyInstance, limits: InputLimits): void {
  inputLimitsByApp.set(app, limits);
}

export function inputLimitsOf(app: FastifyInstance): InputLimits {
  return inputLimitsByApp.get(app) ?? DEFAULT_INPUT_LIMITS;
}

/**
 * Answers what Node refuses before any route sees a request (a request not received in time, headers
 * over Node's size limit, bytes that are not HTTP) in our problem shape with our codes, then closes
 * the connection. Used as Fastify's clientErrorHandler and as node:http's 'clientError' listener.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, detail] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'REQUEST_TIMEOUT', 'The request was not received in time (MODELWORKS_HTTP_*_TIMEOUT_SECONDS)']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [413, 'TOO_LARGE', 'The request headers are over the size limit']
        : [400, 'BAD_REQUEST', 'The request is not well-formed HTTP'];
  const title = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ type: 'about:blank', title, status, detail, code });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  socket.destroy();
}
