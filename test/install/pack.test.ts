/**
 * The package as a user gets it: `npm pack` (its prepack makes a clean build), then
 * `npm install -g` of the tarball into a temporary prefix, then the installed `modelworks` runs
 * `--help`, `calc test` on a shipped example and an MCP `tools/list` over stdio.
 *
 * Slow (a clean build, and the native addons build from source when no prebuilt binary can be
 * had: see prebuiltMirror) and it rebuilds dist/, so it runs only with MODELWORKS_TEST_PACK=1;
 * `.ci/run` sets it after `npm test`. The install log and the commands' output go to the temp folder it prints.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { brotliCompressSync } from 'node:zlib';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const enabled = process.env.MODELWORKS_TEST_PACK === '1';
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  engines: { node: string };
};
/** The oldest Node we declare: every installed package must accept it. */
const oldestNode = semver.minVersion(pkg.engines.node)!.version;

// set by beforeAll (a skipped run makes no temp folder)
let work = '';
let bin = '';
let installed = '';
let installLog = '';

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd: options.cwd ?? work,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: 15 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every file under `dir`, relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/**
 * A folder laid out as the two native addons' own download mirrors, holding the binaries this
 * checkout's `npm ci` built, and the environment that points their install scripts at it.
 *
 * A user with network gets prebuilt binaries from the addons' GitHub releases; CI reaches only the
 * package registries, so without this both compile from source (about four minutes of the run).
 * The mirror settings are the addons' documented ones (re2's `RE2_DOWNLOAD_MIRROR`, read by
 * install-artifact-from-github, which runs re2's verify-build on what it fetched; prebuild-install's
 * `<package>_local_prebuilds`), so the install takes the download path a user's takes. An addon
 * whose binary is missing here, or whose slot does not match, still builds from source.
 * `MODELWORKS_TEST_PACK_FROM_SOURCE=1` skips the mirror.
 */
function prebuiltMirror(dir: string): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {};
  const { platform, arch } = process;
  const abi = process.versions.modules;
  const re2 = join(root, 'node_modules/re2/build/Release/re2.node');
  if (existsSync(re2)) {
    writeFileSync(join(dir, `${platform}-${arch}-${abi}.br`), brotliCompressSync(readFileSync(re2)));
    Object.assign(env, { RE2_DOWNLOAD_MIRROR: dir, RE2_DOWNLOAD_SKIP_PATH: '1', RE2_DOWNLOAD_SKIP_VER: '1' });
  }
  const sqlite = join(root, 'node_modules/better-sqlite3');
  if (existsSync(join(sqlite, 'build/Release/better_sqlite3.node'))) {
    const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
    const tarball = join(dir, `better-sqlite3-v${version}-node-v${abi}-${platform}-${arch}.tar.gz`);
    expect(run('tar', ['-czf', tarball, '-C', sqlite, 'build/Release/better_sqlite3.node']).code).toBe(0);
    env.npm_config_better_sqlite3_local_prebuilds = dir;
  }
  return env;
}

describe.skipIf(!enabled)('the packed package, installed globally', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'modelworks-pack-'));
    const prefix = join(work, 'prefix');
    bin = join(prefix, 'bin', 'modelworks');
    installed = join(prefix, 'lib', 'node_modules', pkg.name);
    console.log(`install check folder: ${work}`);
    const pack = run('npm', ['pack', '--pack-destination', work], { cwd: root });
    writeFileSync(join(work, 'pack.log'), pack.out);
    expect(pack.code, pack.out).toBe(0);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball, 'npm pack made no tarball').toBeDefined();

    mkdirSync(join(work, 'unpacked'));
    expect(run('tar', ['-xzf', tarball!, '-C', 'unpacked']).code).toBe(0);

    // the two native addons build from source when no prebuilt binary can be fetched: npm 11
    // asks for their install scripts to be allowed (docs: README), node-gyp may use every core
    const mirror =
      process.env.MODELWORKS_TEST_PACK_FROM_SOURCE === '1' ? {} : prebuiltMirror(join(work, 'prebuilt'));
    const install = run(
      'npm',
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--allow-scripts=better-sqlite3,re2',
        // the addons' install scripts say in the log whether they fetched or compiled
        '--foreground-scripts',
        '--no-audit',
        '--no-fund',
        join(work, tarball!),
      ],
      { env: { ...process.env, JOBS: 'max', ...mirror } },
    );
    installLog = install.out;
    writeFileSync(join(work, 'install.log'), installLog);
    // a binary byte-equal to this checkout's came from the mirror; a compiled one differs
    const addons = ['re2/build/Release/re2.node', 'better-sqlite3/build/Release/better_sqlite3.node'].map(
      (file) => {
        const [ours, theirs] = [join(root, 'node_modules', file), join(installed, 'node_modules', file)];
        const same =
          existsSync(ours) && existsSync(theirs) && readFileSync(ours).equals(readFileSync(theirs));
        return `${file.split('/')[0]!} ${same ? 'from the mirror' : 'built from source'}`;
      },
    );
    console.log(`native addons: ${addons.join(', ')}`);
    console.log(`npm install -g, last lines:\n${installLog.trimEnd().split('\n').slice(-5).join('\n')}`);
    expect(install.code, installLog).toBe(0);
  }, 20 * 60_000);

  it('installs without an engine warning', () => {
    expect(installLog).not.toMatch(/EBADENGINE/);
  });

  it(`installs only packages that accept Node ${oldestNode}, the oldest we declare`, () => {
    // npm checks engines against the Node running it; this holds them to our declared minimum
    const refused = walk(join(installed, 'node_modules'))
      .filter((f) => f.endsWith('package.json'))
      .flatMap((f) => {
        let manifest: { name?: string; version?: string; engines?: { node?: unknown } };
        try {
          manifest = JSON.parse(readFileSync(join(installed, 'node_modules', f), 'utf8')) as typeof manifest;
        } catch {
          return []; // a fixture or template shipped inside a package, not a manifest
        }
        const wanted = manifest.engines?.node;
        if (!manifest.name || typeof wanted !== 'string' || !semver.validRange(wanted)) return [];
        return semver.satisfies(oldestNode, wanted)
          ? []
          : [`${manifest.name}@${manifest.version}: ${wanted}`];
      });
    expect(refused).toEqual([]);
  });

  it('ships no source map that points at a missing file', () => {
    const base = join(work, 'unpacked', 'package');
    const files = new Set(walk(base));
    const broken: string[] = [];
    for (const file of files) {
      const full = join(base, file);
      if (file.endsWith('.js')) {
        const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(full, 'utf8'))?.[1];
        if (url && !url.startsWith('data:') && !existsSync(resolve(dirname(full), url)))
          broken.push(`${file} → ${url}`);
      } else if (file.endsWith('.map')) {
        const map = JSON.parse(readFileSync(full, 'utf8')) as { sourceRoot?: string; sources?: string[] };
        for (const source of map.sources ?? []) {
          if (!existsSync(resolve(dirname(full), map.sourceRoot ?? '', source)))
            broken.push(`${file} → ${source}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('answers --help', () => {
    const r = run(bin, ['--help']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/Usage: modelworks/);
    expect(r.out).toMatch(/\bcalc\b/);
  });

  it('runs a shipped example through calc test', () => {
    const r = run(bin, ['calc', 'test', join(installed, 'examples', 'calc', 'car-loan-calculator.json')]);
    writeFileSync(join(work, 'calc-test.log'), r.out);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\b[1-9]\d* passed, 0 failed\b/);
  });

  it('lists its tools over MCP stdio, on the default SQLite store in a fresh home', async () => {
    const home = join(work, 'home');
    mkdirSync(home);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && k !== 'MODELWORKS_STORE' && k !== 'XDG_DATA_HOME') env[k] = v;
    }
    const client = new Client({ name: 'install-check', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: bin, args: ['mcp'], env: { ...env, HOME: home }, stderr: 'pipe' }),
    );
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      writeFileSync(join(work, 'tools.txt'), `${names.join('\n')}\n`);
      expect(names).toEqual(expect.arrayContaining(['create_model', 'mutate', 'get_state', 'render_model']));
    } finally {
      await client.close();
    }
    // the default store opened with the installed native SQLite addon, in the XDG data directory
    expect(existsSync(join(home, '.local', 'share', 'modelworks', 'modelworks.db'))).toBe(true);
  });
});
