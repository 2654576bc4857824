/**
 * The synth budgets as settings: each has a documented default and a MODELWORKS_SYNTH_* variable,
 * read once where a surface is configured (the MCP server, `synth serve`, the CLI). A malformed
 * value is an error naming the variable, so the process refuses to start rather than guess.
 */
import { DEFAULT_LIMITS, LIMIT_SETTINGS, type SynthLimits } from '../synth/index.js';
import { MAX_GENERATION_BYTES } from './synth-generation.js';

const MiB = 1024 * 1024;

export const SYNTH_BUDGET_ENV = {
  embeddedMaxBytes: 'MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES',
  embeddedCacheMaxBytes: 'MODELWORKS_SYNTH_EMBEDDED_CACHE_MAX_BYTES',
  serviceMaxBytes: 'MODELWORKS_SYNTH_SERVICE_MAX_BYTES',
  serviceCacheMaxBytes: 'MODELWORKS_SYNTH_CACHE_MAX_BYTES',
} as const;

/** Defaults of the byte budgets (the engine's own limits are in DEFAULT_LIMITS). */
export const DEFAULT_BUDGETS = {
  /** One embedded generation. */
  embeddedMaxBytes: 64 * MiB,
  /** Every embedded generation kept for paging, together (at least one generation's cap). */
  embeddedCacheMaxBytes: 128 * MiB,
  /** One Service generation. */
  serviceMaxBytes: 256 * MiB,
  /** Every Service generation kept for paging, together (at least one generation's cap). */
  serviceCacheMaxBytes: 256 * MiB,
} as const;

/**
 * A positive integer setting; unset or blank gives `fallback`.
 * @throws Error naming the variable when the value is not an integer from 1 to `max`
 */
export function intSetting(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  what: string,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const t = text.trim();
  if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > max)
    throw new Error(`${name} must be a positive number of ${what} up to ${max} (got '${text}')`);
  return Number(t);
}

/** A byte-size setting (1 .. 4 GiB - 1, the most one generation can index). */
export function bytesSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return intSetting(env, name, fallback, 'bytes', MAX_GENERATION_BYTES);
}

/** The engine's budgets from MODELWORKS_SYNTH_MAX_COLUMNS, …_MAX_ENTRIES and the ServiceCall caps. */
export function limitsFromEnv(env: NodeJS.ProcessEnv): SynthLimits {
  const read = (key: keyof SynthLimits, what: string): number =>
    intSetting(env, LIMIT_SETTINGS[key], DEFAULT_LIMITS[key], what);
  return {
    maxColumns: read('maxColumns', 'columns'),
    maxEntries: read('maxEntries', 'entries'),
    serviceCallMaxTimeoutMs: read('serviceCallMaxTimeoutMs', 'milliseconds'),
    serviceCallMaxRounds: read('serviceCallMaxRounds', 'rounds'),
    serviceCallMaxChars: read('serviceCallMaxChars', 'characters'),
  };
}

/**
 * A cache budget: the setting when given (it must hold at least one generation of `perGeneration`
 * bytes), else the larger of its default and `perGeneration`.
 * @throws Error naming both settings when the cache could not hold one generation
 */
export function cacheBudget(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  perGeneration: number,
  perGenerationSetting: string,
): number {
  if ((env[name] ?? '').trim() === '') return Math.max(fallback, perGeneration);
  const given = bytesSetting(env, name, fallback);
  if (given < perGeneration)
    throw new Error(
      `${name} (${given} bytes) must be at least one generation's cap, ${perGeneration} bytes (${perGenerationSetting})`,
    );
  return given;
}
