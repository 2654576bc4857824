/**
 * What `modelworks serve` runs: the REST API, WebSocket subscriptions and /mcp on one Fastify
 * server, over a store several processes may share. MODELWORKS_API_KEY turns the key check on.
 * Loaded only when the command runs (serve-command.ts registers it).
 */
import { buildApp } from '../http/app.js';
import { embedOriginsFromEnv, type EmbedOrigins } from '../http/embed-routes.js';
import { createMcpServer } from '../mcp/server.js';
import { sessionIdleMsFromEnv } from '../mcp/http.js';
import { CalcService } from '../service/calc-service.js';
import { loadGuidanceTopics } from '../service/guidance/catalog.js';
import { openStore } from '../store/open-store.js';
import { CardRunner } from '../service/card-runner.js';
import { PairingService } from '../service/pairing.js';
import { sandboxHtml } from '../service/web-assets.js';
import { shareLinkBuilder } from '../service/share-links.js';
import { sheetWorkers } from '../service/sheet-workers.js';
import { effectSettingsFromEnv, startEffects, type EffectSettings } from '../service/effects/index.js';
import { llmClientFromEnv, type LlmClient } from '../llm/index.js';
import { SpecGenerator } from '../service/generate.js';
import { createLogger, logLevelFrom, warnings, type LogLevel } from '../observability/logger.js';
import { startTracing, type Tracing } from '../observability/tracing.js';
import { serverMetricsFromEnv, type ServerMetrics } from '../observability/metrics.js';
import {
  rateLimitSettingsFromEnv,
  trustProxyFromEnv,
  type RateLimitSettings,
  type TrustProxy,
} from '../http/rate-limit.js';

import { EXIT, systemErrorText } from './cli-errors.js';

const log = (message: string): void => {
  process.stderr.write(`modelworks: ${message}\n`);
};

const listFromEnv = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export interface ServeOptions {
  host: string;
  port: string;
  store?: string;
  /** Unset: MODELWORKS_LOG_LEVEL, else warn. */
  logLevel?: string;
}

/** Runs `modelworks serve` with its parsed options until SIGINT or SIGTERM. */
export async function runServe(opts: ServeOptions): Promise<void> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    log(`--port must be 0..65535 (got '${opts.port}')`);
    process.exitCode = 2;
    return;
  }
  let mcpSessionIdleMs: number;
  let level: LogLevel;
  let tracing: Tracing | undefined;
  let metrics: ServerMetrics | false;
  let rateLimit: RateLimitSettings | undefined;
  let trustProxy: TrustProxy;
  let effectSettings: EffectSettings;
  let llm: LlmClient | undefined;
  let embedOrigins: EmbedOrigins;
  try {
    // metrics and rate limit (issue 28): a malformed setting stops the server here
    metrics = serverMetricsFromEnv();
    rateLimit = rateLimitSettingsFromEnv();
    trustProxy = trustProxyFromEnv();
    level = logLevelFrom(opts.logLevel);
    tracing = await startTracing(); // before the app is built: its request spans hook in then
    mcpSessionIdleMs = sessionIdleMsFromEnv();
    sheetWorkers(); // MODELWORKS_SHEET_* budgets: a bad value stops the server here
    effectSettings = effectSettingsFromEnv(); // MODELWORKS_EFFECT*: likewise (issue 23)
    llm = llmClientFromEnv(); // MODELWORKS_LLM_*: likewise (docs/generate.md)
    embedOrigins = embedOriginsFromEnv(); // MODELWORKS_EMBED_ALLOWED_ORIGINS: likewise (docs/embedding.md)
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  let store;
  try {
    store = await openStore(opts.store ?? process.env.MODELWORKS_STORE);
  } catch (err) {
    log(`cannot open the store: ${(err as Error).message}`);
    process.exitCode = 2;
    return;
  }
  const calc = new CalcService(store, metrics ? { observer: metrics.calcObserver } : {});
  // Fastify logs the requests (app.ts); this one what the server itself has to say
  const logger = createLogger({ level });
  const guidanceTopics = loadGuidanceTopics(
    process.env.MODELWORKS_DOMAIN_GUIDANCE_TOPICS_FILE,
    warnings(logger),
  );
  // server effects run here, after each cycle commits (docs/effects.md)
  const effects = startEffects(calc, effectSettings, warnings(logger), llm);
  if (metrics && effects) {
    const counted = metrics;
    effects.onSettled((s) => counted.effectSettled(s.executor, s.phase));
  }
  const modeLine = `server mode, ${store.kind} store`;
  const apiKey = process.env.MODELWORKS_API_KEY || undefined;
  // one card runner for /mcp sessions and the share pages; links point at this server
  // (MODELWORKS_PUBLIC_URL when it sits behind a proxy), known once it listens
  const runner = new CardRunner();
  let publicUrl = process.env.MODELWORKS_PUBLIC_URL?.trim() || undefined;
  const pairing = new PairingService({});
  const app = await buildApp({
    calc,
    apiKey,
    allowedOrigins: listFromEnv(
      process.env.MODELWORKS_ALLOWED_ORIGINS ?? process.env.MODELWORKS_MCP_ALLOWED_ORIGINS,
    ),
    bindHost: opts.host,
    mcpSessionIdleMs,
    createMcpServer: () =>
      createMcpServer({
        calc,
        guidanceTopics,
        groups: new Set(['calc']),
        modeLine,
        cards: { runner, ...(publicUrl ? { shareLinks: shareLinkBuilder(publicUrl) } : {}) },
      }),
    sandbox: { pairing, sandboxHtml },
    share: { runner, embedOrigins },
    generator: new SpecGenerator(llm, guidanceTopics),
    metrics,
    trustProxy,
    ...(rateLimit ? { rateLimit } : {}),
    ...(level === 'silent' ? {} : { log: { level, stream: process.stderr } }),
  });
  try {
    await app.listen({ host: opts.host, port });
  } catch (err) {
    // a port in use is no usage error: the work could not be done (exit 1, as synth serve)
    log(
      systemErrorText(err, `listen on ${opts.host}:${opts.port}`) ??
        `cannot listen on ${opts.host}:${opts.port}`,
    );
    await effects?.stop();
    await calc.close();
    await tracing?.shutdown();
    process.exitCode = EXIT.failed;
    return;
  }
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  publicUrl ??= `http://${shownHost}:${actualPort}`;
  log(
    `serving http://${shownHost}:${actualPort} (REST, /mcp, /openapi.json; ${modeLine}; ${apiKey ? 'API key required' : 'no API key: open to anyone who can reach it'})`,
  );
  const stop = (): void => {
    void app
      .close()
      .then(() => effects?.stop())
      .then(() => calc.close())
      .then(() => tracing?.shutdown());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
