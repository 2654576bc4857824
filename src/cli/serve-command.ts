/**
 * Registers `modelworks serve`: the REST API, WebSocket subscriptions and /mcp on one Fastify
 * server. The server's modules (serve-action.ts) are loaded when the command runs, not at start-up.
 */
import type { Command } from 'commander';
import type { ServeOptions } from './serve-action.js';
import { examples } from './help-text.js';

export function registerServeCommand(program: Command): void {
  const command = program
    .command('serve')
    .description('Serve the REST API, WebSocket subscriptions and MCP (/mcp) over HTTP')
    .option('--host <host>', 'bind address', '127.0.0.1')
    .option('--port <port>', 'port (0 = any free port)', '8080')
    .option(
      '--store <store>',
      'where models live: sqlite:PATH (default: a file under the user data directory), memory, or postgres://…; also MODELWORKS_STORE',
    );
  addLogLevelOption(command).action(async (opts: ServeOptions) => {
    const { runServe } = await import('./serve-action.js');
    await runServe(opts);
  });
  examples(
    command,
    'modelworks serve',
    'MODELWORKS_API_KEY=secret modelworks serve --host 0.0.0.0 --port 8080 --store sqlite:models.db',
  );
}

/**
 * The `--log-level` option every server command takes alike (`serve`, `mcp`, `synth serve`).
 * Spelled out here rather than imported from the logger, so registering commands loads no pino.
 */
export function addLogLevelOption(command: Command): Command {
  // no commander default: an unset option lets MODELWORKS_LOG_LEVEL decide (logLevelFrom)
  return command.option(
    '--log-level <level>',
    'log level of the JSON log lines on stderr: silent, fatal, error, warn, info, debug, trace (default warn; also MODELWORKS_LOG_LEVEL)',
  );
}
