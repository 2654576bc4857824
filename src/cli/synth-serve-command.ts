/**
 * `modelworks synth serve`: the synth Service over HTTP (default 127.0.0.1:8085), shared by proxy
 * mode MCP servers and any other client. Stops gracefully on SIGINT/SIGTERM: no new requests,
 * in-flight ones finish, then the process exits.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { ndjsonAuditFile } from '../service/synth-audit.js';
import { SynthService } from '../service/synth-service.js';
import {
  DEFAULT_BUDGETS,
  SYNTH_BUDGET_ENV,
  bytesSetting,
  cacheBudget,
  limitsFromEnv,
} from '../service/synth-settings.js';
import { MAX_GENERATION_BYTES } from '../service/synth-generation.js';
import { failureText } from './synth-failure.js';

const log = (message: string): void => {
  process.stderr.write(`modelworks synth serve: ${message}\n`);
};

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be 0..65535');
  return Number(value);
}

interface ServeOptions {
  host: string;
  port: number;
  token?: string;
  modelIdleTimeout: number;
  maxBytes?: number;
  cacheMaxBytes?: number;
  maxGenerations: number;
  maxQueue: number;
}

export function registerSynthServe(synth: Command): void {
  synth
    .command('serve')
    .description('run the synth Service (HTTP API for models, generations and paging)')
    .option('--host <host>', 'bind address', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', port, 8085)
    .option('--token <token>', 'require Authorization: Bearer <token> (also MODELWORKS_SYNTH_SERVICE_TOKEN)')
    .option('--model-idle-timeout <seconds>', 'forget a registered model unused this long', positiveInt, 1800)
    .option(
      '--max-bytes <n>',
      'size cap of one generation (also MODELWORKS_SYNTH_SERVICE_MAX_BYTES; default 256 MiB)',
      positiveInt,
    )
    .option(
      '--cache-max-bytes <n>',
      'bytes all generations kept for paging may hold together (also MODELWORKS_SYNTH_CACHE_MAX_BYTES; default 256 MiB, at least --max-bytes)',
      positiveInt,
    )
    .option(
      '--max-generations <n>',
      'generations kept for paging (least recently used dropped)',
      positiveInt,
      50,
    )
    .option('--max-queue <n>', 'generations that may wait behind the running one', positiveInt, 16)
    .action(async (opts: ServeOptions) => {
      const token = opts.token ?? (process.env.MODELWORKS_SYNTH_SERVICE_TOKEN?.trim() || undefined);
      const auditPath = process.env.MODELWORKS_SYNTH_AUDIT_LOG?.trim();
      let service: SynthService;
      try {
        const env = process.env;
        const maxBytes =
          opts.maxBytes ??
          bytesSetting(env, SYNTH_BUDGET_ENV.serviceMaxBytes, DEFAULT_BUDGETS.serviceMaxBytes);
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
          modelIdleTimeoutMs: opts.modelIdleTimeout * 1000,
          serviceCacheSize: opts.maxGenerations,
          serviceCacheMaxBytes: cacheMaxBytes,
          maxQueue: opts.maxQueue,
          serviceMaxBytes: maxBytes,
          limits: limitsFromEnv(env),
          log,
          ...(auditPath ? { audit: ndjsonAuditFile(auditPath, log) } : {}),
        });
      } catch (err) {
        log((err as Error).message);
        process.exitCode = 2;
        return;
      }
      // loaded here so Fastify costs nothing to the other commands' start-up
      const { buildSynthServiceApp } = await import('../synth-service-http/app.js');
      const app = buildSynthServiceApp({ service, ...(token ? { token } : {}) });
      let address: string;
      try {
        address = await app.listen({ host: opts.host, port: opts.port });
      } catch (err) {
        log(failureText(err, `listen on ${opts.host}:${opts.port}`));
        await service.close();
        process.exitCode = 1;
        return;
      }
      if (!token && !['127.0.0.1', 'localhost', '::1'].includes(opts.host))
        log('warning: no token set and not bound to loopback: anyone who can reach this port can use it');
      log(`synth Service listening at ${address}${token ? ' (bearer token required)' : ''}`);
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        log(`${signal}: finishing in-flight requests`);
        void app
          .close()
          .then(() => service.close())
          .then(() => log('stopped'));
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
}
