/**
 * Registers `modelworks synth …`: grind, validate, analyze, components, convert, replay and serve.
 * Registration is cheap: what a command runs (synth-actions.ts, the synth engine) is loaded when
 * that command runs, not at start-up.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import type { Edition, OutputFormat } from '../synth/index.js';
import type { AnalyzeOptions } from './synth-actions.js';
import { examples } from './help-text.js';
import { registerSynthServe } from './synth-serve-command.js';
import { registerSynthQueue } from './synth-worker-command.js';
import { registerSynthCompare } from './synth-compare-command.js';
import { registerSynthFit } from './synth-fit-command.js';
import { usageErrorOutput } from './cli-errors.js';
import { editionFlag, editionOption } from './synth-edition.js';

/** The engine's OUTPUT_FORMATS, spelled out so that listing them costs no engine load (a test holds them equal). */
export const GRIND_FORMATS: readonly OutputFormat[] = ['csv', 'raw', 'ndjson', 'json'];

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

function parseWorkers(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256)
    throw new InvalidArgumentError('must be a whole number from 1 to 256');
  return Number(value);
}

/** `k/K` with 1 ≤ k ≤ K ≤ 100,000 (MAX_PARTITIONS of src/synth-io/partition.ts; a test holds them equal). */
export function parsePartitionOption(value: string): { index: number; count: number } {
  const m = /^(\d{1,9})\/(\d{1,9})$/.exec(value.trim());
  const [index, count] = m === null ? [0, 0] : [Number(m[1]), Number(m[2])];
  if (m === null || index < 1 || index > count || count > 100_000)
    throw new InvalidArgumentError('must be k/K with 1 <= k <= K <= 100000, e.g. 3/8');
  return { index, count };
}

/** K of `--partitions K`: 1 to 100,000 (MAX_PARTITIONS). */
export function parsePartitionCount(value: string): number {
  if (!/^\d{1,9}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 100_000)
    throw new InvalidArgumentError('must be a whole number from 1 to 100000');
  return Number(value);
}

function parseSeed(value: string): bigint {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer');
  const seed = BigInt(value);
  if (seed < -(1n << 63n) || seed >= 1n << 64n) throw new InvalidArgumentError('must fit in 64 bits');
  return BigInt.asIntN(64, seed);
}

/** Registers the `synth` command group on the program. */
export function registerSynthCommands(program: Command): void {
  const synth = program
    .command('synth')
    .description('Deterministic synthetic data from SpiceGrinder-format models')
    // its usage errors say `modelworks synth:`, as its other failures do (docs/cli.md)
    .configureOutput(usageErrorOutput('modelworks synth'));
  examples(
    synth,
    'modelworks synth grind examples/synth/support-queue.xml --count 10 --header',
    'modelworks synth validate examples/synth/*.xml',
  );

  const grind = synth
    .command('grind')
    .description('generate observations from a model (XML, JSON or .sgm; "-" reads stdin)')
    .argument('<model>', 'model file, or - for stdin')
    .option('--seed <n>', 'run seed (overrides the model seed)', parseSeed)
    .option('--no-seed', "ignore the model's seed")
    .requiredOption('--count <n>', 'observations to emit', parseCount)
    .option('--header', 'emit the CSV header row dim0,dim1,...', false)
    .option('--quiet', 'no summary or progress on stderr', false)
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .addOption(
      new Option('--format <format>', 'output format').choices([...GRIND_FORMATS, 'parquet']).default('csv'),
    )
    .option('--output <file>', 'write to a file instead of stdout')
    .option('--formats <file>', 'formats config (.properties: format.<type>.<locale>, address.unitLabels...)')
    .option(
      '--partition <k/K>',
      'generate partition k of K (its own stream; --count is the total)',
      parsePartitionOption,
    )
    .option(
      '--partitions <K>',
      'cut the rows into K partitions (each its own stream) rendered on --workers threads, written in order; output depends on K, not on --workers',
      parsePartitionCount,
    )
    .option('--to <url>', 'write into a PostgreSQL table: postgres://[user@]host[:port]/db/[schema.]table')
    .option(
      '--workers <n>',
      'threads rendering rows, this one included (default: the cores available); output is the same for any n',
      parseWorkers,
    )
    .action(
      async (
        model: string,
        opts: {
          seed?: bigint | boolean;
          count: number;
          header: boolean;
          quiet: boolean;
          format: OutputFormat | 'parquet';
          output?: string;
          partition?: { index: number; count: number };
          partitions?: number;
          to?: string;
          edition: Edition;
          formats?: string;
          workers?: number;
        },
      ) => {
        // commander folds --seed N and --no-seed into one property, the last one given winning;
        // both together are contradictory whatever their order, so they are a usage error (exit 2)
        if (seedFlags.has('seed') && seedFlags.has('no-seed'))
          grind.error('give --seed <n> or --no-seed, not both', { code: 'synth.seedConflict' });
        const seed = typeof opts.seed === 'bigint' ? opts.seed : undefined;
        if (opts.partitions !== undefined && opts.partition !== undefined)
          grind.error('give --partitions K (all of them, here) or --partition k/K (one), not both', {
            code: 'synth.partitionsConflict',
          });
        if (opts.partitions !== undefined && (opts.to !== undefined || opts.format === 'parquet'))
          grind.error(
            '--partitions writes text output; for a table or Parquet use --partition k/K or the queue',
            {
              code: 'synth.partitionsSink',
            },
          );
        // Row workers start first, to load while this thread loads the engine and the model
        // (docs/synth-workers.md); the sinks write on one thread, so they get none.
        const { reserveWorkers, defaultWorkers } = await import('../synth-io/parallel/worker-start.js');
        const rows = opts.partition ? Math.ceil(opts.count / opts.partition.count) : opts.count;
        const textOut = opts.to === undefined && opts.format !== 'parquet';
        const reserve = textOut ? reserveWorkers(rows, opts.workers ?? defaultWorkers()) : undefined;
        try {
          const actions = await import('./synth-actions.js');
          await actions.grind(model, { ...opts, seed, modelSeed: opts.seed !== false, reserve });
        } finally {
          await reserve?.release();
        }
      },
    );
  const seedFlags = new Set<'seed' | 'no-seed'>();
  grind.on('option:seed', () => seedFlags.add('seed'));
  grind.on('option:no-seed', () => seedFlags.add('no-seed'));
  examples(
    grind,
    'modelworks synth grind examples/synth/support-queue.xml --count 10 --header',
    'modelworks synth grind model.xml --count 1000000 --seed 42 --format ndjson --output rows.ndjson',
    'cat model.sgm | modelworks synth grind - --count 5 --quiet',
  );

  const validate = synth
    .command('validate')
    .description('validate models; exit 1 when any is invalid')
    .argument('<files...>', 'model files')
    .option('--json', 'one JSON report on stdout', false)
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .action(async (files: string[], opts: { json: boolean; edition: Edition }) => {
      const { validateFiles } = await import('./synth-actions.js');
      await validateFiles(files, opts.json, opts.edition);
    });
  examples(
    validate,
    'modelworks synth validate examples/synth/support-queue.xml',
    'modelworks synth validate --json --edition free models/*.xml',
  );

  const analyze = synth
    .command('analyze')
    .description('complexity, throughput and (with --isolate) per-node cost of models')
    .argument('<files...>', 'model files')
    .option('--json', 'one JSON report on stdout', false)
    .option('--no-throughput', 'skip the timed run')
    .option('--samples <n>', 'timed observations', parseCount, 5000)
    .option('--warmup-ms <n>', 'unmeasured generation first', parseCount, 0)
    .option('--isolate', 'also time every node on its own', false)
    .option('--isolate-rounds <n>', 'measured rounds per node', parseCount, 10)
    .option('--isolate-iterations <n>', 'calls per round', parseCount, 50)
    .option('--isolate-warmup-rounds <n>', 'unmeasured rounds per node', parseCount, 3)
    .option('--isolate-threshold <x>', 'multiplier above which a node is a problem', '3.0')
    .option(
      '--no-write',
      'accepted for SpiceGrinder command lines: analyze never writes analysis.* into the file',
    )
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .action(async (files: string[], opts: AnalyzeOptions) => {
      const { analyzeFiles } = await import('./synth-actions.js');
      await analyzeFiles(files, opts);
    });
  examples(
    analyze,
    'modelworks synth analyze examples/synth/support-queue.xml',
    'modelworks synth analyze --json --isolate --samples 20000 model.xml',
  );

  const components = synth
    .command('components')
    .description('list the available components')
    .option('--json', 'descriptor JSON ({edition, totalCount, components})', false)
    .option('--markdown', 'a Markdown reference', false)
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .action(async (opts: { json: boolean; markdown: boolean; edition: Edition }) => {
      const actions = await import('./synth-actions.js');
      actions.components(opts);
    });
  examples(
    components,
    'modelworks synth components',
    'modelworks synth components --markdown --edition free > components.md',
  );

  const convert = synth
    .command('convert')
    .description('rewrite a model in the syntax its target extension names (.xml, .json, .sgm)')
    .argument('<from>', 'model file, or - for stdin')
    .argument('<to>', 'target file')
    .action(async (from: string, to: string) => {
      const actions = await import('./synth-actions.js');
      await actions.convert(from, to);
    });
  examples(
    convert,
    'modelworks synth convert examples/synth/support-queue.xml support-queue.sgm',
    'cat model.sgm | modelworks synth convert - model.json',
  );

  const replay = synth
    .command('replay')
    .description('replay recorded outputs of a conformance folder byte for byte; exit 1 on any failure')
    .argument('<dir>', 'corpus folder (paths starting samples/ map to it)')
    .option(
      '--tables <dir>',
      'original tables laid out like the corpus (exact replay of table-driven models)',
    )
    .option('--no-stand-ins', 'do not fall back to the bundled stand-in tables')
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .action(async (dir: string, opts: { tables?: string; standIns: boolean; edition: Edition }) => {
      const actions = await import('./synth-actions.js');
      actions.replay(dir, opts);
    });
  examples(
    replay,
    'modelworks synth replay examples/synth',
    'modelworks synth replay corpus/ --tables original-tables/ --no-stand-ins',
  );

  registerSynthCompare(synth);
  registerSynthServe(synth);
  registerSynthQueue(synth);
  registerSynthFit(synth);
}
