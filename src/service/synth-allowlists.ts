/**
 * Where the synth allowlists come from: an optional JSON file (MODELWORKS_SYNTH_ALLOWLISTS_FILE,
 * the four fields of `Allowlists`) and environment variables that add to it. List variables are
 * comma-separated. Anything malformed is an error naming the setting, never a silent default.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { type Allowlists, CLOSED_ALLOWLISTS } from '../synth/access/allowlists.js';

export const ALLOWLIST_ENV = {
  file: 'MODELWORKS_SYNTH_ALLOWLISTS_FILE',
  flatFilePaths: 'MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST',
  databaseUrls: 'MODELWORKS_SYNTH_DATABASE_URL_ALLOWLIST',
  databaseAllowQuery: 'MODELWORKS_SYNTH_DATABASE_ALLOW_QUERY',
  serviceUrls: 'MODELWORKS_SYNTH_SERVICE_URL_ALLOWLIST',
  customComponentDirs: 'MODELWORKS_SYNTH_CUSTOM_COMPONENT_DIR_ALLOWLIST',
} as const;

/**
 * Absolute folders custom component modules may be loaded from (comma-separated); empty, the
 * default, allows none.
 * @throws Error naming the variable when an entry is not an absolute path
 */
export function customComponentDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = list(env[ALLOWLIST_ENV.customComponentDirs]);
  const relative = dirs.find((d) => !isAbsolute(d));
  if (relative !== undefined)
    throw new Error(`${ALLOWLIST_ENV.customComponentDirs} takes absolute folders (got '${relative}')`);
  return dirs;
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function stringArray(value: unknown, field: string, file: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new Error(`${file}: "${field}" must be an array of strings`);
  return value as string[];
}

function flag(text: string | undefined, name: string): boolean | undefined {
  if (text === undefined || text === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  throw new Error(`${name} must be true or false (got '${text}')`);
}

/**
 * The effective allowlists for this process.
 * @throws Error naming the file or variable when a setting is malformed
 */
export function loadAllowlists(env: NodeJS.ProcessEnv = process.env): Allowlists {
  let base: Allowlists = CLOSED_ALLOWLISTS;
  const file = env[ALLOWLIST_ENV.file];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(`${ALLOWLIST_ENV.file}=${file}: the file cannot be read${code ? ` (${code})` : ''}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${ALLOWLIST_ENV.file}=${file}: the file is not valid JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error(`${file}: expected a JSON object with the allowlist fields`);
    const o = parsed as Record<string, unknown>;
    if (o.databaseAllowQuery !== undefined && typeof o.databaseAllowQuery !== 'boolean')
      throw new Error(`${file}: "databaseAllowQuery" must be true or false`);
    base = {
      flatFilePathAllowlist: stringArray(o.flatFilePathAllowlist, 'flatFilePathAllowlist', file),
      databaseUrlAllowlist: stringArray(o.databaseUrlAllowlist, 'databaseUrlAllowlist', file),
      databaseAllowQuery: o.databaseAllowQuery ?? false,
      serviceUrlAllowlist: stringArray(o.serviceUrlAllowlist, 'serviceUrlAllowlist', file),
    };
  }
  return {
    flatFilePathAllowlist: [...base.flatFilePathAllowlist, ...list(env[ALLOWLIST_ENV.flatFilePaths])],
    databaseUrlAllowlist: [...base.databaseUrlAllowlist, ...list(env[ALLOWLIST_ENV.databaseUrls])],
    databaseAllowQuery:
      flag(env[ALLOWLIST_ENV.databaseAllowQuery], ALLOWLIST_ENV.databaseAllowQuery) ??
      base.databaseAllowQuery,
    serviceUrlAllowlist: [...base.serviceUrlAllowlist, ...list(env[ALLOWLIST_ENV.serviceUrls])],
  };
}
