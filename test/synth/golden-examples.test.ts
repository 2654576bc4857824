/**
 * Golden outputs of our own bundled example models (test/golden/examples.json): every model under
 * examples/synth, three seeds, every output format. A changed byte anywhere in a run fails here
 * without a JDK or ../shared. `UPDATE_GOLDEN=1` rewrites the file (see test/golden/README.md).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSynthModel } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import { OUTPUT_FORMATS } from '../../src/synth/output/format.js';
import { nodeFilePort, nodeModulePort } from '../../src/synth-io/index.js';
import { render } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLES = join(ROOT, 'examples', 'synth');
const FILE = join(ROOT, 'test', 'golden', 'examples.json');
const SEEDS = [1n, 2026n, -77n];
const ROWS = 2000;
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface Entry {
  sha256: string;
  head: string;
}

/** Every model file below examples/synth (tables/ holds data, not models). */
function models(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'tables' ? [] : models(full);
    return /\.(xml|json|sgm)$/.test(e.name) ? [relative(EXAMPLES, full)] : [];
  });
}

async function outputs(model: string): Promise<Map<string, Entry>> {
  const full = join(EXAMPLES, model);
  const prepared = await loadSynthModel(parseModel(readFileSync(full, 'utf8')), {
    customComponentDirs: [join(EXAMPLES, 'custom')],
    ports: { files: nodeFilePort, modules: nodeModulePort },
  });
  const out = new Map<string, Entry>();
  for (const seed of SEEDS) {
    for (const format of OUTPUT_FORMATS) {
      const text = render(new SynthRun(prepared, seed), ROWS, format, true);
      out.set(`${model} seed=${seed} ${format}`, {
        sha256: createHash('sha256').update(text).digest('hex'),
        head: text.slice(0, 200),
      });
    }
  }
  return out;
}

const MODELS = models(EXAMPLES).sort();
const stored = (): Record<string, Entry> =>
  UPDATE ? {} : (JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, Entry>);

describe('bundled example models against their golden outputs', () => {
  it('covers exactly the models that are bundled', () => {
    if (UPDATE) return;
    const covered = new Set(Object.keys(stored()).map((k) => k.split(' ')[0]));
    expect([...covered].sort()).toEqual(MODELS);
  });

  it.each(MODELS)('%s: 3 seeds x every format, byte for byte', async (model) => {
    const ours = await outputs(model);
    if (UPDATE) {
      const all = new Map(Object.entries(JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, Entry>));
      for (const [k, v] of ours) all.set(k, v);
      const sorted = [...all].sort(([a], [b]) => (a < b ? -1 : 1));
      writeFileSync(FILE, JSON.stringify(Object.fromEntries(sorted), null, 2) + '\n');
      return;
    }
    const golden = stored();
    for (const [key, entry] of ours) {
      expect(Object.hasOwn(golden, key), `${key} missing from examples.json`).toBe(true);
      // the head first: a readable diff when the start differs, the hash for the rest
      expect(entry.head, key).toBe(golden[key]!.head);
      expect(entry.sha256, key).toBe(golden[key]!.sha256);
    }
  });
});
