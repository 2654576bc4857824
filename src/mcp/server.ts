/**
 * One MCP server on the official SDK's low-level Server (v2): tools listed with our own JSON Schemas,
 * results shaped by results.ts, resources with state subscriptions, logging with a readiness line.
 */
import { Server, ProtocolError } from '@modelcontextprotocol/server';
import type { CallToolRequest, Transport, ServerContext } from '@modelcontextprotocol/server';
import type { CalcModelApi, Unsubscribe } from '../service/calc-api.js';
import { readPackageVersion } from '../version.js';
import type { ResourceProvider } from './resource-provider.js';
import { clientCapabilitiesOf } from './client-capabilities.js';
import { conformanceFixturesFromEnv } from './conformance-env.js';
import type { McpServerBase, McpServerOptions, McpServices } from './server-options.js';
import type { ToolResult } from './results.js';
import type * as ToolCatalogModule from './tool-catalog.js';
import type { ToolSet } from './tool-catalog.js';
import { stateModelId } from './state-uri.js';
import type { ToolContext } from './tool.js';
import { roundStateCodec, withSamplingRounds } from './input-required.js';
import {
  clientTakesTasks,
  processTasks,
  registerTaskHandlers,
  TASK_TOOLS,
  TASKS_EXTENSION,
} from './tasks.js';
import { randomUUID } from 'node:crypto';
import { inSpan } from '../observability/tracing.js';
import { inputLimitsFromEnv, type InputLimits } from '../service/input-limits.js';

export { clientCapabilitiesOf } from './client-capabilities.js';
export type { McpServerBase, McpServerOptions, McpServices } from './server-options.js';

/**
 * The tool modules, the engines and services behind them, and the argument checks: loaded once per
 * process, on the first tools/list or tools/call or right after a client's `initialized`, so that
 * `initialize` is answered without them (issue 45; docs/calc-engine.md, "MCP start").
 */
let catalog: Promise<typeof ToolCatalogModule> | undefined;
const loadCatalog = (): Promise<typeof ToolCatalogModule> => (catalog ??= import('./tool-catalog.js'));

/** The card resource's module (it reads the card's HTML): loaded by the first resources call. */
const cardModule = () => import('./card-tools.js');
/** The calc resources (guides, schemas, examples, state): likewise. */
const resourceModule = () => import('./resources.js');

/** JSON-RPC error for an unknown resource (what MCP clients expect). */
export const RESOURCE_NOT_FOUND = -32002;

const INSTRUCTIONS = `Modelworks hosts live reactive models. Typical flow: read valem://guide/model-spec-format and call get_domain_guidance for your topic; draft a ModelSpec; validate_spec and test_spec until clean; create_model; then mutate with {"$.path": value} writes and read results with get_state (use paths/depth to keep results small) or get_field. explain shows how a value was computed. Use snapshot before evolve_spec; get_audit/verify_audit give the tamper-evident trail. Addresses are canonical JSON Paths ($.a.b[0].c); expressions are plain JSONata.`;

/** What the SDK's ProtocolError may put in front of its message; a client puts it there again on receipt. */
const SDK_ERROR_PREFIX = /^MCP error -?\d+: /;

/** The first protocol revision of the stateless era (per-request `_meta`, no initialize). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** True for a revision of the stateless era (revisions are dates, so they compare as text). */
export const isModernRevision = (version: string | undefined): boolean =>
  version !== undefined && version >= MODERN_PROTOCOL_VERSION;

/**
 * The `data` of every resource-not-found error we throw. The v2 SDK sends -32002 as -32602 in
 * every era (2026-07-28 names -32602); the seed's clients (2024-11-05 … 2025-11-25) were promised
 * -32002, so a response carrying one of these objects goes back to -32002 outside the modern era.
 */
const resourceNotFoundData = new WeakSet<object>();

/**
 * Error responses leave with their message alone (an SDK error's "MCP error <code>: " prefix would
 * be added once more by the client), and with the code the client's protocol era promises.
 */
function plainErrorMessages(transport: Transport, server: Server): Transport {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!('error' in message)) return send(message, options);
    let error = message.error;
    if (SDK_ERROR_PREFIX.test(error.message))
      error = { ...error, message: error.message.replace(SDK_ERROR_PREFIX, '') };
    const data: unknown = error.data;
    if (
      typeof data === 'object' &&
      data !== null &&
      resourceNotFoundData.has(data) &&
      !isModernRevision(server.getNegotiatedProtocolVersion())
    )
      error = { ...error, code: RESOURCE_NOT_FOUND };
    return error === message.error ? send(message, options) : send({ ...message, error }, options);
  };
  return transport;
}

/**
 * 2026-07-28 lists are cacheable. Ours do not change while a process runs, but the tools and
 * resources listed depend on the client's capabilities (cards or not), so a client may keep its own
 * copy a while and a shared cache none. (Earlier revisions never carry these fields.)
 */
export const LIST_CACHE_HINTS = {
  'tools/list': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 300_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 300_000, cacheScope: 'private' },
} as const;

/** Whether the server answers a 2026-07-28 client (per request over HTTP, per connection over stdio). */
const isModern = (server: Server): boolean => isModernRevision(server.getNegotiatedProtocolVersion());

/** Builds a server for one connection; all connections share the service. */
export function createMcpServer(options: McpServerOptions): Server {
  const { calc, guidanceTopics, extraTools, extraResources, modeLine, cards, generator, sampling, ...base } =
    options;
  const services: McpServices = {
    calc,
    guidanceTopics,
    extraTools,
    extraResources,
    modeLine,
    cards,
    generator,
    sampling,
  };
  return createDeferredMcpServer(base, Promise.resolve(services));
}

/**
 * A server that answers `initialize` from `options` alone and works with `services` once they
 * are there: tools, resources and the readiness line wait for them (issue 45, the stdio start).
 */
export function createDeferredMcpServer(options: McpServerBase, services: Promise<McpServices>): Server {
  // a failed start is the caller's to report (it stops the process); handlers see the rejection
  services.catch(() => {});
  const server = new Server(
    { name: 'modelworks', title: 'Modelworks', version: readPackageVersion() },
    {
      capabilities: {
        tools: {},
        resources: { subscribe: true },
        logging: {},
        // the Tasks extension is a 2026-07-28 one; the seed's revisions keep their capabilities
        ...(options.era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
      cacheHints: LIST_CACHE_HINTS,
      // a multi-round trip's state comes back from the client: only ours (signed here) is read
      requestState: { verify: (state, ctx) => roundStateCodec.verify(state, ctx) },
      instructions: [options.groups.has('calc') ? INSTRUCTIONS : '', options.extraInstructions ?? '']
        .filter(Boolean)
        .join('\n\n'),
    },
  );
  const connect = server.connect.bind(server);
  server.connect = (transport) => connect(plainErrorMessages(transport, server));
  // the settings are read (and a bad one refused) now, the tools built when first needed
  const conformanceFixtures = options.conformanceFixtures ?? conformanceFixturesFromEnv();
  let toolSets: Promise<(ctx?: ServerContext) => ToolSet> | undefined;
  const currentTools = async (ctx?: ServerContext): Promise<ToolSet> =>
    (
      await (toolSets ??= Promise.all([loadCatalog(), services]).then(([c, s]) =>
        c.toolSetsFor(server, { ...options, ...s, conformanceFixtures }),
      ))
    )(ctx);
  registerToolHandlers(server, currentTools, options.inputLimits ?? inputLimitsFromEnv(), services);
  if (options.era === 'modern') registerTaskHandlers(server);
  registerResources(server, options.groups.has('calc'), services);
  const announce = readinessAnnouncer(server, services, currentTools);
  readinessAnnouncers.set(server, announce);
  server.oninitialized = () => {
    // A session transport (Streamable HTTP) can push a notification only on the client's GET event
    // stream, which opens after `initialized`; http.ts calls announceReady when it does.
    if (server.transport?.sessionId === undefined) announce();
  };
  return server;
}

/** tools/list and tools/call: arguments checked (prototype keys, depth, schema) before a tool runs. */
function registerToolHandlers(
  server: Server,
  currentTools: (ctx?: ServerContext) => Promise<ToolSet>,
  limits: InputLimits,
  services: Promise<McpServices>,
): void {
  server.setRequestHandler('tools/list', async (_request, ctx) => ({
    tools: (await currentTools(ctx)).list.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
      annotations: { title: t.title, ...t.annotations },
      ...(t._meta ? { _meta: t._meta } : {}),
    })),
  }));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const [{ errorResult, refusedArguments, textError }, tools, { sampling }] = await Promise.all([
      loadCatalog(),
      currentTools(ctx),
      services,
    ]);
    const tool = tools.byName.get(request.params.name);
    if (!tool) return textError(`Unknown tool: '${request.params.name}'`);
    const args = request.params.arguments ?? {};
    const refused = refusedArguments(tool, args, limits);
    if (refused) return refused;
    try {
      // one span per call: under the HTTP request's span, or the root of its trace over stdio
      // (named as OpenTelemetry's MCP conventions name it: method, then tool)
      const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool.name };
      const call = () =>
        inSpan(`tools/call ${tool.name}`, attributes, () =>
          tool.run(args, callContext(server, request, ctx)),
        );
      // 2026-07-28 with the Tasks extension: a long operation answers a task handle at once
      if (
        TASK_TOOLS.has(tool.name) &&
        isModern(server) &&
        clientTakesTasks(clientCapabilitiesOf(server, ctx))
      )
        return processTasks.start(async ({ signal, progress }) => {
          const result = await inSpan(`tools/call ${tool.name}`, attributes, () =>
            tool.run(args, { ...callContext(server, request, ctx), signal, progress }),
          ).catch((err: unknown) => errorResult(err));
          if ('resultType' in result)
            throw new Error(`${tool.name} asked for input, which its task cannot carry`);
          return result;
        }) as unknown as ToolResult;
      // 2026-07-28: an llm effect's completion rides on the next call of a client that samples
      return sampling && isModern(server) && clientCapabilitiesOf(server, ctx)?.sampling
        ? await withSamplingRounds(sampling, ctx, call)
        : await call();
    } catch (err) {
      return errorResult(err);
    }
  });
}

/** Logs "ready" once per session, with the mode and the tool count. */
function readinessAnnouncer(
  server: Server,
  services: Promise<McpServices>,
  currentTools: (ctx?: ServerContext) => Promise<ToolSet>,
): () => void {
  let announced = false;
  return (): void => {
    if (announced) return;
    announced = true;
    // the count needs the tools: this also starts loading them, before the client asks for the list
    // levels are per session (logging/setLevel stores them under the session id)
    void Promise.all([currentTools(), services])
      .then(([tools, { modeLine }]) =>
        server.sendLoggingMessage(
          {
            level: 'info',
            logger: 'modelworks',
            data: `modelworks ready: ${modeLine}; ${tools.list.length} tools`,
          },
          server.transport?.sessionId,
        ),
      )
      .catch(() => {});
  };
}

const readinessAnnouncers = new WeakMap<Server, () => void>();

/** What a tool may do while it runs: report progress, hand the person a link (URL elicitation). */
function callContext(server: Server, request: CallToolRequest, extra: ServerContext): ToolContext {
  const token = request.params._meta?.progressToken;
  const ctx: ToolContext = { signal: extra.mcpReq.signal };
  if (extra.http?.closeSSE) ctx.closeStream = extra.http?.closeSSE;
  ctx.log = (level, data) => {
    // 2026-07-28: the request's own `_meta` log level decides (none: nothing is sent)
    if (isModern(server)) return void extra.mcpReq.log(level, data, 'modelworks').catch(() => {});
    // the server drops what is below the session's level (logging/setLevel)
    void server
      .sendLoggingMessage({ level, logger: 'modelworks', data }, server.transport?.sessionId)
      .catch(() => {});
  };
  if (token !== undefined)
    ctx.progress = (progress, total, message) => {
      void extra.mcpReq
        .notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), message },
        })
        .catch(() => {});
    };
  if (isModern(server))
    ctx.inBand = {
      urlElicitation: clientCapabilitiesOf(server, extra)?.elicitation?.url !== undefined,
      responses: extra.mcpReq.inputResponses ?? {},
    };
  else if (server.getClientCapabilities()?.elicitation?.url)
    ctx.elicitUrl = (url, message) => {
      const elicitationId = randomUUID();
      // the answer (accept / decline) changes nothing here: pairing completes in the browser
      void server.elicitInput({ mode: 'url', elicitationId, url, message }).catch(() => {});
      const complete = server.createElicitationCompletionNotifier(elicitationId);
      return () => void complete().catch(() => {});
    };
  return ctx;
}

/** Sends the one-line readiness log of a server's session, unless it has gone out already. */
export function announceReady(server: Server): void {
  readinessAnnouncers.get(server)?.();
}

/** Per server: starts watching a resource for changes, or answers undefined for one that never changes. */
const resourceWatchers = new WeakMap<
  Server,
  (uri: string, onChange: () => void) => Unsubscribe | undefined
>();

/**
 * Calls `onChange` after every committed change of the resource at `uri` (a model's
 * `valem://state/{id}`), until the returned function is called; undefined for anything else. The
 * 2026-07-28 listen streams use it: the serving entry delivers, this says when.
 */
export function watchResource(server: Server, uri: string, onChange: () => void): Unsubscribe | undefined {
  return resourceWatchers.get(server)?.(uri, onChange);
}

/** The calc operations the resources use (none without the calc group) and the extra providers. */
async function resourceServices(
  withCalc: boolean,
  services: Promise<McpServices>,
): Promise<{ calc: CalcModelApi | undefined; extra: ResourceProvider[] }> {
  const s = await services;
  return { calc: withCalc ? s.calc : undefined, extra: s.extraResources ?? [] };
}

function registerResources(server: Server, withCalc: boolean, services: Promise<McpServices>): void {
  const subscriptions = new Map<string, () => void>();
  let started: McpServices | undefined;
  void services.then((s) => (started = s)).catch(() => {});
  resourceWatchers.set(server, (uri, onChange) => {
    const id = stateModelId(uri);
    if (!withCalc || id === undefined) return undefined;
    if (started) return started.calc.subscribe(id, onChange);
    // asked before the services are built (a listen right after the start): watch once they are
    let off: Unsubscribe | undefined;
    let stopped = false;
    // a failed start stops the process (its caller reports it): nothing to watch then
    services.then(
      (s) => {
        if (!stopped) off = s.calc.subscribe(id, onChange);
      },
      () => {},
    );
    return () => {
      stopped = true;
      off?.();
    };
  });
  server.setRequestHandler('resources/list', async (_request, ctx) => {
    const [{ STATIC_RESOURCES }, { CARD_RESOURCE, clientShowsCards }, { calc, extra }] = await Promise.all([
      resourceModule(),
      cardModule(),
      resourceServices(withCalc, services),
    ]);
    return {
      resources: [
        ...(calc ? STATIC_RESOURCES : []),
        ...(calc && clientShowsCards(clientCapabilitiesOf(server, ctx)) ? [CARD_RESOURCE] : []),
        ...extra.flatMap((p) => p.resources),
      ],
    };
  });
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: withCalc ? (await resourceModule()).RESOURCE_TEMPLATES : [],
  }));
  server.setRequestHandler('resources/read', async (request) => {
    const [{ readResource }, { CARD_URI, readCardResource }, { calc, extra }] = await Promise.all([
      resourceModule(),
      cardModule(),
      resourceServices(withCalc, services),
    ]);
    if (calc && request.params.uri === CARD_URI) return { contents: [readCardResource()] };
    const content =
      extra.map((p) => p.read(request.params.uri)).find((c) => c !== undefined) ??
      (calc ? await readResource(request.params.uri, calc) : undefined);
    if (!content) {
      const data = { uri: request.params.uri };
      resourceNotFoundData.add(data);
      throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${request.params.uri}`, data);
    }
    return { contents: [content] };
  });
  server.setRequestHandler('resources/subscribe', async (request) => {
    const uri = request.params.uri;
    const id = stateModelId(uri);
    const { calc } = await resourceServices(withCalc, services);
    // subscribing to anything else, or twice, is accepted silently
    if (calc && id !== undefined && !subscriptions.has(uri)) {
      const off = calc.subscribe(id, () => {
        void server.sendResourceUpdated({ uri }).catch(() => {});
      });
      subscriptions.set(uri, off);
      // a remote subscription is in place once the server says so: answer after that (5 s at most),
      // so the client sees every change made after its subscribe returns
      if (off.ready) await Promise.race([off.ready, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    subscriptions.get(request.params.uri)?.();
    subscriptions.delete(request.params.uri);
    return {};
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    for (const off of subscriptions.values()) off();
    subscriptions.clear();
    previousOnClose?.();
  };
}
