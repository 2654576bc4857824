/**
 * The one structured logger of every server (`serve`, `mcp` over stdio or HTTP, `synth serve`):
 * pino JSON lines on stderr, at the level `--log-level` or MODELWORKS_LOG_LEVEL sets (default
 * warn). stdout stays the protocol's (MCP over stdio) or the command's own. Secrets stay out: a
 * request is logged as its method and a URL whose `token`/`session` query values are redacted,
 * never its headers, and an `authorization` or `token` field anywhere near the top is censored.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

import type { FastifyInstance } from 'fastify';
export type { Logger } from 'pino';

import type { LogLevel } from './log-level.js';
export { DEFAULT_LOG_LEVEL, LOG_LEVEL_ENV, LOG_LEVELS, logLevelFrom, type LogLevel } from './log-level.js';

/** A URL with the values of `token` and `session` query parameters replaced: they are credentials. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|session)=)[^&#]*/gi, '$1[redacted]');
}

/** Request ids of the servers that are not Fastify (MCP over node:http): set per request. */
const requestIds = new AsyncLocalStorage<string>();

/** A fresh request id. */
export const newRequestId = (): string => randomUUID();

/** The header a request id travels in, both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What a caller's own request id may look like; anything else is replaced, never logged. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id of a request: the one a proxy or client sent in X-Request-Id when it is a plain token,
 * so a request can be followed across services, else a fresh one. Every server answers with it.
 */
export function requestIdOf(headers: Record<string, string | string[] | undefined>): string {
  const sent = headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && CALLER_REQUEST_ID.test(sent) ? sent : newRequestId();
}

/** Fastify's request-id settings for every Fastify server (with `answerRequestIds`). */
export const fastifyRequestIds = {
  requestIdHeader: false as const,
  genReqId: (req: { headers: Record<string, string | string[] | undefined> }): string =>
    requestIdOf(req.headers),
};

/** Every answer of `app` carries its request's id (X-Request-Id), as on its log lines. */
export function answerRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/** Runs `fn` with `reqId` on every line logged inside it, however deep (a service's own log). */
export function withRequestId<T>(reqId: string, fn: () => T): T {
  return requestIds.run(reqId, fn);
}

/** The pino settings of every server's logger (Fastify's included). */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    name: 'modelworks',
    // method and redacted URL only: no headers (Authorization) and no `?token=` reach a log line
    serializers: {
      req: (req: { method?: string; url?: string }) => ({
        method: req.method,
        url: redactUrl(req.url ?? ''),
      }),
    },
    redact: {
      paths: ['authorization', 'token', '*.authorization', '*.token', 'headers.authorization'],
      censor: '[redacted]',
    },
    mixin: () => {
      const reqId = requestIds.getStore();
      return reqId === undefined ? {} : { reqId };
    },
  };
}

export interface LoggerSettings {
  level: LogLevel;
  /** Where lines go: stderr by default (fd 2); tests pass a stream. */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/** The logger of one server process. */
export function createLogger(settings: LoggerSettings): Logger {
  // synchronous writes to fd 2: a line written just before the process exits is not lost
  const destination = settings.destination ?? pino.destination({ dest: 2, sync: true });
  return pino(loggerOptions(settings.level), destination);
}

/** A `(message) => void` for the services that take one (their messages are warnings or worse). */
export const warnings =
  (logger: Logger) =>
  (message: string): void => {
    logger.warn(message);
  };
