/**
 * Conformance replay: re-runs recorded outputs (`# seed=N -- reproduce with: grind ...` plus the
 * `grind --header --quiet` text) and compares byte for byte. File access goes through a port, so
 * the engine stays pure; the CLI and the tests supply a node:fs implementation.
 */
import { SynthError } from '../errors.js';
import { checkLoad, isNotInBuild } from '../engine/loader.js';
import { SynthRun } from '../engine/run.js';
import { parseModel } from '../model/io.js';
import type { OutputFormat } from '../output/format.js';
import { renderChunks } from '../output/format.js';
import { complexityOf } from '../validate/analyzer.js';

/** Read-only view of a corpus folder; paths are relative, `/`-separated. */
export interface CorpusFiles {
  /** Every file below the corpus root. */
  list(): string[];
  /** The file's text, or undefined when it does not exist. */
  read(path: string): string | undefined;
}

/** One replayed (or skipped) model variant. */
export interface ReplayCase {
  output: string;
  model: string;
  status: 'passed' | 'failed' | 'skipped';
  reason?: string;
}

/** Parsed first line of a recorded output. */
export interface Recipe {
  seed: bigint;
  count: number;
  format: OutputFormat;
  modelPath: string;
}

/** Reads the recorder's comment line; undefined when the file has none. */
export function parseRecipe(firstLine: string): Recipe | undefined {
  const m = /^# seed=(-?\d+) -- reproduce with: (?:modelworks synth )?grind (.*)$/.exec(firstLine.trim());
  if (m === null) return undefined;
  const args = m[2]!
    .replace(/\(run from this directory\)/, '')
    .trim()
    .split(/\s+/);
  let count = 10;
  let format: OutputFormat = 'csv';
  let modelPath = '';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--count') count = Number(args[++i]);
    else if (a === '--seed') i++;
    else if (a === '--format') format = args[++i] as OutputFormat;
    else if (!a.startsWith('--')) modelPath = a;
  }
  return { seed: BigInt(m[1]!), count, format, modelPath };
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i + 1);
}

function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') out.pop();
    else if (part !== '.' && part !== '') out.push(part);
  }
  return out.join('/');
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
}

/** Runs one model text with a recipe and returns the rendered output. */
export function grindText(modelText: string, recipe: Recipe): string {
  const run = new SynthRun(parseModel(modelText), recipe.seed);
  let out = '';
  for (const chunk of renderChunks(run, {
    count: recipe.count,
    format: recipe.format,
    header: recipe.format === 'csv',
  })) {
    out += chunk;
  }
  return out;
}

function replayOne(
  files: CorpusFiles,
  output: string,
  model: string,
  recipe: Recipe,
  expected: string,
): ReplayCase {
  const text = files.read(model);
  if (text === undefined) return { output, model, status: 'skipped', reason: 'model file not found' };
  try {
    checkLoad(parseModel(text));
  } catch (err) {
    if (err instanceof SynthError && err.code === 'SYNTH_LICENSE') {
      return { output, model, status: 'skipped', reason: `needs Pro: ${err.message}` };
    }
    if (isNotInBuild(err)) return { output, model, status: 'skipped', reason: (err as Error).message };
    return { output, model, status: 'failed', reason: (err as Error).message };
  }
  try {
    const actual = grindText(text, recipe);
    if (actual === expected) return { output, model, status: 'passed' };
    const a = actual.split('\n');
    const e = expected.split('\n');
    const line = a.findIndex((l, i) => l !== e[i]);
    return {
      output,
      model,
      status: 'failed',
      reason: `first difference at output line ${line + 2}: got "${a[line] ?? ''}", expected "${e[line] ?? ''}"`,
    };
  } catch (err) {
    return { output, model, status: 'failed', reason: (err as Error).message };
  }
}

/**
 * Replays every recorded output of a corpus with its model, the model's `.json` twin and any
 * compact `.sgm` twin of the same base name. Paths starting with `samples/` mean the corpus root.
 */
export function replayCorpus(files: CorpusFiles): ReplayCase[] {
  const all = files.list().sort();
  const sgm = all.filter((p) => p.endsWith('.sgm'));
  const cases: ReplayCase[] = [];
  for (const output of all) {
    if (!output.endsWith('.csv') && !output.endsWith('.txt')) continue;
    const text = files.read(output) ?? '';
    const newline = text.indexOf('\n');
    const recipe = parseRecipe(newline < 0 ? text : text.slice(0, newline));
    if (recipe === undefined) continue; // a data table, not a recorded output
    const expected = text.slice(newline + 1);
    const model = normalise(
      recipe.modelPath.startsWith('samples/')
        ? recipe.modelPath.slice('samples/'.length)
        : dirOf(output) + recipe.modelPath,
    );
    const variants = [model];
    const twin = model.replace(/\.xml$/, '.json');
    if (twin !== model && files.read(twin) !== undefined) variants.push(twin);
    const name = baseName(output);
    const sameBase = all.filter((p) => p.endsWith('.csv') && baseName(p) === name);
    for (const s of sgm) if (baseName(s) === name && sameBase.length === 1) variants.push(s);
    for (const m of variants) cases.push(replayOne(files, output, m, recipe, expected));
  }
  for (const path of all) {
    if (!/\.(xml|json|sgm)$/.test(path)) continue;
    const check = checkAnalysis(path, files.read(path) ?? '');
    if (check !== undefined) cases.push(check);
  }
  return cases;
}

/**
 * Compares a model's embedded `analysis.*` block (written by the original analyzer) with our
 * complexity figures; undefined when the file has no such block or is not a model.
 */
export function checkAnalysis(path: string, text: string): ReplayCase | undefined {
  let model;
  try {
    model = parseModel(text);
  } catch {
    return undefined;
  }
  if (model.analysis.length === 0) return undefined;
  const recorded = new Map(model.analysis);
  const ours = complexityOf(model);
  const expected: [string, string][] = [
    ['mode', ours.mode],
    ['node_count', String(ours.nodeCount)],
    ['min_depth', String(ours.minDepth)],
    ['max_depth', String(ours.maxDepth)],
    ['score', String(ours.score)],
    ['custom_component_count', String(ours.customComponentCount)],
    ['predicted_avg_depth', ours.predictedAverageDepth.toFixed(6)],
    ['summary', ours.summary],
  ];
  const diffs = expected
    .filter(([k, v]) => recorded.has(k) && recorded.get(k) !== v)
    .map(([k, v]) => `analysis.${k}: recorded "${recorded.get(k)}", ours "${v}"`);
  return diffs.length === 0
    ? { output: 'analysis.*', model: path, status: 'passed' }
    : { output: 'analysis.*', model: path, status: 'failed', reason: diffs.join('; ') };
}

/** Human-readable report: one line per failure, the skips with reasons, then `N passed, N failed`. */
export function formatReplayReport(cases: readonly ReplayCase[]): string {
  const lines: string[] = [];
  for (const c of cases) {
    if (c.status === 'passed') lines.push(`PASS ${c.model} -> ${c.output}`);
    else if (c.status === 'failed') lines.push(`FAIL ${c.model} -> ${c.output}: ${c.reason ?? ''}`);
  }
  const skipped = cases.filter((c) => c.status === 'skipped');
  if (skipped.length > 0) {
    lines.push(`skipped ${skipped.length}:`);
    for (const c of skipped) lines.push(`  SKIP ${c.model}: ${c.reason ?? ''}`);
  }
  const passed = cases.filter((c) => c.status === 'passed').length;
  const failed = cases.filter((c) => c.status === 'failed').length;
  lines.push(`${passed} passed, ${failed} failed, ${skipped.length} skipped`);
  return lines.join('\n') + '\n';
}
