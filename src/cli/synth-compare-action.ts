/**
 * What `modelworks synth compare` runs: read the sample, run the model for as many rows with the
 * seed, compare (src/synth/compare), print the report; exit 1 on a high finding, 2 on bad input.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { customComponentDirs, loadAllowlists } from '../service/synth-allowlists.js';
import { limitsFromEnv } from '../service/synth-settings.js';
import { fileLoadOptions } from '../synth-io/index.js';
import { type Edition, SynthRun, loadSynthModel, parseModel, resolveSeed } from '../synth/index.js';
import {
  CompareError,
  compareTables,
  outputTable,
  parseSampleCsv,
  renderReport,
} from '../synth/compare/index.js';
import { EXIT, reportFailure } from './cli-errors.js';
import { failureText, inputFailureExit } from './synth-failure.js';

const PREFIX = 'modelworks synth compare';

export interface CompareCliOptions {
  seed?: bigint;
  json: boolean;
  header: 'auto' | 'yes' | 'no';
  edition: Edition;
  ignore: string[];
}

function fail(message: string, code: number, err?: unknown): void {
  reportFailure(PREFIX, message, err);
  process.exitCode = code;
}

function freshSeed(): bigint {
  return randomBytes(8).readBigUInt64BE() >> 1n || 1n;
}

/** Reads and runs; undefined after reporting why not (bad input: exit 2). */
async function prepare(modelPath: string, samplePath: string, opts: CompareCliOptions) {
  let stage = `read ${samplePath}`;
  try {
    const sample = parseSampleCsv(readFileSync(samplePath === '-' ? 0 : samplePath, 'utf8'), opts.header);
    stage = `read ${modelPath}`;
    const model = parseModel(readFileSync(modelPath, 'utf8'));
    const load = {
      ...fileLoadOptions(modelPath, loadAllowlists(), opts.edition, customComponentDirs()),
      limits: limitsFromEnv(process.env),
    };
    const seedInfo = resolveSeed(opts.seed, model, freshSeed);
    const run = new SynthRun(await loadSynthModel(model, load), seedInfo.seed);
    return { sample, run, seedInfo };
  } catch (err) {
    if (err instanceof CompareError) fail(`${samplePath}: ${err.message}`, EXIT.usage, err);
    else fail(failureText(err, stage), inputFailureExit(err), err);
    return undefined;
  }
}

export async function compare(modelPath: string, samplePath: string, opts: CompareCliOptions): Promise<void> {
  const prepared = await prepare(modelPath, samplePath, opts);
  if (prepared === undefined) return;
  const { sample, run, seedInfo } = prepared;
  let report;
  try {
    report = compareTables(sample, outputTable(run, sample.rows.length), { ignore: opts.ignore });
  } catch (err) {
    if (err instanceof CompareError) fail(err.message, EXIT.usage, err);
    else fail(failureText(err, 'compare'), EXIT.failed, err);
    return;
  }
  if (opts.json)
    process.stdout.write(
      `${JSON.stringify({ seed: seedInfo.seed.toString(), seedSource: seedInfo.seedSource, ...report }, null, 2)}\n`,
    );
  else process.stdout.write(`Seed ${seedInfo.seed} (${seedInfo.seedSource}).\n${renderReport(report)}`);
  process.exitCode = report.highCount > 0 ? EXIT.failed : EXIT.ok;
}
