/**
 * The Fastify app behind `modelworks serve`: the REST API of the calc models, WebSocket
 * subscriptions, the MCP server at /mcp, health, and the OpenAPI document generated from the
 * route schemas. Built without listening, so tests drive it with `app.inject`.
 */
import fastifyMultipart from '@fastify/multipart';
import fastifySwagger from '@fastify/swagger';
import fastifyWebsocket from '@fastify/websocket';
import type { Server } from '@modelcontextprotocol/server';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyHttpOptions,
  type FastifyServerOptions,
} from 'fastify';
import type { Server as HttpServer } from 'node:http';
import {
  CalcError,
  findUnsafeValue,
  FORBIDDEN_KEY,
  MAX_VALUE_DEPTH,
  publicMessage,
  schemaViolationError,
  unsafeValueViolation,
} from '../calc/index.js';
import type { CalcService } from '../service/calc-service.js';
import { MAX_BLOB_BYTES } from '../store/store.js';
import { readPackageVersion } from '../version.js';
import { registerBlobRoutes } from './blob-routes.js';
import { registerMcpRoute } from './mcp-route.js';
import { registerMetrics } from './metrics-route.js';
import { registerRateLimit, type RateLimitSettings, type TrustProxy } from './rate-limit.js';
import { ServerMetrics } from '../observability/metrics.js';
import { registerModelRoutes } from './model-routes.js';
import { registerSimulateRoutes } from './simulate-routes.js';
import { registerCompositionRoutes } from './composition-routes.js';
import { registerSolveRoutes } from './solve-routes.js';
import { registerGenerateRoutes } from './generate-routes.js';
import { SpecGenerator } from '../service/generate.js';
import { calcErrorReply, inputLimitReply, problem, type ErrorReply } from './problems.js';
import { registerSecurity } from './security.js';
import { answerRequestIds, fastifyRequestIds, loggerOptions, logLevelFrom } from '../observability/logger.js';
import { traceFastifyRequests } from '../observability/tracing.js';
import { registerSubscribeRoute, SUBSCRIBE_OPERATION } from './subscribe-route.js';
import { registerNamespaceGuard, registerSandboxRoutes } from './sandbox-routes.js';
import { registerShareRoutes } from './share-routes.js';
import { registerEmbedRoutes, type EmbedOrigins } from './embed-routes.js';
import {
  answerClientError,
  DISCARD_BODY_MS,
  discardRestOfBody,
  rememberInputLimits,
  MAX_JSON_BODY_BYTES,
  requestTimeoutsFromEnv,
  timeoutServerOptions,
  type RequestTimeouts,
} from './limits.js';
import {
  findInputLimitViolation,
  findJsonTextLimitViolation,
  InputLimitError,
  inputLimitsFromEnv,
  type InputLimits,
} from '../service/input-limits.js';
import { gateLimitsFromEnv } from '../service/work-gate.js';
import { SIMULATION_GATE_SETTINGS } from '../service/simulate/index.js';
import { FIT_GATE_SETTINGS } from '../service/fit-runner.js';
import type { PairingService } from '../service/pairing.js';
import type { CardRunner } from '../service/card-runner.js';

export { MAX_JSON_BODY_BYTES } from './limits.js';

export interface AppOptions {
  calc: CalcService;
  /** Builds the MCP server of one /mcp session; omit to serve no /mcp. */
  createMcpServer?: () => Server;
  /** An /mcp session unused this long is closed; default DEFAULT_SESSION_IDLE_SECONDS. */
  mcpSessionIdleMs?: number;
  apiKey?: string | undefined;
  allowedOrigins?: readonly string[];
  /** The address the server binds: a loopback bind refuses non-loopback Host headers. */
  bindHost?: string;
  /** Browser pairing and the sandbox (issue 10); omitted: no /sandbox routes, no session tokens. */
  sandbox?: { pairing: PairingService; sandboxHtml?: () => string };
  /**
   * Share links and the embed page (model cards outside any chat): the card runner answering
   * them; `embedOrigins` defaults to MODELWORKS_EMBED_ALLOWED_ORIGINS.
   */
  share?: { runner: CardRunner; embedOrigins?: EmbedOrigins };
  /** Request logging (JSON lines); none by default. */
  log?: { level: string; stream: NodeJS.WritableStream };
  /** Prometheus metrics at /metrics (issue 28); default a fresh registry, false for none. */
  metrics?: ServerMetrics | false;
  /** Per-client rate limit; none by default. */
  rateLimit?: RateLimitSettings;
  /** Fastify's trustProxy: whose X-Forwarded-For names the client (MODELWORKS_TRUST_PROXY). */
  trustProxy?: TrustProxy;
  /** How long a client may take to send headers and body; default from MODELWORKS_HTTP_*_TIMEOUT_SECONDS. */
  timeouts?: RequestTimeouts;
  /** Keys, write size and nesting of a body; default from MODELWORKS_MAX_BODY_* / _WRITE_KEYS. */
  inputLimits?: InputLimits;
  /** Spec generation (docs/generate.md); default: none configured (503, the preview still works). */
  generator?: SpecGenerator;
}

/** The routes whose body is one write: their outermost value's members count against maxWriteKeys. */
const WRITE_ROUTES = new Set(['/models/:id/mutations', '/models/:id/mutations/patch']);

function errorReplyFor(err: FastifyError): ErrorReply | undefined {
  if (err instanceof CalcError) return calcErrorReply(err);
  if (err instanceof InputLimitError) return inputLimitReply(err.violation);
  if (err.validation) return problem(400, `Invalid request: ${err.message}`, { code: 'BAD_REQUEST' });
  const framework = frameworkErrorReply(err);
  if (framework) return framework;
  if (err instanceof SyntaxError) return problem(400, 'Malformed or unreadable request body');
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return problem(status, publicMessage(err));
  return undefined;
}

/**
 * Fastify's own refusals (FST_ERR_…) in our words and with our codes; its messages and codes are
 * never passed on. Undefined for anything that is not one of them.
 */
function frameworkErrorReply(err: FastifyError): ErrorReply | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'The request body is over the size limit of this route', { code: 'TOO_LARGE' });
    case 'FST_REQ_FILE_TOO_LARGE':
      return problem(413, `Blob too large (limit ${MAX_BLOB_BYTES} bytes)`, { code: 'BLOB_TOO_LARGE' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(415, 'Unsupported media type: send application/json', {
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem(400, 'The request has a JSON content type but no body', { code: 'BAD_REQUEST' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem(400, 'Malformed or unreadable request body', { code: 'BAD_REQUEST' });
    case 'FST_ERR_BAD_URL':
      return problem(400, 'The request URL is malformed (a bad percent-escape?)', { code: 'BAD_REQUEST' });
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return problem(500, 'Internal server error', { code: 'INTERNAL' });
  }
  if (typeof err.code === 'string' && err.code.startsWith('FST_')) {
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return problem(status, 'The request could not be read');
    return problem(500, 'Internal server error', { code: 'INTERNAL' });
  }
  return undefined;
}

/** `\uXXXX` escapes of the characters of `__proto__`: the only way to spell the name without writing it. */
const ESCAPED_KEY_CHARACTER = new RegExp(
  `\\\\u(?:${[...new Set(FORBIDDEN_KEY)].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('|')})`,
  'i',
);

/** How deep brackets nest in a JSON text (brackets inside strings do not count). */
function bracketDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: on to its closing quote, stepping over escapes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Whether a JSON text parses to a value `findUnsafeValue` has nothing to refuse in: no key can be
 * `__proto__` (the name appears neither written out nor through `\u` escapes of its characters),
 * and no array or object sits deeper than MAX_VALUE_DEPTH (at most MAX_VALUE_DEPTH + 1 brackets
 * open at once). A few string scans instead of a walk over every node of the parsed value; false
 * when in doubt, and the walk decides.
 */
export function jsonTextIsSafe(text: string): boolean {
  if (text.includes(FORBIDDEN_KEY) || ESCAPED_KEY_CHARACTER.test(text)) return false;
  return text.length <= MAX_VALUE_DEPTH + 1 || bracketDepth(text) <= MAX_VALUE_DEPTH + 1;
}

/** Requests whose JSON body was counted against the input limits as text, before it was parsed. */
const scannedBodies = new WeakSet<FastifyRequest>();

/** Requests whose body was parsed from a JSON text `jsonTextIsSafe` cleared: the walk would find nothing. */
const clearedBodies = new WeakSet<FastifyRequest>();

/**
 * No body, query or route parameter may hold `__proto__` or nest without bound (checked before any
 * route runs). A JSON body cleared while it was still text is not walked again.
 */
async function refuseUnsafeInput(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  for (const [part, value] of [
    ['body', request.body],
    ['query', request.query],
    ['params', request.params],
  ] as const) {
    if (part === 'body' && clearedBodies.has(request)) continue;
    const unsafe = findUnsafeValue(value);
    if (!unsafe) continue;
    const out = calcErrorReply(schemaViolationError([unsafeValueViolation(part, unsafe)]));
    await reply.code(out.status).type(out.contentType).send(out.body);
    return;
  }
}

const routeTables = new WeakMap<FastifyInstance, { method: string; url: string }[]>();

/** Every route the app registered (method, URL pattern): the OpenAPI test compares the document with it. */
export function registeredRoutes(app: FastifyInstance): { method: string; url: string }[] {
  return routeTables.get(app) ?? [];
}

/**
 * The Fastify server settings of `buildApp` (logging, body limit, JSON parsing), exported so a
 * benchmark can run a bare route on exactly the same settings.
 */
export function serverOptions(
  log: AppOptions['log'],
  timeouts: RequestTimeouts = requestTimeoutsFromEnv(),
): FastifyHttpOptions<HttpServer> {
  // the servers' one logger settings: method and redacted URL only, no headers, no `?token=`
  const logger: FastifyServerOptions['logger'] = log
    ? { ...loggerOptions(logLevelFrom(log.level, {})), stream: log.stream }
    : false;
  return {
    logger,
    ...fastifyRequestIds,
    bodyLimit: MAX_JSON_BODY_BYTES,
    forceCloseConnections: true,
    // a slow sender is cut off (Node answers 408 and closes); event streams and WebSockets are
    // not affected: the limits end once the request has been received
    requestTimeout: timeouts.bodyMs,
    http: timeoutServerOptions(timeouts),
    // bodies parse as plain JSON; refuseUnsafeInput answers `__proto__` with a Schema violation naming
    // where it is, and `constructor`/`prototype` are ordinary keys (every walker reads own properties)
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // refusals before a request is read (too slow, not HTTP) and before routing (a malformed URL)
    // in our shape too
    clientErrorHandler: answerClientError,
    frameworkErrors: (err, _request, reply) => {
      const out = frameworkErrorReply(err) ?? problem(400, 'The request could not be read');
      void (reply as FastifyReply).code(out.status).type(out.contentType).send(out.body);
    },
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const apiKey = options.apiKey === '' ? undefined : options.apiKey;
  const app = Fastify({
    ...serverOptions(options.log, options.timeouts),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
  });
  traceFastifyRequests(app); // a span per request when tracing is on; before any route
  answerRequestIds(app);
  const routes: { method: string; url: string }[] = [];
  routeTables.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  // the load gates read their settings on first use: a bad value stops the server here instead
  gateLimitsFromEnv(SIMULATION_GATE_SETTINGS);
  gateLimitsFromEnv(FIT_GATE_SETTINGS);
  await registerPlugins(app, apiKey);
  registerJsonParsers(app, options.inputLimits ?? inputLimitsFromEnv());

  // metrics and rate limit (issue 28): ahead of the guards, so refused requests count too
  const metrics = options.metrics === undefined ? new ServerMetrics() : options.metrics;
  if (metrics) registerMetrics(app, metrics);
  if (options.rateLimit)
    registerRateLimit(app, options.rateLimit, (reply, detail) => {
      const out = problem(429, detail, { code: 'RATE_LIMITED' });
      return reply.code(out.status).type(out.contentType).send(out.body);
    });
  registerSecurity(app, {
    apiKey,
    allowedOrigins: options.allowedOrigins ?? [],
    bindHost: options.bindHost ?? '127.0.0.1',
    ...(options.sandbox ? { sessions: (t: string) => options.sandbox?.pairing.session(t) } : {}),
  });
  registerNamespaceGuard(app);
  registerErrorHandlers(app);
  registerHealthRoutes(app);
  registerApiRoutes(app, options, metrics, apiKey !== undefined);
  return app;
}

/** OpenAPI (with the bearer scheme when a key is set), WebSocket and multipart support. */
async function registerPlugins(app: FastifyInstance, apiKey: string | undefined): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Modelworks calc API',
        version: readPackageVersion(),
        description:
          'Live reactive models over HTTP. Send `Authorization: Bearer <key>` when the server has a key.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: apiKey ? [{ bearer: [] }] : [],
    },
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(fastifyMultipart);
}

/** Methods whose requests carry no body: an empty one under a JSON content type is no body. */
const BODILESS_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);

/**
 * JSON bodies (and RFC 6902 ones, which parse alike) go through Fastify's own parser; a text
 * jsonTextIsSafe clears spares its value the walk in refuseUnsafeInput.
 */
function registerJsonParsers(app: FastifyInstance, limits: InputLimits): void {
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  const parseAndClear: typeof parseJson = (request, text, done) => {
    // a DELETE (or GET) sent with a JSON content type by habit and no body has no body: not an error
    if (text === '' && BODILESS_METHODS.has(request.method)) return done(null, undefined);
    // keys, depth and a write's size counted on the text: a body over them is never parsed
    const over = findJsonTextLimitViolation(text, limits, {
      what: 'the request body',
      writeKeys: WRITE_ROUTES.has(request.routeOptions.url ?? ''),
    });
    if (over && request.routeOptions.url !== '/mcp') return done(new InputLimitError(over), undefined);
    void parseJson(request, text, (err, value) => {
      if (!err) scannedBodies.add(request);
      if (!err && jsonTextIsSafe(text)) clearedBodies.add(request);
      done(err, value);
    });
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseAndClear);
  app.addContentTypeParser('application/json-patch+json', { parseAs: 'string' }, parseAndClear);
  app.addHook('preValidation', refuseUnsafeInput);
  app.addHook('preValidation', async (request, reply) => {
    // /mcp answers in JSON-RPC: its tool calls are checked by the MCP server, with the same limits
    if (reply.sent || request.body === undefined || request.routeOptions.url === '/mcp') return;
    if (scannedBodies.has(request)) return; // its text was counted before it was parsed
    const over = findInputLimitViolation(request.body, limits, 'the request body');
    if (!over) return;
    const out = inputLimitReply(over);
    await reply.code(out.status).type(out.contentType).send(out.body);
  });
  rememberInputLimits(app, limits);
}

/** Errors become problem documents with their stable code; only unexpected ones are logged as errors. */
function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Fastify asks to close the connection: the client, still sending, would get a reset and
      // never read the 413. The rest of the body is read and dropped instead (for a bounded time).
      reply.removeHeader('connection');
      discardRestOfBody(request.raw, DISCARD_BODY_MS);
    }
    const mapped = errorReplyFor(err);
    if (!mapped) request.log.error({ err }, 'request failed');
    else if (mapped.status >= 500) request.log.error({ err }, 'request failed');
    const out = mapped ?? problem(500, 'Internal server error');
    // a BUSY refusal's hint, as the header clients and proxies know
    const retryAfter = out.body.retryAfterSeconds;
    if (out.status === 429 && typeof retryAfter === 'number')
      void reply.header('retry-after', String(retryAfter));
    return reply.code(out.status).type(out.contentType).send(out.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const out = problem(404, `No route ${request.method} ${request.url.split('?')[0] ?? ''}`, {
      code: 'NOT_FOUND',
    });
    return reply.code(404).type(out.contentType).send(out.body);
  });
}

function registerHealthRoutes(app: FastifyInstance): void {
  const health = { schema: { tags: ['health'], summary: 'Liveness (no key needed)' } };
  app.get('/health', health, () => ({ status: 'UP' }));
  app.get('/actuator/health', health, () => ({ status: 'UP' }));
  app.get('/actuator/info', { schema: { tags: ['health'], summary: 'Name and version' } }, () => ({
    name: 'modelworks',
    version: readPackageVersion(),
  }));
  app.get('/openapi.json', { schema: { hide: true } }, () => {
    const doc = app.swagger() as { paths?: Record<string, unknown> };
    return { ...doc, paths: { ...doc.paths, '/models/{id}/subscribe': { get: SUBSCRIBE_OPERATION } } };
  });
}

/** The models, simulations, blobs and subscriptions; MCP, the sandbox and share links when configured. */
function registerApiRoutes(
  app: FastifyInstance,
  options: AppOptions,
  metrics: ServerMetrics | false,
  keyed: boolean,
): void {
  registerModelRoutes(app, options.calc);
  registerSimulateRoutes(app, options.calc);
  registerCompositionRoutes(app, options.calc);
  registerSolveRoutes(app, options.calc);
  registerGenerateRoutes(app, options.calc, options.generator ?? new SpecGenerator(undefined, []));
  registerBlobRoutes(app, options.calc, keyed);
  registerSubscribeRoute(app, options.calc);
  if (options.createMcpServer) {
    const sessions = registerMcpRoute(app, options.createMcpServer, {
      ...(options.mcpSessionIdleMs !== undefined ? { idleMs: options.mcpSessionIdleMs } : {}),
    });
    if (metrics) metrics.watchMcpSessions(() => sessions.size);
  }
  if (metrics) metrics.watchSubscriptions(() => options.calc.subscriptionCount);
  if (options.sandbox)
    registerSandboxRoutes(app, {
      pairing: options.sandbox.pairing,
      ...(options.sandbox.sandboxHtml ? { sandboxHtml: options.sandbox.sandboxHtml } : {}),
    });
  if (options.share) {
    registerShareRoutes(app, { runner: options.share.runner });
    registerEmbedRoutes(app, {
      runner: options.share.runner,
      calc: options.calc,
      ...(options.share.embedOrigins ? { origins: options.share.embedOrigins } : {}),
    });
  }
}
