#!/usr/bin/env node
/**
 * The `modelworks` command: one program, a sub-command group per engine. Registering the commands
 * loads no engine, store or server: each command's action loads what it uses when it runs, so
 * `--version`, `--help` and usage errors start as fast as commander itself.
 */
import { Command } from 'commander';
import { calcBudgetsSet } from './calc-budget-settings.js';
import { registerCalcCommands } from './calc-commands.js';
import { registerConsoleCommand } from './console-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerSheetCommands } from './sheet-commands.js';
import { registerSynthCommands } from './synth-commands.js';
import { readPackageVersion } from '../version.js';

const program = new Command('modelworks')
  .version(readPackageVersion(), '-V, --version')
  .showHelpAfterError()
  .exitOverride((err) => {
    // commander's own usage errors exit 2 (usage); --help and --version exit 0.
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

program.hook('preAction', async () => {
  // with no budget set there is nothing to configure, and the engine stays unloaded
  if (!calcBudgetsSet(process.env)) return;
  try {
    const { applyCalcBudgets } = await import('./calc-budgets.js');
    applyCalcBudgets(process.env);
  } catch (err) {
    process.stderr.write(`modelworks: ${(err as Error).message}\n`);
    process.exit(2);
  }
});

const calcGroup = registerCalcCommands(program);
registerSheetCommands(calcGroup);
registerConsoleCommand(calcGroup);
registerMcpCommand(program);
registerServeCommand(program);
registerSynthCommands(program);

await program.parseAsync(process.argv);
