/** The effect runner as `serve` and `mcp` start it (issue 23). */
import type { CalcService } from '../calc-service.js';
import { EffectRunner } from './runner.js';
import { ServerExecutor } from './server-executor.js';
import type { EffectSettings } from './settings.js';

export { EffectRunner, type EffectSettled } from './runner.js';
export { ServerExecutor, backoffMs } from './server-executor.js';
export { effectSettingsFromEnv, EFFECT_ENV, type EffectSettings } from './settings.js';
export type { EffectExecutor, ExecutorOutcome } from './executor.js';

/** A started runner with the executors the settings enable, or undefined when effects are off. */
export function startEffects(
  calc: CalcService,
  settings: EffectSettings,
  warn: (message: string) => void,
): EffectRunner | undefined {
  if (!settings.enabled) return undefined;
  const server = new ServerExecutor({
    egressAllowlist: settings.egressAllowlist,
    maxResponseBytes: settings.maxResponseBytes,
  });
  return new EffectRunner(calc, { executors: [server], warn }).start();
}
