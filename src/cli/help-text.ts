/** Examples under every command's `--help`. Loaded at start-up, so it imports nothing. */
import type { Command } from 'commander';

/** Adds an "Examples:" section after the command's help; each example is a shell line. */
export function examples(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}
