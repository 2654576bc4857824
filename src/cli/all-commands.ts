/**
 * Registers every `modelworks` command. main.ts loads this module for any command line but
 * `modelworks mcp …`, which registers only its own command (issue 45: an MCP client waits for its
 * answer to `initialize`).
 */
import type { Command } from 'commander';
import { registerAuditCommands } from './audit-command.js';
import { registerCalcCommands } from './calc-commands.js';
import { registerConsoleCommand } from './console-command.js';
import { registerGenerateCommand } from './generate-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerSheetCommands } from './sheet-commands.js';
import { registerSimulateCommand } from './simulate-command.js';
import { registerSolveCommand } from './solve-command.js';
import { registerSynthCommands } from './synth-commands.js';

/** Every command, in the order `modelworks --help` lists them. */
export function registerCommands(program: Command): void {
  const calcGroup = registerCalcCommands(program);
  registerSheetCommands(calcGroup);
  registerSimulateCommand(calcGroup);
  registerSolveCommand(calcGroup);
  registerGenerateCommand(calcGroup);
  registerConsoleCommand(calcGroup);
  registerMcpCommand(program);
  registerServeCommand(program);
  registerSynthCommands(program);
  registerAuditCommands(program);
}
