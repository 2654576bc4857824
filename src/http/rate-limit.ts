/**
 * Optional per-client rate limiting for the Fastify servers (`serve`, `synth serve`), through
 * @fastify/rate-limit: at most `max` requests per client in each window, then 429 with
 * Retry-After. A client is its IP address (the proxy's forwarded one when MODELWORKS_TRUST_PROXY
 * trusts the proxy), or, with MODELWORKS_RATE_LIMIT_KEY=credential, the key or token it presents.
 * The library counts and keeps the windows (an LRU of clients); this module reads the settings,
 * picks the client key and answers a refusal in each server's own error shape.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const RATE_LIMIT_MAX_ENV = 'MODELWORKS_RATE_LIMIT_MAX';
export const RATE_LIMIT_WINDOW_ENV = 'MODELWORKS_RATE_LIMIT_WINDOW_SECONDS';
export const RATE_LIMIT_KEY_ENV = 'MODELWORKS_RATE_LIMIT_KEY';
export const TRUST_PROXY_ENV = 'MODELWORKS_TRUST_PROXY';
export const DEFAULT_RATE_LIMIT_WINDOW_SECONDS = 60;

export interface RateLimitSettings {
  /** Requests one client may make in a window. */
  max: number;
  windowSeconds: number;
  /** What tells clients apart: the IP address, or the credential presented (IP when none). */
  key: 'ip' | 'credential';
}

/** Liveness probes are never refused: an orchestrator must not restart a busy server. */
const EXEMPT_PATHS = new Set(['/health', '/actuator/health']);

/** Clients remembered at once (the library's LRU); a client pushed out starts a fresh window. */
const CLIENTS_KEPT = 10_000;

/** The rate-limit settings, or undefined when off (MODELWORKS_RATE_LIMIT_MAX unset or 0). */
export function rateLimitSettingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): RateLimitSettings | undefined {
  const maxText = env[RATE_LIMIT_MAX_ENV]?.trim();
  if (!maxText || maxText === '0') return undefined;
  const max = Number(maxText);
  if (!/^\d+$/.test(maxText) || !Number.isSafeInteger(max))
    throw new Error(`${RATE_LIMIT_MAX_ENV} must be a whole number of requests (got '${maxText}')`);
  const windowText = env[RATE_LIMIT_WINDOW_ENV]?.trim();
  const windowSeconds = windowText ? Number(windowText) : DEFAULT_RATE_LIMIT_WINDOW_SECONDS;
  if (!Number.isFinite(windowSeconds) || windowSeconds <= 0 || windowSeconds > 86_400)
    throw new Error(
      `${RATE_LIMIT_WINDOW_ENV} must be a number of seconds from 0 to 86400 (got '${windowText ?? ''}')`,
    );
  const keyText = env[RATE_LIMIT_KEY_ENV]?.trim() || 'ip';
  if (keyText !== 'ip' && keyText !== 'credential')
    throw new Error(`${RATE_LIMIT_KEY_ENV} must be ip or credential (got '${keyText}')`);
  return { max, windowSeconds, key: keyText };
}

/** Fastify's trustProxy setting (a hop count is given as the function Fastify would build). */
export type TrustProxy = boolean | string | ((address: string, hop: number) => boolean);

/** proxy-addr's names for address ranges, accepted in a trusted-proxy list. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Fastify's `trustProxy` from MODELWORKS_TRUST_PROXY: `true` (trust every hop: only when nothing
 * but the proxy can reach the server), a number of hops, or a comma-separated list of proxy
 * addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. Unset: false, the peer
 * address is the client and X-Forwarded-For is ignored. Throws on a malformed value.
 */
export function trustProxyFromEnv(env: NodeJS.ProcessEnv = process.env): TrustProxy {
  const text = env[TRUST_PROXY_ENV]?.trim();
  if (!text || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) {
    // hop 0 is the peer itself: trusting n hops reads n addresses back from it (as Fastify does)
    const hops = Number(text);
    return (_address, hop) => hop < hops;
  }
  const entries = text.split(',').map((s) => s.trim());
  const bad = entries.find((e) => !isAddressOrRange(e));
  if (bad !== undefined)
    throw new Error(
      `${TRUST_PROXY_ENV} must be true, a number of hops, or addresses and CIDR ranges separated by commas (got '${bad}')`,
    );
  return entries.join(',');
}

/** The bearer key, WebSocket `?token=` or paired-session token a request presents. */
function presentedCredential(request: FastifyRequest): string | undefined {
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && auth.trim() !== '') return auth.trim();
  const session = request.headers['x-session-token'];
  if (typeof session === 'string' && session !== '') return session;
  const query = request.url.indexOf('?');
  if (query < 0) return undefined;
  const params = new URLSearchParams(request.url.slice(query + 1));
  return params.get('token') ?? params.get('session') ?? undefined;
}

function clientKey(request: FastifyRequest, by: RateLimitSettings['key']): string {
  if (by === 'credential') {
    const credential = presentedCredential(request);
    // a digest: the limiter's memory never holds a key in the clear
    if (credential !== undefined)
      return `credential:${createHash('sha256').update(credential).digest('base64url')}`;
  }
  return `ip:${normalizeIP(request.ip)}`;
}

/** Answers a refused request in the server's own error shape (the headers are already set). */
export type RefuseReply = (reply: FastifyReply, message: string, retryAfterSeconds: number) => unknown;

/**
 * Limits every request of `app` except liveness probes. Registered before the server's guards,
 * so a client flooding the server with bad keys is limited too.
 */
export function registerRateLimit(
  app: FastifyInstance,
  settings: RateLimitSettings,
  refuse: RefuseReply,
): void {
  const windowMs = Math.round(settings.windowSeconds * 1000);
  void app.register(fastifyRateLimit, {
    global: false,
    max: settings.max,
    timeWindow: windowMs,
    cache: CLIENTS_KEPT,
    keyGenerator: (request) => clientKey(request, settings.key),
  });
  let check: ReturnType<FastifyInstance['createRateLimit']> | undefined;
  app.addHook('onRequest', async (request, reply) => {
    if (EXEMPT_PATHS.has(request.url.split('?')[0] ?? '')) return;
    // the plugin has loaded by the time requests arrive (they wait for ready)
    check ??= app.createRateLimit();
    const limit = await check(request);
    if (limit.isAllowed) return;
    void reply.header('x-ratelimit-limit', limit.max);
    void reply.header('x-ratelimit-remaining', limit.remaining);
    void reply.header('x-ratelimit-reset', limit.ttlInSeconds);
    if (!limit.isExceeded) return;
    const retryAfter = Math.max(1, limit.ttlInSeconds);
    void reply.header('retry-after', retryAfter);
    await refuse(
      reply,
      `Too many requests: at most ${settings.max} per ${settings.windowSeconds} s from one client; retry in ${retryAfter} s`,
      retryAfter,
    );
  });
}
