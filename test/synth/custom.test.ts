/**
 * Custom components (issue 20, point 4): `<custom name class>` binds a node type to an ES module
 * from an operator-allowed folder. The shipped example runs byte-identically twice; modules
 * outside the allowlist are refused before anything is loaded; the Free edition refuses them;
 * a malformed module is a load error; the analyzer counts them as custom.
 */
import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSynthModel, type LoadOptions } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { SynthError } from '../../src/synth/errors.js';
import { parseModel, writeModel } from '../../src/synth/model/io.js';
import { analyzeModel } from '../../src/synth/validate/analyzer.js';
import { validateModelAsync } from '../../src/synth/validate/validator.js';
import { nodeFilePort, nodeModulePort } from '../../src/synth-io/index.js';
import { render, scratchDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE_DIR = join(ROOT, 'examples', 'synth', 'custom');
const EXAMPLE = join(EXAMPLE_DIR, 'sensor.xml');
const ENV = 'MODELWORKS_SYNTH_CUSTOM_COMPONENT_DIR_ALLOWLIST';
const { dir, put } = scratchDir('mw-custom-');

function options(dirs: string[], edition: 'full' | 'free' = 'full'): LoadOptions {
  return { edition, customComponentDirs: dirs, ports: { files: nodeFilePort, modules: nodeModulePort } };
}

async function run(text: string, dirs: string[], seed = 1, count = 5): Promise<string> {
  const prepared = await loadSynthModel(parseModel(text), options(dirs));
  return render(new SynthRun(prepared, BigInt(seed)), count);
}

async function loadError(text: string, dirs: string[], edition: 'full' | 'free' = 'full'): Promise<string> {
  try {
    await loadSynthModel(parseModel(text), options(dirs, edition));
  } catch (err) {
    if (err instanceof SynthError) return err.message;
    throw err;
  }
  return 'loaded';
}

const model = (cls: string, node = '<T name="N"/>'): string =>
  `<dataset><definitions><custom name="T" class="${cls}"/></definitions><root node="N"/><nodes>${node}</nodes></dataset>`;

function grindExample(env: Record<string, string>): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'src', 'cli', 'main.ts'),
      'synth',
      'grind',
      EXAMPLE,
      '--count',
      '50',
      '--quiet',
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the custom component example (examples/synth/custom)', { timeout: 60_000 }, () => {
  it('grinds byte-identically twice, and only with its folder allowed', () => {
    const first = grindExample({ [ENV]: EXAMPLE_DIR });
    const second = grindExample({ [ENV]: EXAMPLE_DIR });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    const rows = first.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(50);
    for (const row of rows) expect(row).toMatch(/^-?\d+\.\d+,(ok|low|high)$/);
    expect(rows.some((r) => r.endsWith(',high'))).toBe(true);
    const refused = grindExample({ [ENV]: '' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('no folder is allowed for custom components');
  });

  it('the JSON and .sgm forms of the model bind the same modules and give the same bytes', async () => {
    const text = nodeFilePort.readText(EXAMPLE);
    const xml = await run(text, [EXAMPLE_DIR], 2, 30);
    for (const format of ['json', 'sgm'] as const) {
      const other = writeModel(parseModel(text), format);
      expect(other).toContain(format === 'json' ? '"class": "sine-wave.mjs"' : 'define.custom SineWave');
      expect(await run(other, [EXAMPLE_DIR], 2, 30), format).toBe(xml);
    }
  });

  it('the same seed gives the same rows through the engine too, another seed other rows', async () => {
    const text = nodeFilePort.readText(EXAMPLE);
    expect(await run(text, [EXAMPLE_DIR], 3, 40)).toBe(await run(text, [EXAMPLE_DIR], 3, 40));
    expect(await run(text, [EXAMPLE_DIR], 4, 40)).not.toBe(await run(text, [EXAMPLE_DIR], 3, 40));
  });
});

describe('the Customization Guide (synth://guide/customization)', () => {
  it('shows exactly the files examples/synth/custom ships', () => {
    const guide = nodeFilePort.readText(join(ROOT, 'docs', 'guides', 'synth-customization.md'));
    const blocks = [...guide.matchAll(/`([\w.-]+)`:\n\n```(?:js|text)\n([\s\S]*?)```/g)];
    expect(blocks.map((b) => b[1])).toEqual(['sine-wave.mjs', 'clamp.mjs', 'sensor.xml']);
    for (const [, file, body] of blocks)
      expect(body, file).toBe(nodeFilePort.readText(join(EXAMPLE_DIR, file!)));
  });
});

describe('custom component folders', () => {
  put(
    'allowed/dice.mjs',
    'export default { kind: "generator", parameters: { sides: 6 }, dimension: 1, create: ({ parameters, random }) => () => [1 + random.nextInt(parameters.sides)] };',
  );
  put('outside/dice.mjs', 'export default { kind: "generator", dimension: 1, create: () => () => [0] };');
  const allowed = join(dir, 'allowed');

  it('loads a relative class from an allowed folder and draws from the run stream', async () => {
    const out = await run(model('dice.mjs', '<T name="N" sides="4"/>'), [allowed], 9, 200);
    const values = out.trimEnd().split('\n');
    expect(new Set(values)).toEqual(new Set(['1.0', '2.0', '3.0', '4.0']));
  });

  it('refuses a module outside the allowed folders, also through .. or a symlink', async () => {
    expect(await loadError(model('dice.mjs'), [])).toMatch(/no folder is allowed for custom components/);
    expect(await loadError(model(join(dir, 'outside', 'dice.mjs')), [allowed])).toMatch(
      /is outside the allowed custom component folders/,
    );
    expect(await loadError(model('../outside/dice.mjs'), [allowed])).toMatch(/is outside the allowed/);
    symlinkSync(join(dir, 'outside', 'dice.mjs'), join(allowed, 'link.mjs'));
    expect(await loadError(model('link.mjs'), [allowed])).toMatch(/is outside the allowed/);
    expect(await loadError(model('dice.txt'), [allowed])).toMatch(/must name an ES module file/);
  });

  it('the Free edition refuses custom definitions before loading anything', async () => {
    expect(await loadError(model('dice.mjs'), [allowed], 'free')).toBe(
      '<custom> definitions need the Pro edition',
    );
  });

  it('a module that does not describe a component is a load error; a bad row fails the run', async () => {
    put('allowed/empty.mjs', 'export const x = 1;');
    expect(await loadError(model('empty.mjs'), [allowed])).toBe(
      'custom "T" (empty.mjs): the module has no default export describing the component',
    );
    put('allowed/throws.mjs', 'throw new Error("boom");');
    expect(await loadError(model('throws.mjs'), [allowed])).toMatch(/throws\.mjs could not be loaded: boom$/);
    put('allowed/wide.mjs', 'export default { kind: "generator", dimension: 2, create: () => () => [1] };');
    await expect(run(model('wide.mjs'), [allowed])).rejects.toThrow(/a row must be an array of 2 value\(s\)/);
    expect(await loadError(model('dice.mjs').replace('name="T"', 'name="Normal"'), [allowed])).toMatch(
      /would hide the built-in Normal/,
    );
  });

  it('validates, and the analyzer counts custom nodes (PARTIAL)', async () => {
    const text = model('dice.mjs');
    expect(await validateModelAsync(parseModel(text), options([allowed]))).toMatchObject({ valid: true });
    const prepared = await loadSynthModel(parseModel(text), options([allowed]));
    const analysis = analyzeModel(prepared, {
      throughput: false,
      samples: 1,
      warmupMs: 0,
      isolate: false,
      isolateRounds: 1,
      isolateIterations: 1,
      isolateWarmupRounds: 0,
      isolateThreshold: 3,
      now: () => 0,
      timestamp: 't',
    });
    expect(analysis.complexity).toMatchObject({ mode: 'PARTIAL', customComponentNames: ['N:T'] });
  });
});
