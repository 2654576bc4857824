/**
 * OpenTelemetry tracing, off by default. The standard exporter settings turn it on:
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (OTLP over HTTP), or
 * OTEL_TRACES_EXPORTER=otlp|console; OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true keep it
 * off. The API, SDK and exporter are imported only when it is on, so no command pays for them at
 * start (the API alone is 44 modules, loaded before `modelworks mcp` could answer `initialize`).
 *
 * Spans: one per HTTP request (`traceFastifyRequests`, `traceHttpRequest`), with children the
 * adapters open around the work they hand on (`inSpan`): the calc cycle and its phases, the store
 * commit, a synth generation. The engines never import this module. While tracing is off every
 * helper calls straight through: no span objects, no context switches.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { commonJs } from '../commonjs.js';
import { readPackageVersion } from '../version.js';

const TRACER_NAME = 'modelworks';
/** The attribute carrying a server's request id (the one in its log lines). */
export const REQUEST_ID_ATTRIBUTE = 'modelworks.request_id';

/** Whether this process registered a tracer provider (startTracing) that is still running. */
let enabled = false;
/** The OpenTelemetry API, loaded by startTracing: every use below is behind `enabled`. */
let otel: typeof OtelApi | undefined;
const api = (): typeof OtelApi => {
  if (otel === undefined) throw new Error('tracing is not started');
  return otel;
};

export const tracingEnabled = (): boolean => enabled;

export type TraceExporterName = 'otlp' | 'console';

/**
 * The exporters the environment asks for; empty when tracing stays off.
 * @throws Error naming the setting when it asks for an exporter or protocol we do not ship
 */
export function traceExportersFromEnv(env: NodeJS.ProcessEnv = process.env): TraceExporterName[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const listed = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (listed.includes('none')) return [];
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const wanted = listed.length > 0 ? listed : endpoint ? ['otlp'] : [];
  const out: TraceExporterName[] = [];
  for (const name of wanted) {
    if (name !== 'otlp' && name !== 'console')
      throw new Error(`OTEL_TRACES_EXPORTER: '${name}' is not supported (otlp, console or none)`);
    if (!out.includes(name)) out.push(name);
  }
  if (out.includes('otlp')) {
    const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
    // the exporter we ship speaks OTLP over HTTP; a gRPC collector port would just see garbage
    if (protocol !== '' && protocol !== 'http/json' && protocol !== 'http/protobuf')
      throw new Error(
        `OTEL_EXPORTER_OTLP_PROTOCOL: '${protocol}' is not supported (OTLP over HTTP: http/json)`,
      );
  }
  return out;
}

export interface Tracing {
  /** Flushes the spans still buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  env?: NodeJS.ProcessEnv;
  /** Span processors to use instead of the environment's exporters (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
  /** stdout carries protocol messages (MCP over stdio): the console exporter, which prints there, is refused. */
  protocolOnStdout?: boolean;
}

/**
 * Registers the global tracer provider when the environment (or `spanProcessors`) asks for
 * tracing; resolves to undefined, having loaded nothing, when it does not.
 * @throws Error when the environment names an exporter or protocol we do not ship
 */
export async function startTracing(options: TracingOptions = {}): Promise<Tracing | undefined> {
  const exporters = options.spanProcessors ? [] : traceExportersFromEnv(options.env ?? process.env);
  if (!options.spanProcessors && exporters.length === 0) return undefined;
  if (options.protocolOnStdout && exporters.includes('console'))
    throw new Error(
      'OTEL_TRACES_EXPORTER=console prints spans on stdout, which MCP over stdio keeps for protocol messages; use otlp',
    );
  otel = await import('@opentelemetry/api');
  // CommonJS packages: commonJs() reads their exports alike in the bundle and unbundled
  const sdk = commonJs(await import('@opentelemetry/sdk-trace-node'));
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = commonJs(
    await import('@opentelemetry/resources'),
  );
  const processors = options.spanProcessors ?? [];
  for (const name of exporters) {
    if (name === 'console') processors.push(new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter()));
    else {
      // endpoint, headers, timeout and compression come from the OTEL_EXPORTER_OTLP_* settings
      const { OTLPTraceExporter } = commonJs(await import('@opentelemetry/exporter-trace-otlp-http'));
      processors.push(new sdk.BatchSpanProcessor(new OTLPTraceExporter()));
    }
  }
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over our defaults
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'modelworks', 'service.version': readPackageVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register();
  enabled = true;
  return {
    async shutdown() {
      enabled = false;
      await provider.shutdown();
      api().trace.disable();
      api().context.disable();
      api().propagation.disable();
    },
  };
}

const tracer = () => api().trace.getTracer(TRACER_NAME);

function endWithError(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({
    code: api().SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message : String(err),
  });
}

/**
 * Runs `fn` inside a child span of the active one. With tracing off it returns `fn()` itself: no
 * wrapper promise, whose extra ticks would change how racing writers interleave.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  return tracer().startActiveSpan(name, { attributes }, (span) =>
    fn().then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        endWithError(span, err);
        span.end();
        throw err;
      },
    ),
  );
}

/**
 * Spans for the phases of one piece of work a pure engine runs: the engine calls `phase(name)` as
 * each phase begins (it knows nothing of spans), each span ends when the next begins or at `end`.
 * Undefined with tracing off, so the engine gets no callback at all.
 */
export function phaseSpans(prefix: string): { phase: (name: string) => void; end: () => void } | undefined {
  if (!enabled) return undefined;
  const parent = api().context.active();
  let current: Span | undefined;
  return {
    phase(name) {
      current?.end();
      current = tracer().startSpan(`${prefix}.${name}`, {}, parent);
    },
    end() {
      current?.end();
      current = undefined;
    },
  };
}

/** Sets attributes on the active span (a request's model id, a generation's row count). */
export function annotateSpan(attributes: Attributes): void {
  if (enabled) api().trace.getActiveSpan()?.setAttributes(attributes);
}

/** Starts a request's span, a child of the caller's when the request carries `traceparent`. */
function startRequestSpan(
  req: IncomingMessage,
  route: string | undefined,
  requestId: string,
): { span: Span; ctx: Context } {
  const { context, propagation, trace, SpanKind } = api();
  const parent = propagation.extract(context.active(), req.headers);
  const method = req.method ?? 'GET';
  const span = tracer().startSpan(
    route ? `${method} ${route}` : method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        // the path only: a query may carry a token
        'url.path': (req.url ?? '/').split('?')[0],
        ...(route ? { 'http.route': route } : {}),
        [REQUEST_ID_ATTRIBUTE]: requestId,
      },
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/** Ends a request's span once its response is done (finished, or the connection closed). */
function endOnClose(span: Span, res: ServerResponse): void {
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: api().SpanStatusCode.ERROR });
    span.end();
  });
}

/** The request contexts of a Fastify app, set in onRequest and entered around the route handler. */
const requestContexts = new WeakMap<FastifyRequest, Context>();

/**
 * One span per request of a Fastify app, active while its route handler runs (so the spans the
 * service opens are its children). Call before any route is registered; a no-op with tracing off.
 */
export function traceFastifyRequests(app: FastifyInstance): void {
  if (!enabled) return;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const { span, ctx } = startRequestSpan(request.raw, request.routeOptions.url, request.id);
    requestContexts.set(request, ctx);
    endOnClose(span, reply.raw);
    done();
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    const traced: RouteHandlerMethod = function (this: FastifyInstance, request, reply) {
      const ctx = requestContexts.get(request);
      return ctx
        ? api().context.with(ctx, handler, this, request, reply)
        : handler.call(this, request, reply);
    };
    route.handler = traced;
  });
}

/** Runs a node:http request's handling inside its span (`mcp --http`); with tracing off, just runs it. */
export function traceHttpRequest<T>(
  req: IncomingMessage,
  res: ServerResponse,
  route: string | undefined,
  requestId: string,
  fn: () => T,
): T {
  if (!enabled) return fn();
  const { span, ctx } = startRequestSpan(req, route, requestId);
  endOnClose(span, res);
  return api().context.with(ctx, fn);
}
