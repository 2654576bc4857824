// The CLI loads what a command uses when that command runs: starting, --help, --version and usage
// errors load commander and the registration modules only. A child process on the built entry
// point (run `npx tsc -p tsconfig.build.json` first, or `npm run build` for the bundle), with a
// module hook that reports every file Node resolves, read as source modules (a bundle chunk stands
// for the modules in it: test/helpers/loaded-modules.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OUTPUT_FORMATS } from '../../src/synth/index.js';
import { GRIND_FORMATS } from '../../src/cli/synth-commands.js';
import { loadedModules } from '../helpers/loaded-modules.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'dist/cli/main.js');

const hooks = mkdtempSync(join(tmpdir(), 'modelworks-start-'));
writeFileSync(
  join(hooks, 'hooks.mjs'),
  `export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  if (found.url.startsWith('file:')) process.stderr.write('loaded ' + found.url + '\\n');
  return found;
}\n`,
);
writeFileSync(
  join(hooks, 'register.mjs'),
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(hooks, 'hooks.mjs')).href)});\n`,
);

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', join(hooks, 'register.mjs'), cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  const files = [...r.stderr.matchAll(/^loaded (.+)$/gm)].map((m) => m[1]!);
  const stderr = r.stderr.replace(/^loaded .+\n/gm, '');
  return { code: r.status, stdout: r.stdout, stderr, loaded: loadedModules(root, files) };
}

/**
 * Modules a start without an action may load: the entry point, the registration modules, the exit
 * policy and help examples (both import nothing), commander.
 */
const REGISTRATION =
  /^(src\/cli\/(main|[a-z-]+-commands?|calc-budget-settings|cli-errors|help-text|synth-edition)|src\/version|node_modules\/commander\/.+)$/;

describe('CLI start-up', () => {
  it.each([
    ['--version', ['--version'], 0],
    ['--help', ['--help'], 0],
    ['a group help', ['synth', '--help'], 0],
    ['a command help', ['calc', 'eval', '--help'], 0],
    ['a usage error', ['synth', 'grind', 'model.xml'], 2],
    ['an unknown command', ['nosuch'], 2],
  ] as const)('%s loads no engine, store or server', (_name, args, code) => {
    const r = run([...args]);
    expect(r.code).toBe(code);
    expect(r.loaded).toContain('src/cli/main');
    expect(r.loaded.filter((file) => !REGISTRATION.test(file))).toEqual([]);
  });

  it('a command loads what it uses when it runs', () => {
    const r = run(['calc', 'eval', '1 + 2']);
    expect(r.stdout.trim()).toBe('3');
    expect(r.loaded).toContain('src/calc/index');
    expect(r.loaded.some((module) => module.startsWith('src/synth/'))).toBe(false);
    expect(r.loaded.some((module) => module.includes('fastify'))).toBe(false);
  });

  it('grind offers exactly the engine’s output formats', () => {
    expect(GRIND_FORMATS).toEqual(OUTPUT_FORMATS);
  });
});

describe('calc budgets from the environment', () => {
  it('a malformed value stops any command with exit 2 before it runs, naming the setting', () => {
    for (const args of [
      ['calc', 'eval', '1'],
      ['synth', 'components'],
    ]) {
      const r = run(args, { MODELWORKS_CALC_MAX_SEQUENCE: '0' });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        "modelworks: MODELWORKS_CALC_MAX_SEQUENCE must be a whole number from 1 to 10000000 (got '0')\n",
      );
    }
  });

  it('a valid value is applied to the command’s evaluations', () => {
    const r = run(['calc', 'eval', '$count([1..100])'], { MODELWORKS_CALC_MAX_SEQUENCE: '10' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('would exceed the limit of 10 elements');
    expect(run(['calc', 'eval', '$count([1..100])']).stdout.trim()).toBe('100');
  });

  it('a blank value counts as unset', () => {
    const r = run(['calc', 'eval', '$count([1..100])'], { MODELWORKS_CALC_MAX_SEQUENCE: '  ' });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('100');
  });
});
