/**
 * The synth Service's HTTP API (Fastify 5) over one SynthService:
 *   GET    /v1/components[?name=|?category=]   component descriptors (as list_components)
 *   GET    /v1/allowlists                       the outside-access policy (as get_allowlists)
 *   POST   /v1/models                           register inline model text → {modelId: "m-…", …}
 *   GET    /v1/models, GET/DELETE /v1/models/{id}
 *   POST   /v1/generate                         {modelId, count, format?, seed?, previewLimit?} → g-…
 *   GET    /v1/generate/{id}                    a generation's metadata
 *   GET    /v1/generate/{id}/data?offset=&limit=&maxChars=   one page of rows
 *   DELETE /v1/generate/{id}
 *   GET    /health                              liveness (never needs the token)
 *   GET    /metrics                             Prometheus metrics (needs the token when one is set)
 * Every error is `{"error": {"code", "message", …}}` in our words (an unexpected failure is
 * INTERNAL, its detail only in the log); with a token configured, /v1 needs
 * `Authorization: Bearer <token>`. JSON bodies may not carry a `__proto__` key anywhere.
 */
import { timingSafeEqual } from 'node:crypto';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { findUnsafeValue, unsafeValueLocation, unsafeValueReason } from '../calc/index.js';
import { MAX_MODEL_TEXT_BYTES, SynthServiceError, type SynthService } from '../service/synth-service.js';
import { METRICS_PATH, registerMetrics } from '../http/metrics-route.js';
import { registerRateLimit, type RateLimitSettings, type TrustProxy } from '../http/rate-limit.js';
import { requestTimeoutsFromEnv, timeoutServerOptions, type RequestTimeouts } from '../http/limits.js';
import { ServerMetrics } from '../observability/metrics.js';
import { traceFastifyRequests } from '../observability/tracing.js';
import { answerRequestIds, fastifyRequestIds } from '../observability/logger.js';

/** Methods whose requests carry no body: an empty one under a JSON content type is no body. */
const BODILESS_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS']);
export interface SynthServiceAppOptions {
  service: SynthService;
  /** Bearer token every /v1 request must carry; none = open (bind to loopback then). */
  token?: string;
  /** Largest request body in bytes (model text plus JSON framing). */
  bodyLimit?: number;
  /** How long a client may take to send headers and body; default from the environment. */
  timeouts?: RequestTimeouts;
  /** Pino logger settings, or false. */
  logger?: boolean | Record<string, unknown>;
  /** Prometheus metrics at /metrics; default a fresh registry, false for none. */
  metrics?: ServerMetrics | false;
  /** Per-client rate limit; none by default. */
  rateLimit?: RateLimitSettings;
  /** Fastify's trustProxy: whose X-Forwarded-For names the client (MODELWORKS_TRUST_PROXY). */
  trustProxy?: TrustProxy;
}

/** Default and largest page budget (JSON-escaped characters of `data`). */
export const DEFAULT_PAGE_CHARS = 4 * 1024 * 1024;
export const MAX_PAGE_CHARS = 64 * 1024 * 1024;

function sendError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  extra = {},
): FastifyReply {
  return reply
    .code(status)
    .type('application/json')
    .send({ error: { code, message, ...extra } });
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim(), 'utf8');
  const expected = Buffer.from(token, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A query or body number: integers only, given as a number or a decimal string. */
function intParam(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n))
    throw new SynthServiceError(
      'BAD_REQUEST',
      `${name} must be a non-negative integer (got ${JSON.stringify(value)})`,
    );
  return n;
}

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new SynthServiceError('BAD_REQUEST', 'the request body must be a JSON object');
  return body as Record<string, unknown>;
};

/** Builds the app (not listening yet). */
export function buildSynthServiceApp(options: SynthServiceAppOptions): FastifyInstance {
  const { service, token } = options;
  const timeouts = options.timeouts ?? requestTimeoutsFromEnv();
  const app = Fastify({
    logger: options.logger ?? false,
    ...fastifyRequestIds,
    bodyLimit: options.bodyLimit ?? MAX_MODEL_TEXT_BYTES + 64 * 1024,
    // while closing, new requests get 503 and in-flight ones finish
    return503OnClosing: true,
    // a slow sender is cut off (MODELWORKS_HTTP_*_TIMEOUT_SECONDS, http/limits.ts)
    requestTimeout: timeouts.bodyMs,
    http: timeoutServerOptions(timeouts),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
  });
  traceFastifyRequests(app); // a span per request when tracing is on; before any route
  answerRequestIds(app);

  // JSON by our own parser: its errors are in our words, `__proto__` is refused naming where it
  // is, and `constructor` or `prototype` are ordinary keys.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // a DELETE (or GET) sent with a JSON content type by habit and no body has no body: not an error
    if (body === '' && BODILESS_METHODS.has(req.method)) {
      done(null, undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body as string);
    } catch {
      done(new SynthServiceError('BAD_REQUEST', 'the request body is not valid JSON'), undefined);
      return;
    }
    // the same rule as every other surface: no `__proto__` key, no unbounded nesting
    const unsafe = findUnsafeValue(parsed);
    if (unsafe) {
      const at = unsafeValueLocation(unsafe, '$');
      done(
        new SynthServiceError('BAD_REQUEST', `${at}: ${unsafeValueReason(unsafe)}`, { path: at }),
        undefined,
      );
    } else done(null, parsed);
  });

  // Model text may also be posted as is (text/plain, application/xml, …).
  app.addContentTypeParser(
    ['text/plain', 'application/xml', 'text/xml', 'application/octet-stream'],
    { parseAs: 'string' },
    (_req, body, done) => done(null, body),
  );

  // metrics and rate limit (issue 28): ahead of the token check, so refused requests count too
  const metrics = options.metrics === undefined ? new ServerMetrics() : options.metrics;
  if (metrics) {
    registerMetrics(app, metrics);
    metrics.watchSynth(() => service.stats);
  }
  if (options.rateLimit)
    registerRateLimit(app, options.rateLimit, (reply, message, retryAfterSeconds) =>
      sendError(reply, 429, 'RATE_LIMITED', message, { retryAfterSeconds }),
    );

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!token || !(req.url.startsWith('/v1/') || req.url.split('?')[0] === METRICS_PATH)) return;
    if (!tokenMatches(req.headers.authorization, token)) {
      const why = req.headers.authorization ? 'wrong token' : 'missing bearer token';
      await sendError(reply, 401, 'UNAUTHORIZED', `${why}: send Authorization: Bearer <token>`);
    }
  });

  app.setErrorHandler((err: FastifyError | SynthServiceError, _req, reply) => {
    if (err instanceof SynthServiceError) {
      if (err.code === 'INTERNAL') app.log.error(err);
      return sendError(reply, err.status, err.code, err.message, err.details);
    }
    const fe = err;
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return sendError(
        reply,
        413,
        'TOO_LARGE',
        `the request body passes the limit of ${app.initialConfig.bodyLimit} bytes`,
      );
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return sendError(
        reply,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'send application/json or model text as text/plain',
      );
    // Fastify's own refusals (FST_ERR_…) are in its words; anything else is not passed on
    if (fe.statusCode !== undefined && fe.statusCode >= 400 && fe.statusCode < 500)
      return sendError(
        reply,
        fe.statusCode,
        'BAD_REQUEST',
        typeof fe.code === 'string' && fe.code.startsWith('FST_') ? fe.message : 'the request is malformed',
      );
    app.log.error(err);
    return sendError(reply, 500, 'INTERNAL', 'internal error');
  });

  app.setNotFoundHandler((req, reply) =>
    sendError(reply, 404, 'NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`),
  );

  app.get('/health', () => ({ status: 'ok', queueDepth: service.queueDepth }));

  app.get('/v1/components', (req) => {
    const q = req.query as Record<string, string | undefined>;
    return service.components({ name: q.name, category: q.category });
  });

  app.get('/v1/allowlists', () => service.allowlistReport());

  app.post('/v1/models', async (req, reply) => {
    const text = typeof req.body === 'string' ? req.body : objectBody(req.body).modelText;
    return reply.code(201).send(await service.registerModel(text));
  });
  app.get('/v1/models', () => ({ models: service.listModels() }));
  app.get('/v1/models/:id', (req) => service.getModel((req.params as { id: string }).id));
  app.delete('/v1/models/:id', async (req, reply) => {
    service.deleteModel((req.params as { id: string }).id);
    return reply.code(204).send();
  });

  app.post('/v1/generate', async (req) => {
    const body = objectBody(req.body);
    if (typeof body.modelId !== 'string')
      throw new SynthServiceError('BAD_REQUEST', 'modelId (from POST /v1/models) is required');
    // a client that goes away cancels its queued or running generation
    const abort = new AbortController();
    const onClose = (): void => {
      if (!req.raw.complete || req.raw.destroyed) abort.abort();
    };
    req.raw.socket.once('close', onClose);
    try {
      return await service.generate(
        body.modelId,
        { count: body.count, format: body.format, seed: body.seed, previewLimit: body.previewLimit },
        abort.signal,
      );
    } finally {
      req.raw.socket.off('close', onClose);
    }
  });
  app.get('/v1/generate/:id', (req) => service.generationInfo((req.params as { id: string }).id));
  app.get('/v1/generate/:id/data', (req) => {
    const q = req.query as Record<string, string | undefined>;
    const maxChars = intParam(q.maxChars, 'maxChars') ?? DEFAULT_PAGE_CHARS;
    if (maxChars < 1 || maxChars > MAX_PAGE_CHARS)
      throw new SynthServiceError('BAD_REQUEST', `maxChars must be from 1 to ${MAX_PAGE_CHARS}`);
    return service.readGeneration((req.params as { id: string }).id, {
      offset: intParam(q.offset, 'offset'),
      limit: intParam(q.limit, 'limit'),
      maxChars,
    });
  });
  app.delete('/v1/generate/:id', async (req, reply) => {
    service.deleteGeneration((req.params as { id: string }).id);
    return reply.code(204).send();
  });

  return app;
}
