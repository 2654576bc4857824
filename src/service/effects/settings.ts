/**
 * The effect runner's settings (issue 23), read once by `serve` and `mcp`. A malformed value is an
 * error naming the variable, so the process refuses to start rather than guess.
 */
import { intSetting } from '../synth-settings.js';

export const EFFECT_ENV = {
  enabled: 'MODELWORKS_EFFECTS',
  egressAllowlist: 'MODELWORKS_EFFECT_EGRESS_ALLOWLIST',
  maxResponseBytes: 'MODELWORKS_EFFECT_MAX_RESPONSE_BYTES',
  leaseMs: 'MODELWORKS_EFFECT_LEASE_MS',
} as const;

/** 30 s: how long a run's lease lasts unless its process renews it (a crashed one's runs wait this long). */
export const DEFAULT_LEASE_MS = 30_000;

/** 1 MiB: a reply worth folding back into a model is small. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export interface EffectSettings {
  /** Whether the runner starts. On by default: the empty allowlist already blocks every call. */
  enabled: boolean;
  /** Origins (`scheme://host:port`) server effects may call; empty blocks them all. */
  egressAllowlist: string[];
  /** The largest response body read; a bigger one fails the effect. */
  maxResponseBytes: number;
  /** A run's lease (ms): renewed every third of it; a crashed process's runs are re-driven after it. */
  leaseMs?: number;
}

/** An origin as URL normalises it (default ports dropped, host lower-cased). */
function origin(text: string, name: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name} lists '${text}', which is not an origin such as http://127.0.0.1:9000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${name} lists '${text}': only http and https origins can be allowed`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username)
    throw new Error(`${name} lists '${text}': give an origin only (scheme, host and port), no path`);
  return url.origin;
}

/** @throws Error naming the variable when a value is malformed */
export function effectSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): EffectSettings {
  const flag = (env[EFFECT_ENV.enabled] ?? '').trim().toLowerCase();
  if (flag !== '' && flag !== 'on' && flag !== 'off')
    throw new Error(`${EFFECT_ENV.enabled} must be on or off (got '${env[EFFECT_ENV.enabled]}')`);
  const egressAllowlist = (env[EFFECT_ENV.egressAllowlist] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => origin(s, EFFECT_ENV.egressAllowlist));
  return {
    enabled: flag !== 'off',
    egressAllowlist,
    maxResponseBytes: intSetting(env, EFFECT_ENV.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 'bytes'),
    leaseMs: intSetting(env, EFFECT_ENV.leaseMs, DEFAULT_LEASE_MS, 'milliseconds', 24 * 3600 * 1000),
  };
}
