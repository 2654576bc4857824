/**
 * Where a file named by a model may be read from (synth-spec §9.3). Relative paths resolve against
 * the folder of the file that names them, then the working directory, and must stay (after
 * symlinks) inside the top-level model's folder, the working directory or an allowlisted prefix.
 * Model text given to a server has neither a folder nor a working directory: its relative paths
 * resolve only under the allowlisted folders. Absolute paths must resolve inside an allowlisted
 * prefix. Every check runs before any read.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { SynthError, type SynthErrorReason } from '../errors.js';
import type { FilePort } from './ports.js';

/** The env variable a user sets to allow more absolute paths (named in refusals). */
export const FLATFILE_SETTING = 'MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST (flatFilePathAllowlist)';

/** What a path is checked against. */
export interface FileScope {
  readonly files: FilePort;
  /** Folders relative paths may stay inside: the top-level model's folder and the working directory. */
  readonly roots: readonly string[];
  /** The working directory (second search place for relative paths), if any. */
  readonly cwd?: string;
  /** Absolute path prefixes from the allowlist. */
  readonly allowlist: readonly string[];
}

/** True when `path` equals `dir` or lies below it (whole path segments, never a string prefix). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

function refuse(what: string, message: string, reason?: SynthErrorReason): never {
  throw new SynthError('SYNTH_LOAD', `${what}: ${message}`, reason);
}

function realDirs(files: FilePort, dirs: readonly string[]): string[] {
  return dirs.map((d) => files.realpath(d)).filter((d): d is string => d !== undefined);
}

/**
 * The canonical path of a file a model names.
 * @param written the path as written in the model
 * @param from the folder of the file that names it (undefined for text models)
 * @param what who asks, for messages (e.g. `FlatFile "Names"`)
 * @throws SynthError SYNTH_LOAD when the path is refused or not found; nothing is read then
 */
export function resolveModelFile(
  written: string,
  from: string | undefined,
  scope: FileScope,
  what: string,
): string {
  if (written.trim() === '') refuse(what, 'empty file path');
  if (written.includes('\0')) refuse(what, 'file path contains a NUL character');
  const allowed = realDirs(
    scope.files,
    scope.allowlist.filter((p) => isAbsolute(p)),
  );
  if (isAbsolute(written)) {
    if (scope.allowlist.length === 0)
      refuse(
        what,
        `absolute path "${written}" refused: no absolute paths are allowed; list a prefix in ${FLATFILE_SETTING}`,
      );
    const lexical = resolve(written);
    if (!scope.allowlist.some((p) => isAbsolute(p) && isInside(lexical, resolve(p))))
      refuse(what, `absolute path "${written}" is outside every prefix in ${FLATFILE_SETTING}`);
    const real = scope.files.realpath(lexical);
    if (real === undefined) refuse(what, `file not found: ${written}`, 'file-not-found');
    if (!allowed.some((p) => isInside(real, p)))
      refuse(
        what,
        `"${written}" resolves (through a symlink) to ${real}, outside every prefix in ${FLATFILE_SETTING}`,
      );
    return real;
  }
  const bases = [from, scope.cwd].filter((b): b is string => b !== undefined);
  if (bases.length === 0) return underAllowlist(written, scope, what, allowed);
  const roots = realDirs(scope.files, scope.roots);
  const permitted = [...roots, ...allowed];
  const lexicalRoots = [...scope.roots, ...scope.allowlist.filter((p) => isAbsolute(p))].map((p) =>
    resolve(p),
  );
  let climbed = false;
  for (const base of bases) {
    const candidate = resolve(base, written);
    if (!lexicalRoots.some((r) => isInside(candidate, r)) && !permitted.some((r) => isInside(candidate, r))) {
      climbed = true;
      continue;
    }
    const real = scope.files.realpath(candidate);
    if (real === undefined) continue;
    if (!permitted.some((r) => isInside(real, r)))
      refuse(
        what,
        `"${written}" resolves (through a symlink) to ${real}, outside the model's folder and the working directory; allow it with ${FLATFILE_SETTING}`,
      );
    return real;
  }
  if (climbed)
    refuse(
      what,
      `relative path "${written}" climbs out of the model's folder and the working directory; use an absolute path listed in ${FLATFILE_SETTING}`,
    );
  return refuse(what, `file not found: ${written} (looked in ${bases.join(', ')})`, 'file-not-found');
}

/**
 * A relative path in model text, which has no folder and no working directory: looked up under
 * each allowlisted folder in turn, and it must stay (after symlinks) inside that folder.
 */
function underAllowlist(written: string, scope: FileScope, what: string, allowed: readonly string[]): string {
  const folders = scope.allowlist.filter((p) => isAbsolute(p));
  if (folders.length === 0)
    refuse(
      what,
      `relative path "${written}" in model text is refused: model text has no folder, and this server reads files for it only under the folders listed in ${FLATFILE_SETTING}, which lists none (an operator can add one)`,
    );
  let climbed = false;
  for (const folder of folders) {
    const candidate = resolve(folder, written);
    if (!isInside(candidate, resolve(folder))) {
      climbed = true;
      continue;
    }
    const real = scope.files.realpath(candidate);
    if (real === undefined) continue;
    if (!allowed.some((r) => isInside(real, r)))
      refuse(
        what,
        `"${written}" resolves (through a symlink) to ${real}, outside every folder in ${FLATFILE_SETTING}`,
      );
    return real;
  }
  if (climbed)
    refuse(what, `relative path "${written}" climbs out of the folders listed in ${FLATFILE_SETTING}`);
  return refuse(
    what,
    `file not found: relative path "${written}" in model text is not under any folder listed in ${FLATFILE_SETTING}`,
  );
}

/** The folder holding a canonical file path. */
export function folderOf(path: string): string {
  return dirname(path);
}
