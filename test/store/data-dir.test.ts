/** The per-OS data directory: XDG on Linux, the native place on macOS and Windows, old data kept. */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultConfigDir, defaultDataDir } from '../../src/store/data-dir.js';

const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform')!;
/** env-paths reads `process.platform` on each call, so pretending to be another OS reaches it too. */
function pretendPlatform(platform: NodeJS.Platform): void {
  Object.defineProperty(process, 'platform', { ...realPlatform, value: platform });
}

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'modelworks-data-dir-'));
});
afterEach(() => {
  Object.defineProperty(process, 'platform', realPlatform);
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

describe('on Linux', () => {
  beforeEach(() => pretendPlatform('linux'));

  it('is $XDG_DATA_HOME/modelworks, the folder earlier versions used', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/data' })).toBe('/data/modelworks');
  });

  it('ignores a relative XDG_DATA_HOME, as the XDG spec says', () => {
    const home = join(homedir(), '.local', 'share', 'modelworks');
    expect(defaultDataDir({})).toBe(home);
    expect(defaultDataDir({ XDG_DATA_HOME: 'relative' })).toBe(home);
    expect(defaultDataDir({ XDG_DATA_HOME: '' })).toBe(home);
  });

  it("agrees with env-paths (no '-nodejs' suffix) for the process's own environment", () => {
    vi.stubEnv('XDG_DATA_HOME', tmp);
    expect(defaultDataDir()).toBe(envPaths('modelworks', { suffix: '' }).data);
    expect(defaultDataDir()).toBe(join(tmp, 'modelworks'));
  });
});

describe('on macOS', () => {
  const native = join(homedir(), 'Library', 'Application Support', 'modelworks');
  beforeEach(() => pretendPlatform('darwin'));

  it('is ~/Library/Application Support/modelworks for a new user', () => {
    expect(existsSync(native)).toBe(false); // this runs on Linux: no such folder
    expect(defaultDataDir({ XDG_DATA_HOME: tmp })).toBe(native);
  });

  it('keeps using the data directory an earlier version made', () => {
    mkdirSync(join(tmp, 'modelworks'));
    expect(defaultDataDir({ XDG_DATA_HOME: tmp })).toBe(join(tmp, 'modelworks'));
  });
});

describe('on Windows', () => {
  let localAppData: string;
  beforeEach(() => {
    pretendPlatform('win32');
    localAppData = join(tmp, 'Local');
    vi.stubEnv('LOCALAPPDATA', localAppData);
  });

  it('is %LOCALAPPDATA%\\modelworks\\Data for a new user', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: join(tmp, 'xdg') })).toBe(
      join(localAppData, 'modelworks', 'Data'),
    );
  });

  it('keeps an earlier data directory until the native one exists', () => {
    const legacy = join(tmp, 'xdg', 'modelworks');
    mkdirSync(legacy, { recursive: true });
    expect(defaultDataDir({ XDG_DATA_HOME: join(tmp, 'xdg') })).toBe(legacy);
    mkdirSync(join(localAppData, 'modelworks', 'Data'), { recursive: true });
    expect(defaultDataDir({ XDG_DATA_HOME: join(tmp, 'xdg') })).toBe(
      join(localAppData, 'modelworks', 'Data'),
    );
  });
});

describe('the config directory (where the audit key lives)', () => {
  it('on Linux is $XDG_CONFIG_HOME/modelworks, else ~/.config/modelworks; never the data directory', () => {
    pretendPlatform('linux');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/modelworks');
    expect(defaultConfigDir({ XDG_CONFIG_HOME: 'relative' })).toBe(join(homedir(), '.config', 'modelworks'));
    expect(defaultConfigDir({})).not.toBe(defaultDataDir({}));
  });

  it("on macOS and Windows is env-paths' config folder", () => {
    for (const platform of ['darwin', 'win32'] as const) {
      pretendPlatform(platform);
      expect(defaultConfigDir({})).toBe(envPaths('modelworks', { suffix: '' }).config);
      expect(defaultConfigDir({})).not.toBe(envPaths('modelworks', { suffix: '' }).data);
    }
  });
});
