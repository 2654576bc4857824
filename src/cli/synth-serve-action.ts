/**
 * What `modelworks synth serve` runs: the synth Service over HTTP until SIGINT/SIGTERM, then a
 * graceful stop (no new requests, in-flight ones finish). Loaded only when the command runs
 * (synth-serve-command.ts registers it).
 */
import type { Edition } from '../synth/index.js';
import { ndjsonAuditFile } from '../service/synth-audit.js';
import { SynthService } from '../service/synth-service.js';
import {
  DEFAULT_BUDGETS,
  SYNTH_BUDGET_ENV,
  bytesSetting,
  cacheBudget,
  limitsFromEnv,
} from '../service/synth-settings.js';
import { MAX_GENERATION_BYTES, workersFromEnv } from '../service/synth-generation.js';
import { failureText } from './synth-failure.js';
import { serverMetricsFromEnv, type ServerMetrics } from '../observability/metrics.js';
import {
  rateLimitSettingsFromEnv,
  trustProxyFromEnv,
  type RateLimitSettings,
  type TrustProxy,
} from '../http/rate-limit.js';
import {
  createLogger,
  logLevelFrom,
  loggerOptions,
  warnings,
  type LogLevel,
} from '../observability/logger.js';
import { startTracing, type Tracing } from '../observability/tracing.js';

const log = (message: string): void => {
  process.stderr.write(`modelworks synth serve: ${message}\n`);
};

export interface ServeOptions {
  host: string;
  port: number;
  token?: string;
  modelIdleTimeout: number;
  maxBytes?: number;
  cacheMaxBytes?: number;
  maxGenerations: number;
  maxQueue: number;
  /** full (default) or free: the Free edition's components and gates. */
  edition?: Edition;
  /** Unset: MODELWORKS_LOG_LEVEL, else warn. */
  logLevel?: string;
}

/** Runs the synth Service with the command's parsed options. */
export async function runSynthServe(opts: ServeOptions): Promise<void> {
  const token = opts.token ?? (process.env.MODELWORKS_SYNTH_SERVICE_TOKEN?.trim() || undefined);
  const auditPath = process.env.MODELWORKS_SYNTH_AUDIT_LOG?.trim();
  let service: SynthService;
  let level: LogLevel;
  let tracing: Tracing | undefined;
  let metrics: ServerMetrics | false;
  let rateLimit: RateLimitSettings | undefined;
  let trustProxy: TrustProxy;
  try {
    const env = process.env;
    // metrics and rate limit (issue 28): a malformed setting stops the server here
    metrics = serverMetricsFromEnv(env);
    rateLimit = rateLimitSettingsFromEnv(env);
    trustProxy = trustProxyFromEnv(env);
    level = logLevelFrom(opts.logLevel, env);
    tracing = await startTracing({ env });
    const warn = warnings(createLogger({ level }));
    const maxBytes =
      opts.maxBytes ?? bytesSetting(env, SYNTH_BUDGET_ENV.serviceMaxBytes, DEFAULT_BUDGETS.serviceMaxBytes);
    if (maxBytes > MAX_GENERATION_BYTES)
      throw new Error(`--max-bytes must be at most ${MAX_GENERATION_BYTES} (got ${maxBytes})`);
    const cacheMaxBytes =
      opts.cacheMaxBytes ??
      cacheBudget(
        env,
        SYNTH_BUDGET_ENV.serviceCacheMaxBytes,
        DEFAULT_BUDGETS.serviceCacheMaxBytes,
        maxBytes,
        `--max-bytes / ${SYNTH_BUDGET_ENV.serviceMaxBytes}`,
      );
    service = new SynthService({
      edition: opts.edition ?? 'full',
      modelIdleTimeoutMs: opts.modelIdleTimeout * 1000,
      serviceCacheSize: opts.maxGenerations,
      serviceCacheMaxBytes: cacheMaxBytes,
      maxQueue: opts.maxQueue,
      serviceMaxBytes: maxBytes,
      limits: limitsFromEnv(env),
      workers: workersFromEnv(env),
      log: warn,
      ...(auditPath ? { audit: ndjsonAuditFile(auditPath, warn) } : {}),
    });
  } catch (err) {
    log((err as Error).message);
    process.exitCode = 2;
    return;
  }
  // loaded here so Fastify costs nothing to the other commands' start-up
  const { buildSynthServiceApp } = await import('../synth-service-http/app.js');
  const app = buildSynthServiceApp({
    service,
    ...(token ? { token } : {}),
    // requests logged by Fastify on the servers' one logger settings, on stderr
    logger: level === 'silent' ? false : { ...loggerOptions(level), stream: process.stderr },
    metrics,
    trustProxy,
    ...(rateLimit ? { rateLimit } : {}),
  });
  let address: string;
  try {
    address = await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    log(failureText(err, `listen on ${opts.host}:${opts.port}`));
    await service.close();
    await tracing?.shutdown();
    process.exitCode = 1;
    return;
  }
  if (!token && !['127.0.0.1', 'localhost', '::1'].includes(opts.host))
    log('warning: no token set and not bound to loopback: anyone who can reach this port can use it');
  const notes = [opts.edition === 'free' ? 'Free edition' : '', token ? 'bearer token required' : ''];
  const noted = notes.filter(Boolean).join(', ');
  log(`synth Service listening at ${address}${noted ? ` (${noted})` : ''}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing in-flight requests`);
    void app
      .close()
      .then(() => service.close())
      .then(() => tracing?.shutdown())
      .then(() => log('stopped'));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
