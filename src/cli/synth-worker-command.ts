/**
 * Registers the queued generation commands (issue 26): `synth enqueue` puts the K partitions of a
 * generation on a PostgreSQL queue, `synth status` lists their states; `synth serve --worker`
 * (synth-serve-command.ts) runs them. What they run is in synth-worker-action.ts, loaded only then.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { examples } from './help-text.js';
import { editionFlag, editionOption } from './synth-edition.js';
import type { EnqueueOptions } from './synth-worker-action.js';

function positive(max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    return Number(value);
  };
}

function count(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

function seed(value: string): bigint {
  if (!/^-?\d{1,20}$/.test(value)) throw new InvalidArgumentError('must be an integer');
  const n = BigInt(value);
  if (n < -(1n << 63n) || n >= 1n << 64n) throw new InvalidArgumentError('must fit in 64 bits');
  return BigInt.asIntN(64, n);
}

export const QUEUE_OPTION = [
  '--queue <url>',
  'PostgreSQL database of the queue (also MODELWORKS_SYNTH_QUEUE_URL)',
] as const;

export function registerSynthQueue(synth: Command): void {
  const enqueue = synth
    .command('enqueue')
    .description('queue the partitions of a generation for `synth serve --worker` processes')
    .argument('<model>', 'model file')
    .option(...QUEUE_OPTION)
    .requiredOption('--count <n>', 'observations in the whole generation', count)
    .requiredOption('--partitions <K>', 'partitions (jobs)', positive(100_000))
    .option('--seed <n>', "run seed (else the model's seed, else a fresh one)", seed)
    .option('--to <url>', 'PostgreSQL table: postgres://[user@]host[:port]/db/[schema.]table')
    .option('--format <format>', 'parquet: one file per partition in --output <folder>')
    .option('--output <folder>', 'absolute folder for the Parquet files')
    .option(
      '--job-expiry <seconds>',
      'a job held this long by a silent worker is retried',
      positive(86_400),
      900,
    )
    .option('--retries <n>', 'attempts after the first for a failed or abandoned job', positive(100), 3)
    .option('--quiet', 'no summary on stderr', false)
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .action(async (model: string, opts: EnqueueOptions) => {
      const { enqueue: run } = await import('./synth-worker-action.js');
      await run(model, opts);
    });
  examples(
    enqueue,
    'modelworks synth enqueue model.xml --queue postgres://localhost/jobs --count 12000000 --partitions 12 --to postgres://localhost/data/rows',
    'modelworks synth enqueue model.xml --count 1000000 --partitions 8 --format parquet --output /srv/out',
  );

  const status = synth
    .command('status')
    .description('the partitions of a queued generation: done, active, waiting, failed')
    .argument('<generation>', 'the id `synth enqueue` printed')
    .option(...QUEUE_OPTION)
    .option('--json', 'one JSON document on stdout', false)
    .action(async (generation: string, opts: { queue?: string; json: boolean }) => {
      const { status: run } = await import('./synth-worker-action.js');
      await run(generation, opts);
    });
  examples(status, 'modelworks synth status g-1a2b3c4d5e6f --queue postgres://localhost/jobs');
}
