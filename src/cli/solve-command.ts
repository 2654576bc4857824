/**
 * `modelworks calc solve`: goal seek or optimise a spec file (src/service/solve), printing the
 * inputs found and whether the target is met, or `--json`. Exits 0 when met, 1 when not.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SolveResult } from '../service/solve/index.js';
import { debugDetails, EXIT, internalErrorText, systemErrorText } from './cli-errors.js';
import { examples } from './help-text.js';

/** The CLI runs on the user's own machine: more cycles and time than a shared server allows. */
const CLI_DEFAULTS = { maxIterations: 10_000_000, timeLimitSeconds: 3600 };

interface SolveOptions {
  vary: string[];
  target?: string;
  atMost?: string;
  atLeast?: string;
  minimize?: string;
  maximize?: string;
  constraint: string[];
  outputs?: string;
  tolerance?: string;
  seed?: string;
  maxIterations?: string;
  timeLimit?: string;
  json?: boolean;
}

class UsageProblem extends Error {}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageProblem(systemErrorText(err, `read ${file}`) ?? `cannot read ${file}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageProblem(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function number(text: string, what: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(n))
    throw new UsageProblem(`${what} expects a number, got '${text}'`);
  return n;
}

/** `$.deposit=0..20000` or `$.years=1..10:1` → the path and its bounds. */
export function parseVary(text: string): [string, { min: number; max: number; step?: number }] {
  const m = /^(.+?)=([^.]+(?:\.\d+)?)\.\.([^:]+)(?::(.+))?$/.exec(text.trim());
  if (!m) throw new UsageProblem(`--vary expects PATH=MIN..MAX or PATH=MIN..MAX:STEP, got '${text}'`);
  const bounds = { min: number(m[2]!, '--vary min'), max: number(m[3]!, '--vary max') };
  return [m[1]!.trim(), m[4] !== undefined ? { ...bounds, step: number(m[4], '--vary step') } : bounds];
}

/** `$.monthlyPayment=400` → the path and the value. */
function pathAndValue(text: string, option: string): [string, number] {
  const eq = text.lastIndexOf('=');
  if (eq <= 0) throw new UsageProblem(`${option} expects PATH=VALUE, got '${text}'`);
  return [text.slice(0, eq).trim(), number(text.slice(eq + 1), option)];
}

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function goalArgs(opts: SolveOptions): Record<string, unknown> {
  const given = [
    opts.target !== undefined && '--target',
    opts.atMost !== undefined && '--at-most',
    opts.atLeast !== undefined && '--at-least',
    opts.minimize !== undefined && '--minimize',
    opts.maximize !== undefined && '--maximize',
  ].filter(Boolean);
  if (given.length !== 1)
    throw new UsageProblem('give one of --target, --at-most, --at-least, --minimize, --maximize');
  if (opts.minimize !== undefined) return { objective: { minimize: opts.minimize } };
  if (opts.maximize !== undefined) return { objective: { maximize: opts.maximize } };
  const [option, kind, text] =
    opts.target !== undefined
      ? ['--target', 'value', opts.target]
      : opts.atMost !== undefined
        ? ['--at-most', 'atMost', opts.atMost]
        : ['--at-least', 'atLeast', opts.atLeast!];
  const [path, value] = pathAndValue(text, option);
  const tolerance = opts.tolerance !== undefined ? { tolerance: number(opts.tolerance, '--tolerance') } : {};
  return { target: { path, [kind]: value, ...tolerance } };
}

const figure = (v: unknown): string =>
  typeof v === 'number' ? Number(v.toPrecision(10)).toString() : JSON.stringify(v);

/** The result as people read it: met or not and why, the inputs found, the outputs there. */
function printResult(r: SolveResult): void {
  const out: string[] = [];
  if (r.target) {
    const goal =
      r.target.value !== undefined
        ? `= ${r.target.value}`
        : r.target.atMost !== undefined
          ? `<= ${r.target.atMost}`
          : `>= ${r.target.atLeast}`;
    out.push(
      `${r.met ? 'met' : 'not met'} (${r.reason}): ${r.target.path} ${goal}, reached ${figure(r.target.achieved)}` +
        (r.met ? '' : `, ${figure(r.target.gap)} short (the closest found)`),
    );
  } else if (r.objective) {
    const kind = r.objective.minimize !== undefined ? 'minimum' : 'maximum';
    const path = r.objective.minimize ?? r.objective.maximize;
    out.push(`${r.met ? kind : 'no feasible point'} (${r.reason}): ${path} = ${figure(r.objective.value)}`);
  }
  for (const [path, v] of Object.entries(r.inputs)) out.push(`  ${path} = ${figure(v)}`);
  for (const [path, v] of Object.entries(r.outputs)) out.push(`  → ${path} = ${figure(v)}`);
  if (r.atBounds.length > 0) out.push(`at a bound: ${r.atBounds.join(', ')}`);
  if (r.broken.length > 0) out.push(`breaks: ${r.broken.join('; ')}`);
  if (r.flagged.length > 0) out.push(`flagged: ${r.flagged.join(', ')}`);
  if (r.stopped) out.push(`stopped early: ${r.stopped}`);
  out.push(`${r.iterations} cycles (seed ${r.seed})`);
  process.stdout.write(`${out.join('\n')}\n`);
}

async function solveFile(file: string, opts: SolveOptions): Promise<number> {
  const { runSolve, solveLimitsFromEnv } = await import('../service/solve/index.js');
  if (opts.vary.length === 0) throw new UsageProblem('give at least one --vary PATH=MIN..MAX');
  // own properties whatever the path says (a path is data, never a key into a prototype)
  const vary = Object.fromEntries(opts.vary.map(parseVary));
  const args = {
    spec: readJson(file),
    vary,
    ...goalArgs(opts),
    ...(opts.constraint.length > 0 ? { constraints: opts.constraint } : {}),
    ...(opts.outputs !== undefined ? { outputs: list(opts.outputs) } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.maxIterations !== undefined
      ? { maxIterations: number(opts.maxIterations, '--max-iterations') }
      : {}),
    ...(opts.timeLimit !== undefined ? { timeLimitSeconds: number(opts.timeLimit, '--time-limit') } : {}),
  };
  let limits;
  try {
    limits = solveLimitsFromEnv(process.env, CLI_DEFAULTS);
  } catch (err) {
    throw new UsageProblem((err as Error).message);
  }
  const noModels = (): Promise<never> => Promise.reject(new Error('no live models'));
  const result = await runSolve(
    { scratchCopy: noModels, getModelInfo: noModels, mutate: noModels },
    args,
    limits,
  );
  if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else printResult(result);
  return result.met ? EXIT.ok : EXIT.failed;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerSolveCommand(calcCommand: Command): void {
  const command = calcCommand
    .command('solve')
    .description(
      'Goal seek or optimise: the inputs that give an output its target, or its minimum or maximum',
    )
    .argument('<spec>', 'ModelSpec JSON file')
    .option('--vary <PATH=MIN..MAX[:STEP]>', 'an input to vary and its bounds (repeat for more)', collect, [])
    .option('--target <PATH=VALUE>', 'the output and the value it should take')
    .option(
      '--at-most <PATH=VALUE>',
      'the output should be at most VALUE (as close to it as the inputs allow)',
    )
    .option('--at-least <PATH=VALUE>', 'the output should be at least VALUE')
    .option('--minimize <PATH>', 'make the output as small as possible')
    .option('--maximize <PATH>', 'make the output as large as possible')
    .option(
      '--constraint <EXPR>',
      'a JSONata expression that must hold at the answer (repeat for more)',
      collect,
      [],
    )
    .option('--outputs <list>', 'more paths to print at the answer, comma-separated')
    .option('--tolerance <n>', 'how close to the target counts as met (default 1e-6 × max(1, |value|))')
    .option('--seed <n>', 'seed of the restart points (the same seed gives the same answer)')
    .option('--max-iterations <n>', 'most model cycles to run (default 5000)')
    .option('--time-limit <seconds>', 'stop with the best point found after this long')
    .option('--json', 'print the whole result as JSON')
    .action(async (file: string, opts: SolveOptions) => {
      const { CalcError } = await import('../calc/index.js');
      try {
        process.exitCode = await solveFile(file, opts);
      } catch (err) {
        if (err instanceof UsageProblem || err instanceof CalcError) {
          const code = err instanceof CalcError && err.code !== 'INVALID_ARGUMENT' ? `${err.code}: ` : '';
          process.stderr.write(`modelworks: ${code}${err.message}\n`);
          process.exitCode = EXIT.usage; // the spec or the question is bad input
        } else {
          process.stderr.write(`modelworks: ${internalErrorText(err, 'solve')}\n${debugDetails(err)}`);
          process.exitCode = EXIT.failed;
        }
      }
    });
  examples(
    command,
    "modelworks calc solve examples/calc/car-loan-calculator.json --vary '$.deposit=0..20000' --target '$.monthlyPayment=400'",
    "modelworks calc solve examples/calc/car-loan-calculator.json --vary '$.years=1..10' --vary '$.deposit=0..10000:500' --minimize '$.costOfCredit' --constraint 'monthlyPayment <= 450'",
  );
}
