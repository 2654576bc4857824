/** Registers `modelworks calc console`; the session itself (console.ts) is loaded when it starts. */
import type { Command } from 'commander';
import type { ConsoleOptions } from './console.js';
import { examples } from './help-text.js';

export function registerConsoleCommand(calcGroup: Command): void {
  const command = calcGroup
    .command('console')
    .description('Interactive shell on the models: one command per operation, Tab completion, history')
    .option('--url <url>', 'work on a `modelworks serve` server (also MODELWORKS_SERVER_URL)')
    .option('--api-key <key>', "the server's API key (prefer MODELWORKS_API_KEY)")
    .option('--store <store>', 'embedded store: sqlite:PATH, memory or postgres://… (also MODELWORKS_STORE)')
    .action(async (opts: ConsoleOptions) => {
      const { runConsole } = await import('./console.js');
      await runConsole(opts);
    });
  examples(
    command,
    'modelworks calc console --store sqlite:models.db',
    'MODELWORKS_API_KEY=… modelworks calc console --url http://127.0.0.1:8080',
  );
}
