/**
 * The `--log-level` option every server command takes alike (`serve`, `mcp`, `synth serve`).
 * Spelled out here rather than imported from the logger, so registering commands loads no pino.
 */
import type { Command } from 'commander';

export function addLogLevelOption(command: Command): Command {
  // no commander default: an unset option lets MODELWORKS_LOG_LEVEL decide (logLevelFrom)
  return command.option(
    '--log-level <level>',
    'log level of the JSON log lines on stderr: silent, fatal, error, warn, info, debug, trace (default warn; also MODELWORKS_LOG_LEVEL)',
  );
}
