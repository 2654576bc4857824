/** Small helpers shared by the synth tests. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { findDescriptor } from '../../src/synth/components/catalog.js';
import type { LoadOptions } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import type { OutputFormat } from '../../src/synth/output/format.js';
import { renderChunks } from '../../src/synth/output/format.js';

/**
 * Runs model text and returns the whole output. A caller's `options.components` also names the
 * parameters `.sgm` positional arguments fill (then the catalog, as the parser's default).
 */
export function grind(
  text: string,
  seed: bigint | number,
  count: number,
  format: OutputFormat = 'csv',
  header = false,
  options: LoadOptions = {},
): string {
  const components = options.components;
  const describe =
    components === undefined
      ? undefined
      : (type: string) => components(type)?.descriptor ?? findDescriptor(type);
  return render(new SynthRun(parseModel(text, describe), BigInt(seed), options), count, format, header);
}

/** The whole output of `count` rows of a run (small chunks, so chunk joins are exercised too). */
export function render(run: SynthRun, count: number, format: OutputFormat = 'csv', header = false): string {
  let out = '';
  for (const chunk of renderChunks(run, { count, format, header, chunkRows: 7 })) out += chunk;
  return out;
}

/** Six ability scores, each the sum of three d6: every row takes 18 draws (the workers' model). */
export const DICE_MODEL = `dataset.root = Scores
Roll = Uniform(1, 7)
Die = ToInteger(Roll, mode="floor")
Three = Redimension(Die, dimension=3)
Total = Calculate(Three, expression="y[0] = x[0] + x[1] + x[2]")
Score = Arrange(Total, columns=(0))
Scores = Redimension(Score, dimension=6)
`;

/** Wraps node lines in a minimal XML model. */
export function xmlModel(root: string, nodes: string, seed?: number): string {
  return `<dataset${seed === undefined ? '' : ` seed="${seed}"`}><root node="${root}"/><nodes>${nodes}</nodes></dataset>`;
}

/** Rows of a headerless CSV output as number arrays. */
export function rows(csv: string): number[][] {
  return csv
    .trim()
    .split('\n')
    .map((l) => l.split(',').map(Number));
}

/** A scratch directory for one test file, removed after it; `put` writes a file under it. */
export function scratchDir(prefix: string): { dir: string; put: (rel: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    put(rel, text) {
      const full = join(dir, rel);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
      return full;
    },
  };
}
