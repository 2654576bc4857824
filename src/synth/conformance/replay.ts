/**
 * Conformance replay: re-runs recorded outputs (`# seed=N -- reproduce with: grind ...` plus the
 * `grind --header --quiet` text) and compares byte for byte. File access goes through a port, so
 * the engine stays pure; the CLI and the tests supply a node:fs implementation.
 */
import type { FilePort } from '../access/ports.js';
import { SynthError } from '../errors.js';
import type { LoadOptions } from '../engine/prepare.js';
import { prepareModel } from '../engine/prepare.js';
import { isNotInBuild } from '../engine/loader.js';
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

/**
 * One replayed model variant: `passed` = byte for byte; `shape` = ran on stand-in tables and
 * matched the recording's shape (header, row count, value types, fixed patterns); `failed` with a
 * reason; `skipped` when this build lacks a component the model needs.
 */
export interface ReplayCase {
  output: string;
  model: string;
  status: 'passed' | 'shape' | 'failed' | 'skipped';
  reason?: string;
  /** Stand-in tables the run read instead of missing originals. */
  standIns?: string[];
}

/** Where tables missing from the corpus come from. */
export interface ReplayOptions {
  /** Original tables laid out like the corpus (e.g. the cookbook's examples folder): exact replay. */
  tables?: CorpusFiles;
  /** Our own stand-in tables, same layout: shape-only replay. */
  standIns?: CorpusFiles;
  /** Edition to replay under (default "full"). */
  edition?: 'full' | 'free';
}

/** The virtual folder the corpus is mounted at; it is also the run's working directory. */
const MOUNT = '/corpus';

/**
 * A file port over the corpus: `samples/` maps to the corpus root (§9.3), and a file missing from
 * the corpus is served from the original tables, then from the stand-ins (recorded in `used`).
 */
function corpusPort(
  files: CorpusFiles,
  options: ReplayOptions,
  dirs: ReadonlySet<string>,
  used: Set<string>,
): FilePort {
  const rel = (path: string): string | undefined => {
    if (path !== MOUNT && !path.startsWith(MOUNT + '/')) return undefined;
    let r = normalise(path.slice(MOUNT.length + 1));
    while (r === 'samples' || r.startsWith('samples/')) r = r.slice('samples/'.length);
    return r;
  };
  const source = (r: string): { text: string; standIn: boolean } | undefined => {
    const own = files.read(r) ?? options.tables?.read(r);
    if (own !== undefined) return { text: own, standIn: false };
    const stand = options.standIns?.read(r);
    return stand === undefined ? undefined : { text: stand, standIn: true };
  };
  return {
    realpath(path: string): string | undefined {
      const r = rel(path);
      if (r === undefined) return undefined;
      if (dirs.has(r) || source(r) !== undefined) return r === '' ? MOUNT : `${MOUNT}/${r}`;
      return undefined;
    },
    readText(path: string): string {
      const r = rel(path) ?? '';
      const s = source(r);
      if (s === undefined) throw new SynthError('SYNTH_LOAD', `file not found: ${path}`, 'file-not-found');
      if (s.standIn) used.add(r);
      return s.text;
    },
  };
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

/** Every folder of the corpus, the original tables and the stand-ins ("" is the root). */
function folders(files: CorpusFiles, options: ReplayOptions): Set<string> {
  const dirs = new Set<string>(['']);
  const all = [files, options.tables, options.standIns].filter((f): f is CorpusFiles => f !== undefined);
  for (const f of all)
    for (const p of f.list()) {
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    }
  return dirs;
}

/** Runs one model text with a recipe and returns the rendered output. */
export function grindText(modelText: string, recipe: Recipe, options: LoadOptions = {}): string {
  const run = new SynthRun(parseModel(modelText), recipe.seed, options);
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
  options: ReplayOptions,
  dirs: ReadonlySet<string>,
): ReplayCase {
  const text = files.read(model);
  if (text === undefined) return { output, model, status: 'skipped', reason: 'model file not found' };
  const used = new Set<string>();
  const load: LoadOptions = {
    edition: options.edition ?? 'full',
    location: `${MOUNT}/${model}`,
    cwd: MOUNT,
    ports: { files: corpusPort(files, options, dirs, used) },
  };
  try {
    prepareModel(parseModel(text), load);
  } catch (err) {
    if (err instanceof SynthError && err.code === 'SYNTH_LICENSE')
      return { output, model, status: 'skipped', reason: `needs Pro: ${err.message}` };
    if (isNotInBuild(err)) return { output, model, status: 'skipped', reason: (err as Error).message };
    // A table neither the corpus, the original tables nor the stand-ins hold: nothing to compare.
    if (err instanceof SynthError && err.reason === 'file-not-found')
      return { output, model, status: 'skipped', reason: `missing table: ${err.message}` };
    return { output, model, status: 'failed', reason: (err as Error).message };
  }
  used.clear();
  let actual: string;
  try {
    actual = grindText(text, recipe, load);
  } catch (err) {
    return { output, model, status: 'failed', reason: (err as Error).message };
  }
  const standIns = [...used].sort();
  if (actual === expected) return { output, model, status: 'passed' };
  if (standIns.length > 0) {
    const problem = shapeDifference(actual, expected, recipe.format);
    return problem === undefined
      ? { output, model, status: 'shape', standIns }
      : {
          output,
          model,
          status: 'failed',
          reason: `stand-in tables (${standIns.join(', ')}): ${problem}`,
          standIns,
        };
  }
  const a = actual.split('\n');
  const e = expected.split('\n');
  const line = a.findIndex((l, i) => l !== e[i]);
  return {
    output,
    model,
    status: 'failed',
    reason: `first difference at output line ${line + 2}: got "${a[line] ?? ''}", expected "${e[line] ?? ''}"`,
  };
}

/** Splits one CSV line (RFC 4180 quoting). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cur);
      cur = '';
    } else cur += c;
  }
  cells.push(cur);
  return cells;
}

function valueType(text: string): 'int' | 'double' | 'string' {
  if (/^-?\d+$/.test(text)) return 'int';
  if (/^-?\d+\.\d+(E-?\d+)?$/.test(text) || /^-?(NaN|Infinity)$/.test(text)) return 'double';
  return 'string';
}

/** A value's pattern: each digit becomes 9, letter runs become "a", space runs one space. */
export function valuePattern(text: string): string {
  return text
    .replace(/\d/g, '9')
    .replace(/\p{L}+/gu, 'a')
    .replace(/\s+/g, ' ');
}

/**
 * Why `actual` does not have the shape of `expected`, or undefined. CSV: same header and row
 * count, per column the same value type, and where every recorded value of a column shares one
 * pattern (SSNs, phones, codes) every produced value has it too. Raw: the same number of lines.
 */
export function shapeDifference(actual: string, expected: string, format: OutputFormat): string | undefined {
  const a = actual.split('\n');
  const e = expected.split('\n');
  if (a.length !== e.length) return `${a.length - 1} lines, recorded ${e.length - 1}`;
  if (format !== 'csv') return undefined;
  if (a[0] !== e[0]) return `header "${a[0]}", recorded "${e[0]}"`;
  const rowsA = a.slice(1, -1).map(csvCells);
  const rowsE = e.slice(1, -1).map(csvCells);
  const columns = rowsE[0]?.length ?? 0;
  for (let c = 0; c < columns; c++) {
    const rec = rowsE.map((r) => r[c] ?? '');
    const got = rowsA.map((r) => r[c] ?? '');
    const types = new Set(rec.map(valueType));
    for (const [i, v] of got.entries()) {
      const t = valueType(v);
      // A recorded double column may hold whole numbers printed as ints only if recorded so.
      if (!types.has(t)) return `row ${i + 1} column ${c}: "${v}" is ${t}, recorded ${[...types].join('/')}`;
    }
    const patterns = new Set(rec.map(valuePattern));
    if (patterns.size === 1 && rec.length > 1) {
      const [p] = patterns;
      const bad = got.find((v) => valuePattern(v) !== p);
      if (bad !== undefined) return `column ${c}: "${bad}" does not have the recorded pattern "${p}"`;
    }
  }
  return undefined;
}

/**
 * Replays every recorded output of a corpus with its model, the model's `.json` twin and any
 * compact `.sgm` twin of the same base name. Paths starting with `samples/` mean the corpus root;
 * tables missing from the corpus come from `options.tables`, then `options.standIns`.
 */
export function replayCorpus(files: CorpusFiles, options: ReplayOptions = {}): ReplayCase[] {
  const all = files.list().sort();
  const sgm = all.filter((p) => p.endsWith('.sgm'));
  const dirs = folders(files, options);
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
    for (const m of variants) cases.push(replayOne(files, output, m, recipe, expected, options, dirs));
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

/** Human-readable report: one line per case, the skips with reasons, then the counts. */
export function formatReplayReport(cases: readonly ReplayCase[]): string {
  const lines: string[] = [];
  for (const c of cases) {
    if (c.status === 'passed') lines.push(`PASS ${c.model} -> ${c.output}`);
    else if (c.status === 'shape')
      lines.push(`SHAPE ${c.model} -> ${c.output} (stand-ins: ${(c.standIns ?? []).join(', ')})`);
    else if (c.status === 'failed') lines.push(`FAIL ${c.model} -> ${c.output}: ${c.reason ?? ''}`);
  }
  const skipped = cases.filter((c) => c.status === 'skipped');
  if (skipped.length > 0) {
    lines.push(`skipped ${skipped.length}:`);
    for (const c of skipped) lines.push(`  SKIP ${c.model}: ${c.reason ?? ''}`);
  }
  const passed = cases.filter((c) => c.status === 'passed').length;
  const shape = cases.filter((c) => c.status === 'shape').length;
  const failed = cases.filter((c) => c.status === 'failed').length;
  lines.push(`${passed} passed, ${shape} shape-only, ${failed} failed, ${skipped.length} skipped`);
  return lines.join('\n') + '\n';
}
