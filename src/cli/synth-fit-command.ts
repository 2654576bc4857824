/**
 * `modelworks synth fit sample.csv`: proposes a model from a sample (src/synth/fit) and writes it
 * as XML, JSON or .sgm; a one-line summary per column goes to stderr, the full fit report to
 * `--report` (JSON). What the command runs is loaded when it runs.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import type { PrivacyFigure } from '../synth/fit/privacy.js';
import { examples } from './help-text.js';

const PREFIX = 'modelworks synth fit';

function parsePositive(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

function parseSeed(value: string): bigint {
  if (!/^\d+$/.test(value) || BigInt(value) < 1n || BigInt(value) >= 1n << 63n)
    throw new InvalidArgumentError('must be a positive integer below 2^63');
  return BigInt(value);
}

/** The report's privacy figure in one line (docs/fit.md, "Privacy figure"). */
export function privacyLine(p: PrivacyFigure): string {
  const share = `${(p.copyShare * 100).toFixed(1)}%`;
  const ratio =
    p.distanceRatio === null
      ? 'no nearest-neighbour ratio (half the sample rows repeat another)'
      : `nearest-neighbour distance ratio ${p.distanceRatio.toFixed(2)} (median ${p.generatedMedian.toFixed(3)} to the sample, ${p.sampleMedian.toFixed(3)} within it; ${p.distanceRows.generated} × ${p.distanceRows.sample} rows)`;
  return `privacy: ${p.copies} of ${p.generatedRows} generated rows (${share}) equal a sample row; ${ratio}`;
}

interface FitCliOptions {
  format?: 'xml' | 'json' | 'sgm';
  seed?: bigint;
  output?: string;
  report?: string;
  criterion: 'aic' | 'bic';
  header: boolean;
  minCategoryCount: number;
  quiet: boolean;
}

async function runFit(sample: string, opts: FitCliOptions): Promise<void> {
  const [{ readFileSync }, { formatForPath }, fit, { writeFileAtomic }, { reportFailure, EXIT }, failure] =
    await Promise.all([
      import('node:fs'),
      import('../synth/index.js'),
      import('../synth/fit/index.js'),
      import('./atomic-file.js'),
      import('./cli-errors.js'),
      import('./synth-failure.js'),
    ]);
  const fail = (message: string, code: number, err?: unknown): void => {
    reportFailure(PREFIX, message, err);
    process.exitCode = code;
  };
  const format = opts.format ?? (opts.output ? formatForPath(opts.output) : undefined) ?? 'xml';
  let result: ReturnType<typeof fit.fitCsvToText>;
  try {
    const text = readFileSync(sample === '-' ? 0 : sample, 'utf8');
    result = fit.fitCsvToText(text, format, {
      seed: opts.seed ?? 1n,
      criterion: opts.criterion,
      header: opts.header,
      minCategoryCount: opts.minCategoryCount,
    });
  } catch (err) {
    if (err instanceof fit.FitError) fail(`${err.message} (${err.code})`, EXIT.usage);
    else fail(failure.failureText(err, `read ${sample}`), failure.inputFailureExit(err), err);
    return;
  }
  try {
    if (opts.output) await writeFileAtomic(opts.output, result.modelText, { prefix: PREFIX });
    else process.stdout.write(result.modelText);
    if (opts.report)
      await writeFileAtomic(opts.report, JSON.stringify(result.report, null, 2) + '\n', { prefix: PREFIX });
  } catch (err) {
    fail(failure.failureText(err, `write ${opts.output ?? opts.report ?? 'the model'}`), EXIT.failed, err);
    return;
  }
  if (!opts.quiet) {
    for (const c of result.report.columns) {
      const ks = c.ks === undefined ? '' : ` KS ${c.ks.toFixed(3)}`;
      const dep = c.inCopula ? ' copula' : c.derivedFrom !== undefined ? ` from ${c.derivedFrom}` : '';
      process.stderr.write(`${c.output} ${c.name}: ${c.kind} ${c.family ?? ''}${ks}${dep}\n`);
    }
    for (const g of result.report.generalised) process.stderr.write(`generalised: ${g}\n`);
    process.stderr.write(`${privacyLine(result.report.privacy)}\n`);
  }
}

/** Registers `synth fit` on the synth command group. */
export function registerSynthFit(synth: Command): void {
  const fit = synth
    .command('fit')
    .description('propose a model from a sample CSV (marginals, copula, guard rails)')
    .argument('<sample>', 'sample CSV file, or - for stdin')
    .addOption(
      new Option('--format <format>', 'model syntax (default: from --output, else xml)').choices([
        'xml',
        'json',
        'sgm',
      ]),
    )
    // no bigint default here: commander prints defaults with JSON.stringify, which refuses a bigint
    .option('--seed <n>', 'seed written into the model (default: 1)', parseSeed)
    .option('--output <file>', 'write the model to a file instead of stdout')
    .option('--report <file>', 'write the fit report (JSON) to a file')
    .addOption(
      new Option('--criterion <name>', 'information criterion ranking families')
        .choices(['aic', 'bic'])
        .default('bic'),
    )
    .option('--no-header', 'the first row is data, not column names')
    .option('--min-category-count <n>', 'merge categories seen fewer times than this', parsePositive, 5)
    .option('--quiet', 'no per-column summary on stderr', false)
    .action((sample: string, opts: FitCliOptions) => runFit(sample, opts));
  examples(
    fit,
    'modelworks synth fit iris.csv --format sgm --output iris.sgm --report iris-fit.json',
    'modelworks synth fit sample.csv --seed 7 | modelworks synth grind - --count 1000 --header',
  );
}
