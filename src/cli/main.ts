#!/usr/bin/env node
/** The `modelworks` command: one program, a sub-command group per engine. */
import { Command } from 'commander';
import { applyCalcBudgets } from './calc-budgets.js';
import { registerCalcCommands } from './calc-commands.js';
import { registerConsoleCommand } from './console.js';
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

program.hook('preAction', () => {
  try {
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
