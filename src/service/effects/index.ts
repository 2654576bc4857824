/** The effect runner as `serve` and `mcp` start it (issue 23). */
import type { CalcService } from '../calc-service.js';
import type { LlmClient } from '../../llm/index.js';
import { LlmExecutor } from './llm-executor.js';
import { providerRoute } from './llm-provider-route.js';
import { localLinks } from './model-links.js';
import { EffectRunner } from './runner.js';
import { ServerExecutor } from './server-executor.js';
import type { EffectSettings } from './settings.js';
import { TimerExecutor } from './timer-executor.js';

export { EffectRunner, effectLeasesOf, type EffectSettled } from './runner.js';
export { ServerExecutor, backoffMs } from './server-executor.js';
export { TimerExecutor, timerDueAt } from './timer-executor.js';
export { LlmExecutor } from './llm-executor.js';
export { providerRoute, type ProviderRoute } from './llm-provider-route.js';
export { localLinks, type LinkRunner } from './model-links.js';
export { pendingEffects, type PendingEffect } from './pending.js';
export { effectSettingsFromEnv, EFFECT_ENV, type EffectSettings } from './settings.js';
export type { EffectExecutor, ExecutorOutcome } from './executor.js';

/** A started runner and its llm executor (which `mcp` gives each connection's server). */
export interface StartedEffects {
  runner: EffectRunner;
  llm: LlmExecutor;
}

/**
 * A started runner with every executor (server calls stay blocked until the egress allowlist names
 * an origin; llm effects until a sampling client connects), or undefined when effects are off.
 */
export function startEffects(
  calc: CalcService,
  settings: EffectSettings,
  warn: (message: string) => void,
  llm?: LlmClient,
): EffectRunner | undefined {
  return startEffectExecutors(calc, settings, warn, llm)?.runner;
}

/**
 * `startEffects`, also handing back the llm executor. With `llm` (a configured provider) llm effects
 * are answered by it, before MCP sampling is considered (docs/effects.md).
 */
export function startEffectExecutors(
  calc: CalcService,
  settings: EffectSettings,
  warn: (message: string) => void,
  llm?: LlmClient,
): StartedEffects | undefined {
  if (!settings.enabled) return undefined;
  const server = new ServerExecutor({
    egressAllowlist: settings.egressAllowlist,
    maxResponseBytes: settings.maxResponseBytes,
    links: localLinks(calc),
  });
  const llmExecutor = new LlmExecutor(llm ? providerRoute(llm) : undefined);
  const executors = [server, new TimerExecutor(), llmExecutor];
  const runner = new EffectRunner(calc, {
    executors,
    warn,
    ...(settings.leaseMs !== undefined ? { leaseMs: settings.leaseMs } : {}),
  }).start();
  return { runner, llm: llmExecutor };
}
