/**
 * What `modelworks mcp` runs: the MCP server over stdio (default) or Streamable HTTP (`--http`, or
 * MODELWORKS_MCP_TRANSPORT=http; bind and port also from MODELWORKS_MCP_HTTP_BIND/_PORT). Loaded
 * only when the command runs (mcp-command.ts registers it).
 */
import { EXIT, systemErrorText } from './cli-errors.js';
import type { ToolDefinition } from '../mcp/tool.js';
import type { CalcApi } from '../service/calc-api.js';
import { CalcService, type CalcObserver } from '../service/calc-service.js';
import { loadGuidanceTopics } from '../service/guidance/catalog.js';
import { openStore } from '../store/open-store.js';
import type { RequestLimiter } from '../mcp/http-rate-limit.js';
import { createMcpServer } from '../mcp/server.js';
import { sheetWorkers } from '../service/sheet-workers.js';
import {
  effectSettingsFromEnv,
  startEffectExecutors,
  type EffectSettings,
} from '../service/effects/index.js';
import { SYNTH_INSTRUCTIONS, synthMcpGroup, type SynthMcpGroup } from '../mcp/synth-setup.js';
import { describeAliases, withSeedAliases } from '../mcp/synth-env-aliases.js';
import type { Edition } from '../synth/index.js';
import { createLogger, logLevelFrom, warnings, type Logger } from '../observability/logger.js';
import { startTracing, type Tracing } from '../observability/tracing.js';
import type { ServerMetrics } from '../observability/metrics.js';
import { CardRunner } from '../service/card-runner.js';
import { llmClientFromEnv, type LlmClient } from '../llm/index.js';
import { SpecGenerator } from '../service/generate.js';

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

export interface McpOptions {
  http?: boolean;
  host?: string;
  port?: string;
  tools: string;
  store?: string;
  url?: string;
  apiKey?: string;
  browser?: boolean;
  /** The synth tools' edition: full (default) or free. */
  edition?: Edition;
  /** Unset: MODELWORKS_LOG_LEVEL, else warn. */
  logLevel?: string;
}

/** The calc operations: a REST client in remote mode, else the embedded service on a store. */
async function openCalc(
  opts: McpOptions,
  observer?: CalcObserver,
): Promise<{ calc: CalcApi & { close(): Promise<void> }; modeLine: string; tools?: ToolDefinition[] }> {
  const url = opts.url ?? process.env.MODELWORKS_SERVER_URL;
  if (opts.browser && !url) log('--browser needs --url (a `modelworks serve` server); running embedded');
  if (url && opts.browser) {
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error('not http(s)');
    } catch {
      throw new Error(`--url must be an http(s) URL (got '${url}')`);
    }
    const apiKey = opts.apiKey ?? process.env.MODELWORKS_API_KEY;
    const [{ BrowserPairing }, { BrowserCalc }, { pairBrowserTool }] = await Promise.all([
      import('../remote/browser-pairing.js'),
      import('../remote/browser-calc.js'),
      import('../mcp/pair-tool.js'),
    ]);
    const pairing = new BrowserPairing({ baseUrl: url, apiKey });
    return {
      calc: new BrowserCalc(pairing, { url, apiKey }),
      modeLine: `remote mode with a browser, ${url.replace(/\/+$/, '')}`,
      tools: [pairBrowserTool(pairing)],
    };
  }
  if (url) {
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error('not http(s)');
    } catch {
      throw new Error(`--url must be an http(s) URL (got '${url}')`);
    }
    const { CalcClient } = await import('../remote/calc-client.js');
    const calc = new CalcClient({ url, apiKey: opts.apiKey ?? process.env.MODELWORKS_API_KEY });
    return { calc, modeLine: `remote mode, ${calc.baseUrl}` };
  }
  let store;
  try {
    store = await openStore(opts.store ?? process.env.MODELWORKS_STORE);
  } catch (err) {
    throw new Error(`cannot open the store: ${(err as Error).message}`);
  }
  return {
    calc: new CalcService(store, observer ? { observer } : {}),
    modeLine: `embedded mode, ${store.kind} store`,
  };
}

/** Runs `modelworks mcp` with its parsed options until the transport closes (stdio) or a signal stops it (HTTP). */
export async function runMcp(opts: McpOptions): Promise<void> {
  let groups: Set<'calc' | 'synth'>;
  let logger: Logger;
  try {
    groups = parseGroups(opts.tools);
    // JSON lines on stderr (fd 2) in both modes: over stdio, stdout carries protocol messages only
    logger = createLogger({ level: logLevelFrom(opts.logLevel) });
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
  let effectSettings: EffectSettings;
  let llm: LlmClient | undefined;
  try {
    // the transport's modules: only the one this run serves
    if (http) sessionIdleMs = (await import('../mcp/http.js')).sessionIdleMsFromEnv();
    // the rate limit (issue 28) too: its libraries are loaded only when it is on
    if (http) limit = await rateLimitFromEnv();
    // metrics over HTTP only (issue 28); prom-client is loaded then, and stdio starts without it
    if (http) metrics = (await import('../observability/metrics.js')).serverMetricsFromEnv();
    tracing = await startTracing({ protocolOnStdout: !http });
    if (groups.has('calc')) sheetWorkers(); // MODELWORKS_SHEET_* budgets: a bad value stops the server here
    effectSettings = effectSettingsFromEnv(env); // MODELWORKS_EFFECT*: likewise (issue 23)
    llm = llmClientFromEnv(env); // MODELWORKS_LLM_*: likewise (docs/generate.md)
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  let opened;
  try {
    opened = await openCalc(opts, metrics ? metrics.calcObserver : undefined);
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  let synth: SynthMcpGroup | undefined;
  try {
    if (groups.has('synth')) synth = synthMcpGroup(env, warnings(logger), opts.edition);
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  const calc = opened.calc;
  // embedded mode runs server effects itself (remote mode: the server it calls runs them)
  const started =
    calc instanceof CalcService
      ? startEffectExecutors(calc, effectSettings, warnings(logger), llm)
      : undefined;
  const effects = started?.runner;
  if (metrics && effects) {
    const counted = metrics;
    effects.onSettled((s) => counted.effectSettled(s.executor, s.phase));
  }
  const guidanceTopics = loadGuidanceTopics(
    process.env.MODELWORKS_DOMAIN_GUIDANCE_TOPICS_FILE,
    warnings(logger),
  );
  const modeLine = `${opened.modeLine}${synth ? `, ${synth.describe}` : ''}`;
  const generator = new SpecGenerator(llm, guidanceTopics);
  // one card runner for every session of this process, so they share compiled specs
  const cards = { runner: new CardRunner() };
  const make = (context?: { era: 'legacy' | 'modern' }) => {
    const server = createMcpServer({
      calc,
      guidanceTopics,
      groups,
      modeLine,
      cards,
      generator,
      extraTools: [...(opened.tools ?? []), ...(synth?.tools ?? [])],
      ...(synth ? { extraResources: [synth.resources], extraInstructions: SYNTH_INSTRUCTIONS } : {}),
      ...(started ? { sampling: started.llm.inBand } : {}),
      ...(context ? { era: context.era } : {}),
    });
    // llm effects ask this connection's client if it samples; a 2026-07-28 instance serves one
    // request and cannot be asked (its client samples in band, input-required.ts), so it would only push out one that can
    if (context?.era !== 'modern') started?.llm.attach(server);
    return server;
  };
  if (!http) {
    // on stderr like every log line: stdout carries protocol messages only
    logger.info({ transport: 'stdio' }, `MCP over stdio (${modeLine})`);
    const { serveStdio } = await import('../mcp/stdio.js');
    await serveStdio(make);
    await effects?.stop();
    await synth?.close();
    await calc.close();
    await tracing?.shutdown();
    logger.info({ transport: 'stdio' }, 'stdin closed: stopped');
    return;
  }
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
    await effects?.stop();
    await synth?.close();
    await calc.close();
    await tracing?.shutdown();
    process.exitCode = EXIT.failed;
    return;
  }
  if (metrics && synth) {
    const service = synth.service;
    metrics.watchSynth(() => service.stats);
  }
  if (metrics && calc instanceof CalcService) {
    const service = calc;
    metrics.watchSubscriptions(() => service.subscriptionCount);
  }
  log(`MCP over Streamable HTTP at ${running.url} (${modeLine})`);
  const stop = (): void => {
    void running
      .close()
      .then(() => effects?.stop())
      .then(() => synth?.close())
      .then(() => calc.close())
      .then(() => tracing?.shutdown());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The per-client limit MODELWORKS_RATE_LIMIT_* set for `mcp --http`, or undefined when off. */
async function rateLimitFromEnv(): Promise<RequestLimiter | undefined> {
  const { rateLimitSettingsFromEnv, trustProxyFromEnv } = await import('../http/rate-limit.js');
  const settings = rateLimitSettingsFromEnv();
  if (!settings) return undefined;
  const trust = trustProxyFromEnv();
  return (await import('../mcp/http-rate-limit.js')).requestLimiter(settings, trust);
}
