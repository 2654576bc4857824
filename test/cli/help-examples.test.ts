// Every command's --help ends with examples of that command (docs/cli.md). The commands are
// listed from the registration modules themselves, so a command added later is held to it too.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerAuditCommands } from '../../src/cli/audit-command.js';
import { registerCalcCommands } from '../../src/cli/calc-commands.js';
import { registerConsoleCommand } from '../../src/cli/console-command.js';
import { registerMcpCommand } from '../../src/cli/mcp-command.js';
import { registerServeCommand } from '../../src/cli/serve-command.js';
import { registerSheetCommands } from '../../src/cli/sheet-commands.js';
import { registerSynthCommands } from '../../src/cli/synth-commands.js';
import { run } from './cli-process.js';

const program = new Command('modelworks');
const calc = registerCalcCommands(program);
registerSheetCommands(calc);
registerConsoleCommand(calc);
registerMcpCommand(program);
registerServeCommand(program);
registerSynthCommands(program);
registerAuditCommands(program);

function paths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}
const commands = [[], ...paths(program)];

describe('--help', { timeout: 120_000 }, () => {
  it('lists the commands it checks', () => {
    expect(commands.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining([
        'calc from-xlsx',
        'calc console',
        'mcp',
        'serve',
        'synth grind',
        'synth serve',
      ]),
    );
    expect(commands.length).toBeGreaterThanOrEqual(18);
  });

  it.each(commands.map((p) => [p.join(' ') || '(the program)', p] as const))(
    '%s shows examples of itself',
    (_name, path) => {
      const r = run([...path, '--help']);
      expect(r.code).toBe(0);
      const section = r.stdout.split('\nExamples:\n')[1];
      expect(section, r.stdout).toBeDefined();
      const lines = section!.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(0);
      // each example is a shell line running the command it documents (the program: any command)
      for (const line of lines) expect(line).toMatch(/^ {2}\$ /);
      expect(lines.some((l) => l.includes(['modelworks', ...path].join(' ')))).toBe(true);
    },
  );
});
