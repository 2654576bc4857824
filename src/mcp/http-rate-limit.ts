/**
 * The per-client rate limit of `mcp --http`, which runs on Node's own HTTP server where the
 * Fastify plugin of `serve` and `synth serve` cannot go: the same settings (src/http/rate-limit.ts)
 * and the same answer (429, Retry-After, X-RateLimit-* headers), counted by rate-limiter-flexible.
 * A client is its address, taken from X-Forwarded-For only through proxies MODELWORKS_TRUST_PROXY
 * trusts (@fastify/proxy-addr, as Fastify does). `mcp --http` takes no key, so there is no
 * credential to tell clients apart: MODELWORKS_RATE_LIMIT_KEY=credential counts by address here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitSettings, TrustProxy } from '../http/rate-limit.js';

/** Liveness probes are never refused: an orchestrator must not restart a busy server. */
const EXEMPT_PATHS = new Set(['/health']);

/** The JSON-RPC error code of a refused request (the server-error range the spec leaves open). */
export const RATE_LIMITED_RPC_CODE = -32029;

/** Says whether a request may go on; when not, it has answered it (429). */
export type RequestLimiter = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

function trustFunction(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (typeof trust === 'function') return trust;
  if (trust === true) return () => true;
  if (trust === false) return () => false;
  return proxyAddr.compile(trust.split(',').map((s) => s.trim()));
}

/** The client's address: the peer, or the address the trusted proxies forwarded. */
function clientAddress(req: IncomingMessage, trust: (address: string, hop: number) => boolean): string {
  const address = req.socket.remoteAddress === undefined ? 'unknown' : proxyAddr(req, trust);
  // an IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d: one client, one key
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

function setLimitHeaders(res: ServerResponse, settings: RateLimitSettings, state: RateLimiterRes): number {
  const resetSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  res.setHeader('x-ratelimit-limit', settings.max);
  res.setHeader('x-ratelimit-remaining', Math.max(0, state.remainingPoints));
  res.setHeader('x-ratelimit-reset', resetSeconds);
  return resetSeconds;
}

export function requestLimiter(settings: RateLimitSettings, trust: TrustProxy): RequestLimiter {
  const limiter = new RateLimiterMemory({ points: settings.max, duration: settings.windowSeconds });
  const trusted = trustFunction(trust);
  return async (req, res) => {
    if (EXEMPT_PATHS.has((req.url ?? '/').split('?')[0] ?? '')) return true;
    try {
      setLimitHeaders(res, settings, await limiter.consume(`ip:${clientAddress(req, trusted)}`));
      return true;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err; // the memory store does not fail; anything else is a bug
      const retryAfter = setLimitHeaders(res, settings, err);
      const message = `Too many requests: at most ${settings.max} per ${settings.windowSeconds} s from one client; retry in ${retryAfter} s`;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfter) }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: {
            code: RATE_LIMITED_RPC_CODE,
            message,
            data: { code: 'RATE_LIMITED', retryAfterSeconds: retryAfter },
          },
          id: null,
        }),
      );
      return false;
    }
  };
}
