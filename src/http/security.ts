/**
 * The guards every request passes before a route runs: DNS-rebinding Host check, browser Origin
 * allowlist, and the API key. The key is compared in constant time and never logged or echoed
 * (request logs carry a redacted URL, since WebSocket clients may pass it as `?token=`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hostAllowed, originAllowed } from '../mcp/http.js';
import { problem, type ErrorReply } from './problems.js';

export interface SecurityOptions {
  /** Required as `Authorization: Bearer <key>` (or `?token=` on WebSocket upgrades) when set. */
  apiKey: string | undefined;
  /** Browser origins allowed; empty = loopback origins only. */
  allowedOrigins: readonly string[];
  /** The bind address: loopback binds refuse non-loopback Host headers. */
  bindHost: string;
  /** A paired session's token → its namespace and holder (undefined: unknown or expired). */
  sessions?: (token: string) => { namespace: string; holder: 'person' | 'agent' } | undefined;
}

/**
 * Paths anyone may call: liveness probes carry no key; the embed element is public code that
 * pages of other origins load as a module script (so with their Origin).
 */
export const OPEN_PATHS = new Set(['/health', '/actuator/health', '/actuator/info', '/embed/element.js']);

/**
 * Pages a person opens from a link, without the server's key: the share pages (they compute the
 * spec the link carries, nothing stored), the approve page and its expiry peek (the user code is
 * the secret), the sandbox page (its calls carry a session token) and the embed page
 * (docs/embedding.md). Host and Origin checks still apply.
 */
const KEYLESS_PATHS = new Set([
  '/sandbox',
  '/sandbox/approve',
  '/sandbox/pair/peek',
  // the embed page and its private spec copies (a stored model's card stays keyed)
  '/embed',
  '/embed/api/open',
]);
const KEYLESS_PREFIXES = ['/share/'];

const requestSessions = new WeakMap<FastifyRequest, { namespace: string; holder: 'person' | 'agent' }>();

/** The namespace of the paired session a request came with, if it came with one. */
export function sessionNamespace(request: FastifyRequest): string | undefined {
  return requestSessions.get(request)?.namespace;
}

/**
 * Who a write comes from, for the audit trail: the holder of the paired session it carries (the
 * person's browser or the agent), else a REST client holding the server's key.
 */
export function writeOrigin(request: FastifyRequest): 'person' | 'agent' | 'rest' {
  return requestSessions.get(request)?.holder ?? 'rest';
}

function presentedSession(request: FastifyRequest): string | undefined {
  const header = request.headers['x-session-token'];
  if (typeof header === 'string') return header;
  if (request.headers.upgrade?.toLowerCase() === 'websocket') {
    return new URL(request.url, 'http://localhost').searchParams.get('session') ?? undefined;
  }
  return undefined;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A URL with any `token` query value replaced, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|session)=)[^&#]*/gi, '$1[redacted]');
}

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    return m ? m[1] : undefined;
  }
  if (request.headers.upgrade?.toLowerCase() === 'websocket') {
    const token = new URL(request.url, 'http://localhost').searchParams.get('token');
    return token ?? undefined;
  }
  return undefined;
}

/** Why a request is refused, or undefined when it may proceed. */
export function refusal(request: FastifyRequest, options: SecurityOptions): ErrorReply | undefined {
  const path = request.url.split('?')[0] ?? '';
  if (OPEN_PATHS.has(path)) return undefined;
  if (!hostAllowed(request.headers.host, options.bindHost)) return problem(403, 'Forbidden host');
  if (!originAllowed(request.headers.origin, options.allowedOrigins)) return problem(403, 'Forbidden origin');
  const session = presentedSession(request);
  if (session !== undefined) {
    // a session token stands in for the key, limited to its namespace (see sandbox-routes.ts)
    const found = options.sessions?.(session);
    if (found === undefined) return problem(401, 'Unknown or expired session: pair again');
    requestSessions.set(request, found);
    return undefined;
  }
  if (KEYLESS_PATHS.has(path) || KEYLESS_PREFIXES.some((p) => path.startsWith(p))) return undefined;
  if (options.apiKey === undefined) return undefined;
  const key = presentedKey(request);
  if (key === undefined) return problem(401, 'Missing API key: send Authorization: Bearer <key>');
  if (!timingSafeEqual(digest(key), digest(options.apiKey))) return problem(401, 'Invalid API key');
  return undefined;
}

export function registerSecurity(app: FastifyInstance, options: SecurityOptions): void {
  app.addHook('onRequest', async (request, reply) => {
    const refused = refusal(request, options);
    if (!refused) return;
    if (refused.status === 401) void reply.header('www-authenticate', 'Bearer');
    await reply.code(refused.status).type(refused.contentType).send(refused.body);
  });
}
