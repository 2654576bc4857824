/**
 * What `modelworks mcp` runs: the MCP server over stdio (default) or Streamable HTTP (`--http`, or
 * MODELWORKS_MCP_TRANSPORT=http; bind and port also from MODELWORKS_MCP_HTTP_BIND/_PORT). Loaded
 * only when the command runs (mcp-command.ts registers it).
 */
import { EXIT, systemErrorText } from './cli-errors.js';
import type { RequestLimiter } from '../mcp/http-rate-limit.js';
import { createDeferredMcpServer } from '../mcp/server.js';
import { SYNTH_INSTRUCTIONS } from '../mcp/synth-instructions.js';
import { describeAliases, withSeedAliases } from '../mcp/synth-env-aliases.js';
import { logLevelFrom, type LogLevel } from '../observability/log-level.js';
import type { Logger } from '../observability/logger.js';
import { startTracing, type Tracing } from '../observability/tracing.js';
import type { ServerMetrics } from '../observability/metrics.js';
import type { McpProcessServices } from './mcp-services.js';
import type { McpOptions } from './mcp-options.js';

const log = (message: string): void => {
  process.stderr.write(`modelworks: ${message}\n`);
};

function parseGroups(text: string): Set<'calc' | 'synth'> {
  const groups = new Set<'calc' | 'synth'>();
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (part !== 'calc' && part !== 'synth')
      throw new Error(`--tools takes calc, synth or calc,synth (got '${part}')`);
    groups.add(part);
  }
  return groups;
}

export type { McpOptions } from './mcp-options.js';

/** Runs `modelworks mcp` with its parsed options until the transport closes (stdio) or a signal stops it (HTTP). */
export async function runMcp(opts: McpOptions): Promise<void> {
  let groups: Set<'calc' | 'synth'>;
  let level: LogLevel;
  try {
    groups = parseGroups(opts.tools);
    level = logLevelFrom(opts.logLevel);
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  // SpiceGrinder's SPICEGRINDER_MCP_* names count as ours (ours win); one line says which were used
  const aliased = withSeedAliases(process.env);
  const aliasLine = describeAliases(aliased);
  if (aliasLine !== undefined) log(aliasLine);
  const env = aliased.env;
  const transport = (env.MODELWORKS_MCP_TRANSPORT ?? '').trim().toLowerCase();
  if (transport !== '' && transport !== 'stdio' && transport !== 'http') {
    log(`MODELWORKS_MCP_TRANSPORT must be stdio or http (got '${transport}')`);
    process.exitCode = 2;
    return;
  }
  const http = opts.http === true || transport === 'http';
  const host = opts.host ?? (env.MODELWORKS_MCP_HTTP_BIND?.trim() || '127.0.0.1');
  const portText = opts.port ?? (env.MODELWORKS_MCP_HTTP_PORT?.trim() || '8086');
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    log(`--port / MODELWORKS_MCP_HTTP_PORT must be 0..65535 (got '${portText}')`);
    process.exitCode = 2;
    return;
  }
  let sessionIdleMs = 0;
  let tracing: Tracing | undefined;
  let metrics: ServerMetrics | false = false;
  let limit: RequestLimiter | undefined;
  try {
    // the transport's modules: only the one this run serves
    if (http) sessionIdleMs = (await import('../mcp/http.js')).sessionIdleMsFromEnv();
    // the rate limit (issue 28) too: its libraries are loaded only when it is on
    if (http) limit = await rateLimitFromEnv();
    // metrics over HTTP only (issue 28); prom-client is loaded then, and stdio starts without it
    if (http) metrics = (await import('../observability/metrics.js')).serverMetricsFromEnv();
    tracing = await startTracing({ protocolOnStdout: !http });
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  // the store, the services and the synth group (mcp-services.ts, with the settings they check):
  // over stdio the server answers `initialize` before they are built (issue 45), and a refusal
  // then stops the process as it would have before serving (exit 2, one line)
  let startsNow!: () => void;
  const startGate = new Promise<void>((go) => (startsNow = go));
  // the logger too (pino, whose modules would hold the first answer up): nothing logs before the
  // services are built. JSON lines on stderr (fd 2) in both modes: over stdio, stdout carries
  // protocol messages only
  const loggerModule = startGate.then(() => import('../observability/logger.js'));
  const loggerReady: Promise<Logger> = loggerModule.then(({ createLogger }) => createLogger({ level }));
  const starting: Promise<McpProcessServices> = Promise.all([
    loggerReady,
    startGate.then(() => import('./mcp-services.js')),
  ]).then(([logger, { startMcpServices }]) => startMcpServices({ opts, env, groups, logger, metrics }));
  const services = starting.then((s) => s.services);
  // a refusal is reported once, below (stdio: stopRefused; HTTP: before listening)
  services.catch(() => {});
  const stopRefused = (err: unknown): never => {
    log((err as Error).message);
    process.exit(isRefusal(err) ? EXIT.usage : EXIT.failed);
  };
  const make = (context?: { era: 'legacy' | 'modern' }) => {
    // the first message (initialize, or a 2026-07-28 request) is answered before the build starts:
    // loading its modules would hold the answer up, as they load on this thread
    setImmediate(startsNow);
    const server = createDeferredMcpServer(
      {
        groups,
        ...(groups.has('synth') ? { extraInstructions: SYNTH_INSTRUCTIONS } : {}),
        ...(context ? { era: context.era } : {}),
      },
      services,
    );
    // llm effects ask this connection's client if it samples; a 2026-07-28 instance serves one
    // request and cannot be asked (its client samples in band, input-required.ts), so it would only push out one that can
    if (context?.era !== 'modern')
      void starting.then(
        (s) => s.started?.llm.attach(server),
        () => {},
      );
    return server;
  };
  if (!http) {
    const { serveStdio } = await import('../mcp/stdio.js');
    // without a first message soon, the build starts anyway: a bad setting stops the process at start
    setTimeout(startsNow, START_WITHOUT_CLIENT_MS).unref();
    // on stderr like every log line: stdout carries protocol messages only
    void Promise.all([loggerReady, services]).then(
      ([logger, s]) => logger.info({ transport: 'stdio' }, `MCP over stdio (${s.modeLine})`),
      stopRefused,
    );
    await serveStdio(make);
    startsNow();
    const running = await starting.catch(stopRefused);
    await running.close();
    await tracing?.shutdown();
    (await loggerReady).info({ transport: 'stdio' }, 'stdin closed: stopped');
    return;
  }
  // over HTTP nothing is served before the services are built
  let built: McpProcessServices;
  startsNow();
  try {
    built = await starting;
  } catch (err) {
    log((err as Error).message);
    process.exitCode = isRefusal(err) ? EXIT.usage : EXIT.failed;
    return;
  }
  const [logger, { warnings }] = await Promise.all([loggerReady, loggerModule]);
  const { synth, embedded } = built;
  const modeLine = built.services.modeLine;
  const allowedOrigins = (process.env.MODELWORKS_MCP_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { serveHttp } = await import('../mcp/http.js');
  let running: Awaited<ReturnType<typeof serveHttp>>;
  try {
    running = await serveHttp({
      host,
      port,
      createServer: make,
      allowedOrigins,
      log: warnings(logger), // as before: an idle session's closing shows at the default level
      logger,
      sessionIdleMs,
      ...(metrics ? { metrics } : {}),
      ...(limit ? { limit } : {}),
    });
  } catch (err) {
    // a port in use is no bug and no usage error: the work could not be done (exit 1, as serve)
    const listening = systemErrorText(err, `listen on ${host}:${port}`);
    if (listening === undefined) throw err;
    log(listening);
    await built.close();
    await tracing?.shutdown();
    process.exitCode = EXIT.failed;
    return;
  }
  if (metrics && synth) {
    const service = synth.service;
    metrics.watchSynth(() => service.stats);
  }
  if (metrics && embedded) {
    const service = embedded;
    metrics.watchSubscriptions(() => service.subscriptionCount);
  }
  log(`MCP over Streamable HTTP at ${running.url} (${modeLine})`);
  const stop = (): void => {
    void running
      .close()
      .then(() => built.close())
      .then(() => tracing?.shutdown());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** How long a stdio server waits for a first message before it builds its services anyway. */
const START_WITHOUT_CLIENT_MS = 100;

/** A setting or the store refused (McpStartRefused, told by name: its module loads later). */
const isRefusal = (err: unknown): boolean => err instanceof Error && err.name === 'McpStartRefused';

/** The per-client limit MODELWORKS_RATE_LIMIT_* set for `mcp --http`, or undefined when off. */
async function rateLimitFromEnv(): Promise<RequestLimiter | undefined> {
  const { rateLimitSettingsFromEnv, trustProxyFromEnv } = await import('../http/rate-limit.js');
  const settings = rateLimitSettingsFromEnv();
  if (!settings) return undefined;
  const trust = trustProxyFromEnv();
  return (await import('../mcp/http-rate-limit.js')).requestLimiter(settings, trust);
}
