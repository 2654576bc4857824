/**
 * `modelworks synth serve`: the synth Service over HTTP (default 127.0.0.1:8085), shared by proxy
 * mode MCP servers and any other client. Stops gracefully on SIGINT/SIGTERM: no new requests,
 * in-flight ones finish, then the process exits.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { addLogLevelOption } from './serve-command.js';
import type { ServeOptions } from './synth-serve-action.js';
import { examples } from './help-text.js';
import { editionOption } from './synth-edition.js';
import type { WorkerOptions } from './synth-worker-action.js';
import { QUEUE_OPTION } from './synth-worker-command.js';

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be 0..65535');
  return Number(value);
}

export function registerSynthServe(synth: Command): void {
  const command = synth
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
    .addOption(editionOption('full (every component) or free (the Free edition gates, as grind)'))
    .option('--worker', 'run queued partitions (`synth enqueue`) instead of the HTTP Service', false)
    .option(...QUEUE_OPTION)
    .option(
      '--supervise-interval <seconds>',
      'worker: how often expired jobs are looked for',
      positiveInt,
      60,
    );
  addLogLevelOption(command).action(async (opts: ServeOptions & WorkerOptions & { worker: boolean }) => {
    if (opts.worker) return (await import('./synth-worker-action.js')).runSynthWorker(opts);
    // the Service and Fastify are loaded here, so they cost nothing to the other commands' start-up
    const { runSynthServe } = await import('./synth-serve-action.js');
    await runSynthServe(opts);
  });
  examples(
    command,
    'modelworks synth serve',
    'modelworks synth serve --port 8085 --token secret --max-queue 4',
    'modelworks synth serve --edition free',
    'modelworks synth serve --worker --queue postgres://localhost/jobs',
  );
}
