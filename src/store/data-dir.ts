/**
 * The user's modelworks data directory (the default SQLite store lives there) and config directory
 * (the audit key lives there, apart from the data: audit-key.ts).
 *
 * - Linux and other Unixes: `$XDG_DATA_HOME/modelworks` when that is an absolute path (the XDG spec
 *   says a relative one is invalid and must be ignored), else `~/.local/share/modelworks`;
 * - macOS: `~/Library/Application Support/modelworks`;
 * - Windows: `%LOCALAPPDATA%\modelworks\Data`.
 *
 * env-paths knows each OS's convention; we ask it with suffix '' so the folder is plain
 * `modelworks` (its default `modelworks-nodejs` would move every existing Linux user's data). On
 * XDG systems the location is worked out here from the `env` passed in, because env-paths reads
 * `process.env` only and accepts a relative `XDG_DATA_HOME`; otherwise it is the same path.
 *
 * Earlier versions used the XDG location on every OS. On macOS and Windows a data directory
 * left there keeps being used while the native one does not exist, so an existing store and its
 * audit key never silently move (moving the folder to the native place adopts it).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import envPaths from 'env-paths';

const NAME = 'modelworks';

/** The XDG data directory (also where earlier versions kept data on every OS). */
function xdgDataDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share');
  return join(base, NAME);
}

/** The data directory for this OS (see the module comment); `env` supplies `XDG_DATA_HOME`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = xdgDataDir(env);
  if (process.platform !== 'darwin' && process.platform !== 'win32') return xdg;
  const native = envPaths(NAME, { suffix: '' }).data;
  if (!existsSync(native) && existsSync(xdg)) return xdg;
  return native;
}

/**
 * The config directory for this OS, where the audit key lives: `$XDG_CONFIG_HOME/modelworks` when
 * that is absolute, else `~/.config/modelworks` (Linux and other Unixes); env-paths' config folder
 * on macOS (`~/Library/Preferences/modelworks`) and Windows (`%APPDATA%\modelworks\Config`).
 */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'darwin' || process.platform === 'win32')
    return envPaths(NAME, { suffix: '' }).config;
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), NAME);
}
