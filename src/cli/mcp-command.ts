/**
 * Registers `modelworks mcp`: the MCP server over stdio (default) or Streamable HTTP (`--http`, or
 * MODELWORKS_MCP_TRANSPORT=http; bind and port also from MODELWORKS_MCP_HTTP_BIND/_PORT). The
 * server's modules (mcp-action.ts) are loaded when the command runs, not at start-up.
 */
import type { Command } from 'commander';
import { addLogLevelOption } from './serve-command.js';
import type { McpOptions } from './mcp-options.js';
import { examples } from './help-text.js';
import { editionOption } from './synth-edition.js';

export function registerMcpCommand(program: Command): void {
  const command = program
    .command('mcp')
    .description('Run the MCP server: stdio by default, Streamable HTTP at /mcp with --http')
    .option('--http', 'serve Streamable HTTP instead of stdio (also MODELWORKS_MCP_TRANSPORT=http)')
    .option('--host <host>', 'HTTP bind address (default MODELWORKS_MCP_HTTP_BIND or 127.0.0.1)')
    .option('--port <port>', 'HTTP port, 0 = any free port (default MODELWORKS_MCP_HTTP_PORT or 8086)')
    .option('--tools <groups>', 'tool groups to offer: calc, synth or calc,synth', 'calc,synth')
    .option(
      '--store <store>',
      'where models live: sqlite:PATH (default: a file under the user data directory), memory, or postgres://…; also MODELWORKS_STORE',
    )
    .option(
      '--url <url>',
      'remote mode: send every model tool to a `modelworks serve` server (also MODELWORKS_SERVER_URL)',
    )
    .option('--api-key <key>', "the remote server's API key (prefer MODELWORKS_API_KEY)")
    .option('--browser', 'with --url: pair with a browser sandbox first (adds the pair_browser tool)')
    .addOption(
      editionOption('synth tools: full (every component) or free (the Free edition gates, as grind)'),
    );
  addLogLevelOption(command).action(async (opts: McpOptions) => {
    const { runMcp } = await import('./mcp-action.js');
    await runMcp(opts);
  });
  examples(
    command,
    'modelworks mcp',
    'modelworks mcp --http --port 8086 --tools calc',
    'modelworks mcp --url http://127.0.0.1:8080 --browser',
  );
}
