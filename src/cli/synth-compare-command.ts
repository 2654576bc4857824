/**
 * `modelworks synth compare <model> <sample>`: a sample CSV against the model's own output for
 * the sample's row count and the seed; exit 1 on a high-severity finding. The work is in
 * synth-compare-action.ts, loaded only when the command runs.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import type { CompareCliOptions } from './synth-compare-action.js';
import { examples } from './help-text.js';
import { editionFlag, editionOption } from './synth-edition.js';

function parseSeed(value: string): bigint {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be an integer');
  const seed = BigInt(value);
  if (seed < -(1n << 63n) || seed >= 1n << 64n) throw new InvalidArgumentError('must fit in 64 bits');
  return BigInt.asIntN(64, seed);
}

export function registerSynthCompare(synth: Command): void {
  const command = synth
    .command('compare')
    .description(
      "compare a sample CSV with the model's output (same rows, same seed); exit 1 on a high finding",
    )
    .argument('<model>', 'model file (XML, JSON or .sgm)')
    .argument('<sample>', 'sample CSV file, or - for stdin')
    .option('--seed <n>', 'run seed (default: the model seed, else a random one)', parseSeed)
    .option('--json', 'the report as JSON on stdout', false)
    .addOption(
      new Option('--header <choice>', 'does the first row name the columns')
        .choices(['auto', 'yes', 'no'])
        .default('auto'),
    )
    .option(
      '--ignore <column>',
      'leave a sample column out of every test (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .addOption(editionOption())
    .addOption(editionFlag('free'))
    .addOption(editionFlag('pro'))
    .action(async (model: string, sample: string, opts: CompareCliOptions) => {
      const { compare } = await import('./synth-compare-action.js');
      await compare(model, sample, opts);
    });
  examples(
    command,
    'modelworks synth compare --seed 1 examples/synth/support-queue.xml examples/synth/support-queue.csv',
    'modelworks synth compare --seed 1 --json model.xml sample.csv > report.json',
    'modelworks synth compare --ignore customer_id --ignore note model.xml sample.csv',
  );
}
