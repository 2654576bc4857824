/** Small helpers shared by the synth tests. */
import type { LoadOptions } from '../../src/synth/engine/loader.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import type { OutputFormat } from '../../src/synth/output/format.js';
import { renderChunks } from '../../src/synth/output/format.js';

/** Runs model text and returns the whole output. */
export function grind(
  text: string,
  seed: bigint | number,
  count: number,
  format: OutputFormat = 'csv',
  header = false,
  options: LoadOptions = {},
): string {
  const run = new SynthRun(parseModel(text), BigInt(seed), options);
  let out = '';
  for (const chunk of renderChunks(run, { count, format, header, chunkRows: 7 })) out += chunk;
  return out;
}

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
