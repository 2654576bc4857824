/** The parsed options of `modelworks mcp` (mcp-command.ts registers them, mcp-action.ts runs them). */
import type { Edition } from '../synth/index.js';

export interface McpOptions {
  http?: boolean;
  host?: string;
  port?: string;
  tools: string;
  store?: string;
  url?: string;
  apiKey?: string;
  browser?: boolean;
  /** The synth tools' edition: full (default) or free. */
  edition?: Edition;
  /** Unset: MODELWORKS_LOG_LEVEL, else warn. */
  logLevel?: string;
}
