/**
 * What the `modelworks synth …` commands run: grind, validate, analyze, components, convert and
 * replay. Loaded only when one of them runs (synth-commands.ts registers them).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import type { Edition, LoadOptions, OutputFormat, SynthModel } from '../synth/index.js';
import { loadAllowlists } from '../service/synth-allowlists.js';
import { limitsFromEnv } from '../service/synth-settings.js';
import { fileLoadOptions } from '../synth-io/index.js';
import {
  SynthError,
  SynthRun,
  analyzeModel,
  componentsJson,
  componentsMarkdown,
  componentsText,
  formatForPath,
  formatReplayReport,
  loadSynthModel,
  parseModel,
  parseProperties,
  renderChunks,
  replayCorpus,
  resolveSeed,
  validateModelAsync,
  writeModel,
} from '../synth/index.js';
import { failureText } from './synth-failure.js';
import { corpusFromDirectory } from './synth-files.js';

/** Our own small stand-in tables (examples/synth/tables, laid out like the conformance corpus). */
const STAND_IN_TABLES = fileURLToPath(new URL('../../examples/synth/tables', import.meta.url));

/** Exit codes shared by every synth command. */
const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function freshSeed(): bigint {
  // Positive 63-bit, so the reported seed reproduces the run when passed back as --seed.
  return randomBytes(8).readBigUInt64BE() >> 1n || 1n;
}

function readModelText(path: string): string {
  return path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
}

/**
 * Load options for a model file: allowlists and budgets from MODELWORKS_SYNTH_* (a malformed
 * setting is an error naming it), the file's folder and the working directory for relative
 * paths, real ports.
 */
function loadOptionsFor(path: string, edition: Edition): LoadOptions {
  return {
    ...fileLoadOptions(path === '-' ? undefined : path, loadAllowlists(), edition),
    limits: limitsFromEnv(process.env),
  };
}

function fail(message: string, code = EXIT_FAILED): void {
  process.stderr.write(`modelworks synth: ${message}\n`);
  process.exitCode = code;
}

/** Writes with back-pressure: waits for 'drain' whenever the stream's buffer is full. */
async function writeAll(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

function progressBar(done: number, total: number): string {
  const width = 30;
  const filled = Math.round((done / total) * width);
  return `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${((100 * done) / total).toFixed(0)}%`;
}

export interface GrindOptions {
  edition: Edition;
  seed?: bigint;
  modelSeed: boolean;
  count: number;
  header: boolean;
  quiet: boolean;
  format: OutputFormat;
  output?: string;
  /** A `.properties` formats config (`format.<type>.<locale>`, `address.unitLabels...`). */
  formats?: string;
}

export async function grind(modelPath: string, opts: GrindOptions): Promise<void> {
  let model: SynthModel;
  let run: SynthRun;
  let seedInfo: ReturnType<typeof resolveSeed>;
  let load: LoadOptions;
  try {
    load = loadOptionsFor(modelPath, opts.edition);
  } catch (err) {
    fail(failureText(err, 'read the synth settings'));
    return;
  }
  try {
    model = parseModel(readModelText(modelPath));
    seedInfo = resolveSeed(opts.seed, model, freshSeed, !opts.modelSeed);
    // The formats config is the operator's own file (like --output), not model data: no allowlist.
    const formats =
      opts.formats === undefined ? undefined : parseProperties(readFileSync(opts.formats, 'utf8'));
    // The load phase reads every outside source first; generation then streams synchronously.
    const prepared = await loadSynthModel(model, { ...load, formats });
    run = new SynthRun(prepared, seedInfo.seed);
  } catch (err) {
    fail(failureText(err, `read ${modelPath}`));
    return;
  }
  if (!opts.quiet && seedInfo.seedSource === 'random')
    process.stderr.write(`Using random seed ${seedInfo.seed}\n`);
  const out: Writable = opts.output === undefined ? process.stdout : createWriteStream(opts.output);
  const showProgress = !opts.quiet && process.stderr.isTTY && opts.count >= 1_000_000;
  const started = performance.now();
  let lastDraw = started;
  let rows = 0;
  const chunkRows = 2048;
  try {
    for (const chunk of renderChunks(run, {
      count: opts.count,
      format: opts.format,
      header: opts.header,
      chunkRows,
    })) {
      await writeAll(out, chunk);
      rows = Math.min(opts.count, rows + chunkRows);
      if (showProgress && performance.now() - lastDraw > 250) {
        lastDraw = performance.now();
        process.stderr.write(progressBar(rows, opts.count));
      }
    }
  } catch (err) {
    // A reader that stops early (`| head`) is not an error.
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
    fail(failureText(err, 'generate'));
    return;
  } finally {
    if (showProgress) process.stderr.write('\r\x1b[K');
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
  }
  const seconds = (performance.now() - started) / 1000;
  if (!opts.quiet) {
    const rate = seconds > 0 ? opts.count / seconds : 0;
    process.stderr.write(
      `Emitted ${opts.count} observation(s) in ${seconds.toFixed(3)}s (${rate.toFixed(1)} obs/s)\n`,
    );
  }
}

export async function validateFiles(files: string[], json: boolean, edition: Edition): Promise<void> {
  const results: ValidateEntry[] = [];
  for (const file of files) results.push(await validateFile(file, edition));
  const success = results.every((r) => r.valid);
  if (json) process.stdout.write(JSON.stringify({ success, results }, null, 2) + '\n');
  else {
    for (const r of results) {
      if (r.valid) process.stdout.write(`OK   ${r.model} (root ${r.rootName}, ${r.nodeCount} nodes)\n`);
      else {
        process.stdout.write(`FAIL ${r.model}\n`);
        if (r.loadError !== undefined) process.stdout.write(`  load error: ${r.loadError}\n`);
        for (const f of r.failures) process.stdout.write(`  ${f.nodeType} "${f.nodeName}": ${f.message}\n`);
      }
    }
  }
  process.exitCode = success ? EXIT_OK : EXIT_FAILED;
}

interface ValidateEntry {
  model: string;
  valid: boolean;
  rootName: string | null;
  nodeCount: number | null;
  failures: { nodeName: string; nodeType: string; message: string }[];
  loadError?: string;
}

async function validateFile(file: string, edition: Edition): Promise<ValidateEntry> {
  const model = file === '-' ? '-' : resolve(file);
  const unloadable = (loadError: string): ValidateEntry => ({
    model,
    valid: false,
    rootName: null,
    nodeCount: null,
    failures: [],
    loadError,
  });
  let text: string;
  try {
    text = readModelText(file);
  } catch (err) {
    return unloadable(failureText(err, `read ${file}`));
  }
  try {
    return { model, ...(await validateModelAsync(parseModel(text), loadOptionsFor(file, edition))) };
  } catch (err) {
    // a SynthError, or a malformed allowlist setting: this file's load error either way
    return unloadable(failureText(err, `validate ${file}`));
  }
}

export interface AnalyzeOptions {
  edition: Edition;
  json: boolean;
  throughput: boolean;
  samples: number;
  warmupMs: number;
  isolate: boolean;
  isolateRounds: number;
  isolateIterations: number;
  isolateWarmupRounds: number;
  isolateThreshold: string;
}

export async function analyzeFiles(files: string[], opts: AnalyzeOptions): Promise<void> {
  const threshold = Number(opts.isolateThreshold);
  if (!(threshold > 0)) {
    fail('--isolate-threshold must be a positive number', EXIT_USAGE);
    return;
  }
  const results: AnalyzeEntry[] = [];
  for (const file of files) results.push(await analyzeFile(file, opts, threshold));
  printAnalysis(results, opts.json);
}

type AnalyzeEntry =
  | ({ model: string; written: boolean; error: null } & ReturnType<typeof analyzeModel>)
  | { model: string; error: string };

async function analyzeFile(file: string, opts: AnalyzeOptions, threshold: number): Promise<AnalyzeEntry> {
  const model = file === '-' ? '-' : resolve(file);
  try {
    const parsed = parseModel(readModelText(file));
    const load = loadOptionsFor(file, opts.edition);
    // Models needing a database or a service are loaded in full first; others load inside.
    let source: Parameters<typeof analyzeModel>[0] = parsed;
    try {
      source = await loadSynthModel(parsed, load);
    } catch {
      // Let analyzeModel decide: components this build lacks still get complexity figures.
    }
    const analysis = analyzeModel(source, {
      load,
      throughput: opts.throughput,
      samples: opts.samples,
      warmupMs: opts.warmupMs,
      isolate: opts.isolate,
      isolateRounds: opts.isolateRounds,
      isolateIterations: opts.isolateIterations,
      isolateWarmupRounds: opts.isolateWarmupRounds,
      isolateThreshold: threshold,
      now: () => performance.now(),
      timestamp: new Date().toISOString(),
    });
    // Write-back of analysis.* into the file is not implemented yet, so nothing is written.
    return { model, ...analysis, written: false, error: null };
  } catch (err) {
    return { model, error: failureText(err, `analyse ${file}`) };
  }
}

function printAnalysis(results: AnalyzeEntry[], json: boolean): void {
  const opts = { json };
  const success = results.every((r) => r.error === null);
  if (opts.json) process.stdout.write(JSON.stringify({ success, results }, null, 2) + '\n');
  else {
    for (const r of results) {
      if ('complexity' in r) {
        process.stdout.write(`${r.model}\n  ${r.complexity.summary}\n`);
        if (r.throughput !== null) {
          const t = r.throughput;
          process.stdout.write(
            `  throughput: ${t.sampleCount} in ${t.sampleDurationMs} ms (${t.observationsPerSecond.toFixed(3)} obs/s)\n`,
          );
        }
        if (r.isolatedBenchmark !== null) {
          const b = r.isolatedBenchmark;
          process.stdout.write(
            `  isolated: baseline ${b.baselineNanosPerCall.toFixed(1)} ns/call, ${b.problemNodeCount} problem node(s)\n`,
          );
          for (const p of b.problemNodes)
            process.stdout.write(
              `    ${p.label} x${p.relativeMultiplier.toFixed(1)} (confidence ${p.confidence.toFixed(2)})\n`,
            );
        }
      } else process.stdout.write(`${r.model}\n  error: ${r.error}\n`);
    }
  }
  process.exitCode = success ? EXIT_OK : EXIT_FAILED;
}

export function convert(from: string, to: string): void {
  const format = formatForPath(to);
  if (format === undefined) {
    fail(`cannot tell the format of "${to}" (use .xml, .json or .sgm)`, EXIT_USAGE);
    return;
  }
  try {
    const model = parseModel(readModelText(from));
    const text = writeModel(model, format);
    // Refuse to write a conversion that would not read back as the same model.
    if (JSON.stringify(parseModel(text)) !== JSON.stringify(model))
      throw new SynthError('SYNTH_PARSE', 'conversion is not lossless');
    writeFileSync(to, text);
  } catch (err) {
    fail(failureText(err, `convert ${from}`));
  }
}

/** `synth components`: the component list as text, JSON or Markdown. */
export function components(opts: { json: boolean; markdown: boolean; edition: Edition }): void {
  if (opts.json && opts.markdown) {
    fail('give --json or --markdown, not both', EXIT_USAGE);
    return;
  }
  process.stdout.write(
    opts.json
      ? componentsJson(opts.edition)
      : opts.markdown
        ? componentsMarkdown(opts.edition)
        : componentsText(opts.edition),
  );
}

/** `synth replay`: recorded outputs of a conformance folder, byte for byte. */
export function replay(dir: string, opts: { tables?: string; standIns: boolean; edition: Edition }): void {
  const cases = replayCorpus(corpusFromDirectory(resolve(dir)), {
    edition: opts.edition,
    tables: opts.tables === undefined ? undefined : corpusFromDirectory(resolve(opts.tables)),
    standIns: opts.standIns ? corpusFromDirectory(STAND_IN_TABLES) : undefined,
  });
  process.stdout.write(formatReplayReport(cases));
  const failed = cases.some((c) => c.status === 'failed');
  const passed = cases.some((c) => c.status === 'passed' || c.status === 'shape');
  process.exitCode = failed || !passed ? EXIT_FAILED : EXIT_OK;
}
