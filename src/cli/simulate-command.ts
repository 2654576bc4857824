/**
 * `modelworks calc simulate`: Monte Carlo over a spec file (src/service/simulate), with a progress
 * bar on a terminal for long runs, a readable table or `--json`.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SimulationResult } from '../service/simulate/index.js';
import { debugDetails, EXIT, internalErrorText, systemErrorText } from './cli-errors.js';
import { examples } from './help-text.js';

/** The CLI runs on the user's own machine: more runs and time than a shared server allows. */
const CLI_DEFAULTS = { maxRuns: 10_000_000, timeLimitSeconds: 3600 };

interface SimulateOptions {
  inputs?: string;
  inputModel?: string;
  paths?: string;
  outputs: string;
  runs: string;
  seed?: string;
  percentiles?: string;
  json?: boolean;
}

class UsageProblem extends Error {}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageProblem(systemErrorText(err, `read ${file}`) ?? `cannot read ${file}`);
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readText(file)) as unknown;
  } catch (err) {
    if (err instanceof UsageProblem) throw err;
    throw new UsageProblem(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function wholeNumber(text: string, option: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageProblem(`${option} expects a whole number, got '${text}'`);
  return Number(text);
}

const figure = (v: number | null | undefined): string =>
  v === null || v === undefined ? '-' : Number(v.toPrecision(6)).toString();

/** The result as people read it: a line per output, the constraints' rates, the tornado order. */
function printTable(r: SimulationResult): void {
  const out: string[] = [`${r.runs} runs (seed ${r.seed}), ${r.failedRuns} failed`];
  if (r.stopped) out.push(`stopped early: ${r.stopped}`);
  for (const [code, n] of Object.entries(r.failures)) out.push(`  failed ${code}: ${n}`);
  for (const [path, o] of Object.entries(r.outputs)) {
    const pct = Object.entries(o.percentiles)
      .map(([p, v]) => `p${p} ${figure(v)}`)
      .join('  ');
    out.push(
      `${path}: mean ${figure(o.mean)}  sd ${figure(o.stdDev)}  min ${figure(o.min)}  max ${figure(o.max)}  ${pct}`,
    );
    const drivers = Object.entries(r.sensitivity[path] ?? {})
      .map(([input, rho]) => `${input} ${figure(rho)}`)
      .join(', ');
    if (drivers) out.push(`  driven by (rank correlation): ${drivers}`);
  }
  for (const [id, c] of Object.entries(r.constraints))
    out.push(
      `constraint ${id}: rolls back ${figure(c.rollbackRate * 100)}%, flags ${figure(c.flagRate * 100)}%`,
    );
  process.stdout.write(`${out.join('\n')}\n`);
}

async function simulateFile(file: string, opts: SimulateOptions): Promise<number> {
  const { runSimulation, simulationLimitsFromEnv } = await import('../service/simulate/index.js');
  const runs = wholeNumber(opts.runs, '--runs');
  if (!opts.inputs === !opts.inputModel)
    throw new UsageProblem('give --inputs (a JSON file: path → distribution) or --input-model with --paths');
  const args = {
    spec: readJson(file),
    ...(opts.inputs ? { inputs: readJson(opts.inputs) } : {}),
    ...(opts.inputModel ? { inputModel: { text: readText(opts.inputModel), paths: list(opts.paths) } } : {}),
    outputs: list(opts.outputs),
    runs,
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.percentiles !== undefined ? { percentiles: list(opts.percentiles).map(Number) } : {}),
  };
  let limits;
  try {
    limits = simulationLimitsFromEnv(process.env, CLI_DEFAULTS);
  } catch (err) {
    throw new UsageProblem((err as Error).message);
  }
  const { rowProgress } = await import('./progress.js');
  const bar = await rowProgress(runs, { unit: 'runs', enabled: !opts.json });
  try {
    const result = await runSimulation(
      { scratchCopy: () => Promise.reject(new Error('no live models')) },
      args,
      limits,
      {
        progress: (done) => bar.update(done),
      },
    );
    bar.stop();
    if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else printTable(result);
    return EXIT.ok;
  } finally {
    bar.stop();
  }
}

export function registerSimulateCommand(calcCommand: Command): void {
  const command = calcCommand
    .command('simulate')
    .description(
      'Monte Carlo: run a spec once per draw of its inputs; summarise outputs, constraint risks and sensitivity',
    )
    .argument('<spec>', 'ModelSpec JSON file')
    .option('--inputs <file>', 'JSON file: {"$.path": {"type": "Normal", "mean": 0, "sigma": 1}, …}')
    .option('--input-model <file>', 'a synth model (XML, JSON or .sgm) whose columns feed --paths')
    .option('--paths <list>', 'with --input-model: the input path of each column, comma-separated')
    .requiredOption('--outputs <list>', 'output paths, comma-separated')
    .option('--runs <n>', 'number of runs', '1000')
    .option('--seed <n>', 'seed (the same seed gives the same answer; default: a fresh one, printed)')
    .option('--percentiles <list>', 'percentiles to report, comma-separated (default 5,50,95)')
    .option('--json', 'print the whole result as JSON')
    .action(async (file: string, opts: SimulateOptions) => {
      const { CalcError } = await import('../calc/index.js');
      try {
        process.exitCode = await simulateFile(file, opts);
      } catch (err) {
        if (err instanceof UsageProblem || (err instanceof CalcError && err.code === 'INVALID_ARGUMENT')) {
          process.stderr.write(`modelworks: ${err.message}\n`);
          process.exitCode = EXIT.usage;
        } else if (err instanceof CalcError) {
          process.stderr.write(`modelworks: ${err.code}: ${err.message}\n`);
          process.exitCode = EXIT.usage; // the spec itself is bad input
        } else {
          process.stderr.write(`modelworks: ${internalErrorText(err, 'simulate')}\n${debugDetails(err)}`);
          process.exitCode = EXIT.failed;
        }
      }
    });
  examples(
    command,
    "modelworks calc simulate examples/calc/car-loan-calculator.json --inputs examples/simulate/car-loan-uncertainty.json --outputs '$.monthlyPayment,$.costOfCredit' --runs 10000 --seed 1",
    "modelworks calc simulate model.json --input-model inputs.sgm --paths '$.rate,$.price' --outputs '$.total' --json",
  );
}
