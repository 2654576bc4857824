/**
 * What `modelworks mcp`'s tools and resources work with: the store and the calc service (or the
 * REST client of remote mode), the synth group, the effect executors, the guidance topics. Over
 * stdio they are built while the server already answers `initialize` (issue 45): mcp-action.ts
 * imports this module without waiting, and a setting refused here still stops the process with
 * exit 2 and the same one-line message, a moment after start.
 */
import type { ToolDefinition } from '../mcp/tool.js';
import type { McpServices } from '../mcp/server-options.js';
import type { CalcApi } from '../service/calc-api.js';
import { CalcService, type CalcObserver } from '../service/calc-service.js';
import { loadGuidanceTopics } from '../service/guidance/catalog.js';
import { openStore } from '../store/open-store.js';
import { sheetWorkers } from '../service/sheet-workers.js';
import { effectSettingsFromEnv, startEffectExecutors } from '../service/effects/index.js';
import { synthMcpGroup, type SynthMcpGroup } from '../mcp/synth-setup.js';
import { warnings, type Logger } from '../observability/logger.js';
import type { ServerMetrics } from '../observability/metrics.js';
import { CardRunner } from '../service/card-runner.js';
import { llmClientFromEnv } from '../llm/index.js';
import { SpecGenerator } from '../service/generate.js';
import type { McpOptions } from './mcp-options.js';

const log = (message: string): void => {
  process.stderr.write(`modelworks: ${message}\n`);
};

/** The services of one `modelworks mcp` process, shared by all its sessions. */
export interface McpProcessServices {
  services: McpServices;
  calc: CalcApi & { close(): Promise<void> };
  /** The embedded service (its subscriptions feed the metrics of `mcp --http`); none in remote mode. */
  embedded: CalcService | undefined;
  synth: SynthMcpGroup | undefined;
  /** Server effects' executors (embedded mode only) and the llm effects' sampling. */
  started: ReturnType<typeof startEffectExecutors> | undefined;
  /** Stops everything above, in order. */
  close(): Promise<void>;
}

/** A setting or the store refused: the message the process stops with (exit 2). */
export class McpStartRefused extends Error {
  override name = 'McpStartRefused';
}

/** The calc operations: a REST client in remote mode, else the embedded service on a store. */
async function openCalc(
  opts: McpOptions,
  observer?: CalcObserver,
): Promise<{ calc: CalcApi & { close(): Promise<void> }; modeLine: string; tools?: ToolDefinition[] }> {
  const url = opts.url ?? process.env.MODELWORKS_SERVER_URL;
  if (opts.browser && !url) log('--browser needs --url (a `modelworks serve` server); running embedded');
  if (url && opts.browser) {
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error('not http(s)');
    } catch {
      throw new Error(`--url must be an http(s) URL (got '${url}')`);
    }
    const apiKey = opts.apiKey ?? process.env.MODELWORKS_API_KEY;
    const [{ BrowserPairing }, { BrowserCalc }, { pairBrowserTool }] = await Promise.all([
      import('../remote/browser-pairing.js'),
      import('../remote/browser-calc.js'),
      import('../mcp/pair-tool.js'),
    ]);
    const pairing = new BrowserPairing({ baseUrl: url, apiKey });
    return {
      calc: new BrowserCalc(pairing, { url, apiKey }),
      modeLine: `remote mode with a browser, ${url.replace(/\/+$/, '')}`,
      tools: [pairBrowserTool(pairing)],
    };
  }
  if (url) {
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error('not http(s)');
    } catch {
      throw new Error(`--url must be an http(s) URL (got '${url}')`);
    }
    const { CalcClient } = await import('../remote/calc-client.js');
    const calc = new CalcClient({ url, apiKey: opts.apiKey ?? process.env.MODELWORKS_API_KEY });
    return { calc, modeLine: `remote mode, ${calc.baseUrl}` };
  }
  let store;
  try {
    store = await openStore(opts.store ?? process.env.MODELWORKS_STORE);
  } catch (err) {
    throw new Error(`cannot open the store: ${(err as Error).message}`);
  }
  return {
    calc: new CalcService(store, observer ? { observer } : {}),
    modeLine: `embedded mode, ${store.kind} store`,
  };
}

/**
 * Checks the settings (MODELWORKS_SHEET_*, _EFFECT*, _LLM_*, the synth ones), opens the store and
 * builds the services; a refusal rejects with McpStartRefused, after closing what was opened.
 */
export async function startMcpServices(input: {
  opts: McpOptions;
  env: NodeJS.ProcessEnv;
  groups: ReadonlySet<'calc' | 'synth'>;
  logger: Logger;
  metrics: ServerMetrics | false;
}): Promise<McpProcessServices> {
  const { opts, env, groups, logger, metrics } = input;
  const refused = (err: unknown) => new McpStartRefused((err as Error).message);
  let effectSettings;
  let llm;
  try {
    if (groups.has('calc')) sheetWorkers(); // MODELWORKS_SHEET_* budgets: a bad value stops the server
    effectSettings = effectSettingsFromEnv(env); // MODELWORKS_EFFECT*: likewise (issue 23)
    llm = llmClientFromEnv(env); // MODELWORKS_LLM_*: likewise (docs/generate.md)
  } catch (err) {
    throw refused(err);
  }
  let opened;
  try {
    opened = await openCalc(opts, metrics ? metrics.calcObserver : undefined);
  } catch (err) {
    throw refused(err);
  }
  let synth: SynthMcpGroup | undefined;
  try {
    if (groups.has('synth')) synth = synthMcpGroup(env, warnings(logger), opts.edition);
  } catch (err) {
    await opened.calc.close();
    throw refused(err);
  }
  const calc = opened.calc;
  // embedded mode runs server effects itself (remote mode: the server it calls runs them)
  const started =
    calc instanceof CalcService
      ? startEffectExecutors(calc, effectSettings, warnings(logger), llm)
      : undefined;
  if (metrics && started) {
    const counted = metrics;
    started.runner.onSettled((s) => counted.effectSettled(s.executor, s.phase));
  }
  const guidanceTopics = loadGuidanceTopics(
    process.env.MODELWORKS_DOMAIN_GUIDANCE_TOPICS_FILE,
    warnings(logger),
  );
  const services: McpServices = {
    calc,
    guidanceTopics,
    modeLine: `${opened.modeLine}${synth ? `, ${synth.describe}` : ''}`,
    // one card runner for every session of this process, so they share compiled specs
    cards: { runner: new CardRunner() },
    generator: new SpecGenerator(llm, guidanceTopics),
    extraTools: [...(opened.tools ?? []), ...(synth?.tools ?? [])],
    ...(synth ? { extraResources: [synth.resources] } : {}),
    ...(started ? { sampling: started.llm.inBand } : {}),
  };
  return {
    services,
    calc,
    embedded: calc instanceof CalcService ? calc : undefined,
    synth,
    started,
    async close() {
      await started?.runner.stop();
      await synth?.close();
      await calc.close();
    },
  };
}
