/** What a server is made with (server.ts); the tool catalogue (tool-catalog.ts) reads it too. */
import type { CalcApi } from '../service/calc-api.js';
import type { CardRunner } from '../service/card-runner.js';
import type { SamplingQueue } from '../service/effects/sampling-queue.js';
import type { SpecGenerator } from '../service/generate.js';
import type { GuidanceTopic } from '../service/guidance/topics.js';
import type { InputLimits } from '../service/input-limits.js';
import type { ShareLinks } from '../service/share-links.js';
import type { ResourceProvider } from './resource-provider.js';
import type { ToolDefinition } from './tool.js';

export interface McpServerOptions {
  /** The embedded CalcService, or a REST client in remote mode. */
  calc: CalcApi;
  guidanceTopics: readonly GuidanceTopic[];
  /** Which tool groups to offer. */
  groups: ReadonlySet<'calc' | 'synth'>;
  /** Extra tools (e.g. synth) registered by their own modules. */
  extraTools?: ToolDefinition[];
  /** Keys, nesting and write size of tool arguments; default from the environment (input-limits.ts). */
  inputLimits?: InputLimits;
  /** Extra static resources (e.g. synth's guides), listed and read alongside calc's. */
  extraResources?: ResourceProvider[];
  /** Instructions for the extra tools, appended to (or, without calc, replacing) calc's. */
  extraInstructions?: string;
  /** One line for the readiness log, e.g. "embedded mode, memory store". */
  modeLine: string;
  /**
   * Model cards: the runner and share links when served. The process that makes a server per
   * session passes one runner to all of them, so sessions share compiled specs; without one, the
   * server makes its own.
   */
  cards?: { runner?: CardRunner; shareLinks?: ShareLinks };
  /** The conformance suite's fixture tools; default MODELWORKS_MCP_CONFORMANCE_FIXTURES. */
  conformanceFixtures?: boolean;
  /** generate_model's provider (docs/generate.md); default none configured (the tool says how). */
  generator?: SpecGenerator;
  /** llm effects' completions waiting for a 2026-07-28 client that samples (input-required.ts). */
  sampling?: SamplingQueue;
  /** The era the instance serves when the entry knows it: 2026-07-28 adds the Tasks extension. */
  era?: 'legacy' | 'modern';
}

/**
 * What the tools and resources work with. `modelworks mcp` over stdio answers `initialize` before
 * it has built these (the store, the services, the synth group: issue 45), so a server can be made
 * with a promise of them (createDeferredMcpServer); every handler that needs them awaits it.
 */
export type McpServices = Pick<
  McpServerOptions,
  | 'calc'
  | 'guidanceTopics'
  | 'extraTools'
  | 'extraResources'
  | 'modeLine'
  | 'cards'
  | 'generator'
  | 'sampling'
>;

/** What a server needs at once: the capabilities and instructions `initialize` answers with. */
export type McpServerBase = Omit<McpServerOptions, keyof McpServices>;
