#!/usr/bin/env node
/**
 * The `modelworks` command: one program, a sub-command group per engine. Registering the commands
 * loads no engine, store or server: each command's action loads what it uses when it runs, so
 * `--version`, `--help` and usage errors start as fast as commander itself.
 *
 * Exit codes and failure lines follow one policy (cli-errors.ts, docs/cli.md "Exit codes").
 */
import { Command } from 'commander';
import { calcBudgetsSet } from './calc-budget-settings.js';
import {
  EXIT,
  debugDetails,
  internalErrorText,
  reportFailure,
  setDebug,
  usageErrorOutput,
} from './cli-errors.js';
import { examples } from './help-text.js';
import { registerMcpCommand } from './mcp-command.js';
import { readPackageVersion } from '../version.js';

const program = new Command('modelworks')
  .version(readPackageVersion(), '-V, --version')
  .option('--debug', 'on a failure, also print the stack trace (for bug reports)')
  .configureOutput(usageErrorOutput('modelworks'))
  .exitOverride((err) => {
    // commander's own usage errors exit 2 (usage); --help and --version exit 0.
    process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
  });
examples(
  program,
  'modelworks calc test examples/calc/car-loan-calculator.json',
  'modelworks synth grind examples/synth/support-queue.xml --count 10 --header',
  'modelworks serve --port 8080',
  'modelworks synth grind --help',
);

program.hook('preAction', async () => {
  setDebug(program.opts<{ debug?: boolean }>().debug === true);
  // with no budget set there is nothing to configure, and the engine stays unloaded
  if (!calcBudgetsSet(process.env)) return;
  try {
    const { applyCalcBudgets } = await import('./calc-budgets.js');
    applyCalcBudgets(process.env);
  } catch (err) {
    reportFailure('modelworks', (err as Error).message, err);
    process.exit(EXIT.usage);
  }
});

// `modelworks mcp …` is started by an MCP client that waits for its answer to `initialize`
// (issue 45): the other commands' modules and definitions (some 150 options) are not loaded for
// it. Commander parses and helps `mcp` from its own definition either way; with anything before
// `mcp` (--debug) every command is registered, as for the other commands.
if (process.argv[2] === 'mcp') registerMcpCommand(program);
else (await import('./all-commands.js')).registerCommands(program);

/** A fault no command caught: one line (the stack with --debug), exit 1. */
function internalFailure(err: unknown): void {
  process.stderr.write(
    `modelworks: ${internalErrorText(err, 'finish the command')}${debugDetails(err) ? `\n${debugDetails(err)}` : ' (--debug prints the details)\n'}`,
  );
}
// a reader that stops early (`| head`) closes the pipe: that ends the command quietly, as it does
// for other Unix tools, rather than as an internal error
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  internalFailure(err);
  process.exit(EXIT.failed);
});
// a server's late failure, after its command returned, reaches the terminal the same way
process.on('uncaughtException', (err) => {
  internalFailure(err);
  process.exit(EXIT.failed);
});

try {
  await program.parseAsync(process.argv);
} catch (err) {
  internalFailure(err);
  process.exitCode = EXIT.failed;
}
