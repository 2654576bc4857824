/** `modelworks calc …`: validate, test, eval and dry-run specs from the command line. */
import type { Command } from 'commander';

export function registerCalcCommands(program: Command): void {
  program.command('calc').description('Reactive models: validate, test, evaluate and dry-run ModelSpecs');
}
