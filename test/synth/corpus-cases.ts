/**
 * The recordings of a corpus whose models load here (the bundled examples, the shared corpus
 * when present), each with its loaded model, seed, format and a row count: shared by the tests
 * that run every model of a corpus (workers, partitions).
 */
import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import { corpusFromDirectory } from '../../src/cli/synth-files.js';
import type { CorpusFiles } from '../../src/synth/conformance/replay.js';
import { parseRecipe } from '../../src/synth/conformance/replay.js';
import type { FilePort } from '../../src/synth/access/ports.js';
import type { OutputFormat, PreparedModel } from '../../src/synth/index.js';
import { SynthError, parseModel, prepareModel } from '../../src/synth/index.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const EXAMPLES = join(ROOT, 'examples', 'synth');
// MODELWORKS_SHARED points at the shared directory when it is not beside the checkout (worktrees)
export const SHARED = join(
  process.env.MODELWORKS_SHARED ?? join(ROOT, '..', 'shared'),
  'conformance',
  'synth-examples',
);
export const sharedPresent = existsSync(SHARED);

const MOUNT = '/corpus';

/** A file port over a corpus, `samples/` mapped to its root, missing tables from the stand-ins. */
function corpusPort(files: CorpusFiles, standIns: CorpusFiles): FilePort {
  const rel = (path: string): string => {
    let r = posix.normalize(path).slice(MOUNT.length + 1);
    while (r.startsWith('samples/')) r = r.slice('samples/'.length);
    return r;
  };
  const read = (r: string): string | undefined => files.read(r) ?? standIns.read(r);
  return {
    realpath: (path) =>
      path.startsWith(MOUNT) && read(rel(path)) !== undefined ? `${MOUNT}/${rel(path)}` : undefined,
    readText: (path) => {
      const text = read(rel(path));
      if (text === undefined) throw new SynthError('SYNTH_LOAD', `file not found: ${path}`);
      return text;
    },
  };
}

export interface Case {
  output: string;
  model: string;
  prepared: PreparedModel;
  seed: bigint;
  format: OutputFormat;
  count: number;
}

/** Every recording of a corpus whose model loads here; the others are listed with the reason. */
export function casesOf(dir: string): { cases: Case[]; skipped: string[] } {
  const files = corpusFromDirectory(dir);
  const standIns = corpusFromDirectory(join(EXAMPLES, 'tables'));
  const cases: Case[] = [];
  const skipped: string[] = [];
  for (const output of files.list().sort()) {
    if (!/\.(csv|txt)$/.test(output)) continue;
    const text = files.read(output) ?? '';
    const recipe = parseRecipe(text.slice(0, Math.max(0, text.indexOf('\n'))));
    if (recipe === undefined) continue;
    const folder = output.includes('/') ? output.slice(0, output.lastIndexOf('/') + 1) : '';
    const model = recipe.modelPath.startsWith('samples/')
      ? recipe.modelPath.slice('samples/'.length)
      : folder + recipe.modelPath;
    const modelText = files.read(model);
    if (modelText === undefined) {
      skipped.push(`${output}: model ${model} not found`);
      continue;
    }
    try {
      const prepared = prepareModel(parseModel(modelText), {
        location: `${MOUNT}/${model}`,
        cwd: MOUNT,
        ports: { files: corpusPort(files, standIns) },
      });
      // more rows than most recordings, so a model splits into many batches
      const count = Math.max(recipe.count, 300);
      cases.push({ output, model, prepared, seed: recipe.seed, format: recipe.format, count });
    } catch (err) {
      skipped.push(`${output}: ${(err as Error).message}`);
    }
  }
  return { cases, skipped };
}
