/**
 * Budgets that keep one model from taking a shared process's memory, stack or time: checked while
 * a model loads and its nodes are configured, before anything sized by the model is allocated.
 * Pure data here; surfaces read the settings (MODELWORKS_SYNTH_*) and pass them in LoadOptions.
 */

/** Per-model budgets; every field has a documented default in DEFAULT_LIMITS. */
export interface SynthLimits {
  /**
   * Widest observation any node may produce (its columns), and the most entries one value may
   * pack (NachaFileAssembler `count`).
   */
  readonly maxColumns: number;
  /**
   * Largest count one node may loop over for a single value or hold in a table it builds: Zipf
   * `n`, Binomial `n` (standard mode), Hypergeometric `population`/`draws`, Multinomial `trials`,
   * Truncate `maxAttempts`, Pool `interleave` times its columns.
   */
  readonly maxEntries: number;
  /** Largest ServiceCall `timeoutMs`. */
  readonly serviceCallMaxTimeoutMs: number;
  /** Largest ServiceCall `maxRounds`. */
  readonly serviceCallMaxRounds: number;
  /** Most response text one ServiceCall may collect over all its rounds (UTF-16 characters). */
  readonly serviceCallMaxChars: number;
}

export const DEFAULT_LIMITS: SynthLimits = Object.freeze({
  maxColumns: 10_000,
  maxEntries: 1_000_000,
  serviceCallMaxTimeoutMs: 30_000,
  serviceCallMaxRounds: 100,
  serviceCallMaxChars: 16 * 1024 * 1024,
});

/** The setting behind each budget, named in every refusal. */
export const LIMIT_SETTINGS: Readonly<Record<keyof SynthLimits, string>> = Object.freeze({
  maxColumns: 'MODELWORKS_SYNTH_MAX_COLUMNS',
  maxEntries: 'MODELWORKS_SYNTH_MAX_ENTRIES',
  serviceCallMaxTimeoutMs: 'MODELWORKS_SYNTH_SERVICE_CALL_MAX_TIMEOUT_MS',
  serviceCallMaxRounds: 'MODELWORKS_SYNTH_SERVICE_CALL_MAX_ROUNDS',
  serviceCallMaxChars: 'MODELWORKS_SYNTH_SERVICE_CALL_MAX_CHARS',
});

/**
 * Most levels from the root to a generator, following inputs and collaborate links. A fixed
 * limit, not a setting: loading and pulling a row recurse once per level, and a deeper chain would
 * run out of stack instead of failing cleanly.
 */
export const MAX_MODEL_DEPTH = 1000;

/** The effective limits: the defaults overlaid with whatever the caller set. */
export function limitsOf(partial: Partial<SynthLimits> | undefined): SynthLimits {
  return partial === undefined ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, ...partial };
}

/** The refusal text of a value over a budget, naming the setting that raises it. */
export function overLimit(
  what: string,
  value: number,
  limit: keyof SynthLimits,
  limits: SynthLimits,
): string {
  return `${what} ${value} is over this server's limit of ${limits[limit]} (${LIMIT_SETTINGS[limit]})`;
}
