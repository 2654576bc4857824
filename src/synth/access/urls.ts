/**
 * URL allowlists (synth-spec §9.3) compare parsed URLs, never string prefixes: scheme, host and
 * effective port must be equal and the path must lie at or below the entry's path, segment by
 * segment, after the WHATWG parser has normalised `.`/`..` (also written as `%2e`). Credentials
 * in a service URL, and encoded separators that a server could decode later, are refused outright.
 */
import { isAbsolute, resolve } from 'node:path';
import { SynthError } from '../errors.js';
import type { DatabaseTarget, FilePort } from './ports.js';
import { isInside } from './paths.js';

export const SERVICE_SETTING = 'MODELWORKS_SYNTH_SERVICE_URL_ALLOWLIST (serviceUrlAllowlist)';
export const DATABASE_SETTING = 'MODELWORKS_SYNTH_DATABASE_URL_ALLOWLIST (databaseUrlAllowlist)';
export const QUERY_SETTING = 'MODELWORKS_SYNTH_DATABASE_ALLOW_QUERY (databaseAllowQuery)';

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

function parseHttp(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function segments(pathname: string): string[] {
  return pathname.split('/').filter((s) => s !== '');
}

/** Why a service URL is not allowed, or undefined when it is. */
export function serviceUrlRefusal(text: string, allowlist: readonly string[]): string | undefined {
  if (allowlist.length === 0) return `service calls are disabled; list the URL in ${SERVICE_SETTING}`;
  const url = parseHttp(text);
  if (url === undefined)
    return `"${text}" is not an http(s) URL (${SERVICE_SETTING} lists http(s) URLs only)`;
  if (url.username !== '' || url.password !== '')
    return `"${text}" carries credentials (userinfo "@"), which no ${SERVICE_SETTING} entry allows; put them in headers`;
  if (/%(2f|5c|2e|25)/i.test(url.pathname))
    return `"${text}" has an encoded "/", "\\", "." or "%" in its path, which no ${SERVICE_SETTING} entry allows`;
  const port = url.port || DEFAULT_PORTS[url.protocol]!;
  const path = segments(url.pathname);
  for (const entry of allowlist) {
    const e = parseHttp(entry);
    if (e === undefined) continue;
    if (e.protocol !== url.protocol || e.hostname !== url.hostname) continue;
    if ((e.port || DEFAULT_PORTS[e.protocol]!) !== port) continue;
    const prefix = segments(e.pathname);
    if (prefix.length > path.length || prefix.some((s, i) => s !== path[i])) continue;
    return undefined;
  }
  return `"${url.href}" is not on ${SERVICE_SETTING} (scheme, host, port and path prefix must match an entry)`;
}

/**
 * Parses `jdbc:sqlite:<path>`, `jdbc:postgresql://host[:port]/db`, `postgres://…`, `postgresql://…`.
 * A relative SQLite path resolves against `cwd`.
 */
export function parseDatabaseUrl(text: string, cwd?: string): DatabaseTarget | undefined {
  const t = text.trim();
  const sqlite = /^jdbc:sqlite:(?:file:)?(.+)$/i.exec(t);
  if (sqlite !== null) {
    const p = sqlite[1]!.replace(/\?.*$/, '');
    if (p === ':memory:' || p.includes('\0')) return undefined;
    if (!isAbsolute(p) && cwd === undefined) return undefined;
    return { kind: 'sqlite', path: cwd === undefined ? resolve(p) : resolve(cwd, p) };
  }
  const pg = /^(?:jdbc:postgresql:|postgres:|postgresql:)(\/\/.*)$/i.exec(t);
  if (pg !== null) {
    let url: URL;
    try {
      url = new URL('postgres:' + pg[1]!);
    } catch {
      return undefined;
    }
    if (url.hostname === '') return undefined;
    return {
      kind: 'postgres',
      host: url.hostname.toLowerCase(),
      port: url.port || '5432',
      database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    };
  }
  return undefined;
}

/**
 * Why a database URL is not allowed, or undefined when it is. PostgreSQL entries match on host,
 * port and database (an entry without a database allows every database of that server); SQLite
 * entries name a file or a folder, compared after symlinks are resolved.
 */
export function databaseUrlRefusal(
  text: string,
  allowlist: readonly string[],
  files: FilePort | undefined,
  cwd?: string,
): string | undefined {
  if (allowlist.length === 0) return `databases are disabled; list the URL in ${DATABASE_SETTING}`;
  const target = parseDatabaseUrl(text, cwd);
  if (target === undefined)
    return `"${text}" is not a supported database URL (jdbc:sqlite:<path>, jdbc:postgresql://…, postgres://…)`;
  const real = (p: string): string => files?.realpath(p) ?? p;
  for (const entry of allowlist) {
    const e = parseDatabaseUrl(entry);
    if (e === undefined || e.kind !== target.kind) continue;
    if (e.kind === 'postgres' && target.kind === 'postgres') {
      if (
        e.host === target.host &&
        e.port === target.port &&
        (e.database === '' || e.database === target.database)
      )
        return undefined;
    } else if (e.kind === 'sqlite' && target.kind === 'sqlite') {
      if (isInside(real(target.path), real(e.path))) return undefined;
    }
  }
  return `"${text}" is not on ${DATABASE_SETTING}`;
}

/** A database a model may open, or why not. */
export type DatabaseAccess =
  { target: DatabaseTarget; refusal?: undefined } | { target?: undefined; refusal: string };

/**
 * The database a URL names, checked against the allowlist. A relative SQLite path resolves against
 * `cwd`; without one (model text given to a server) it resolves only under the SQLite folders the
 * allowlist lists, never against the server's working directory.
 */
export function databaseAccess(
  text: string,
  allowlist: readonly string[],
  files: FilePort | undefined,
  cwd?: string,
): DatabaseAccess {
  const sqlite = /^jdbc:sqlite:(?:file:)?(.+)$/i.exec(text.trim());
  const path = sqlite?.[1]!.replace(/\?.*$/, '');
  if (cwd === undefined && path !== undefined && path !== ':memory:' && !isAbsolute(path)) {
    if (allowlist.length === 0)
      return { refusal: `databases are disabled; list the URL in ${DATABASE_SETTING}` };
    for (const entry of allowlist) {
      const e = parseDatabaseUrl(entry);
      if (e?.kind !== 'sqlite') continue;
      const candidate = resolve(e.path, path);
      const real = files?.realpath(candidate);
      const folder = files?.realpath(e.path) ?? e.path;
      if (real !== undefined && isInside(candidate, e.path) && isInside(real, folder))
        return { target: { kind: 'sqlite', path: candidate } };
    }
    return {
      refusal: `relative SQLite path "${path}" in model text is not under any SQLite folder listed in ${DATABASE_SETTING}`,
    };
  }
  const refusal = databaseUrlRefusal(text, allowlist, files, cwd);
  return refusal === undefined ? { target: parseDatabaseUrl(text, cwd)! } : { refusal };
}

/** Throws the load error for a refusal. */
export function refuseAccess(what: string, refusal: string | undefined): void {
  if (refusal !== undefined) throw new SynthError('SYNTH_LOAD', `${what}: ${refusal}`);
}
