/**
 * What the `modelworks synth …` commands run: grind, validate, analyze, components, convert and
 * replay. Loaded only when one of them runs (synth-commands.ts registers them).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import type { Edition, LoadOptions, OutputFormat, PreparedModel } from '../synth/index.js';
import { customComponentDirs, loadAllowlists } from '../service/synth-allowlists.js';
import { limitsFromEnv } from '../service/synth-settings.js';
import type { Partition } from '../synth-io/partition.js';
import { fileLoadOptions } from '../synth-io/index.js';
import { defaultWorkers, generateChunks, type WorkerReserve } from '../synth-io/parallel/index.js';
import {
  SynthError,
  analyzeModel,
  componentsJson,
  componentsMarkdown,
  componentsText,
  formatForPath,
  formatReplayReport,
  loadSynthModel,
  nodeFailureLine,
  parseModel,
  parseProperties,
  replayCorpus,
  resolveSeed,
  validateModelAsync,
  writeModel,
} from '../synth/index.js';
import { openAtomic, onInterrupt, writeFileAtomic, type AtomicFile } from './atomic-file.js';
import { EXIT, reportFailure, systemErrorCode } from './cli-errors.js';
import { rowProgress } from './progress.js';
import { failureText, inputFailureExit } from './synth-failure.js';
import { corpusFromDirectory } from './synth-files.js';
import { stringifyWithDoubles } from './synth-json.js';

/** Our own small stand-in tables (examples/synth/tables, laid out like the conformance corpus). */
const STAND_IN_TABLES = fileURLToPath(new URL('../../examples/synth/tables', import.meta.url));

const { ok: EXIT_OK, failed: EXIT_FAILED, usage: EXIT_USAGE } = EXIT;

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
    ...fileLoadOptions(path === '-' ? undefined : path, loadAllowlists(), edition, customComponentDirs()),
    limits: limitsFromEnv(process.env),
  };
}

const PREFIX = 'modelworks synth';

/** One line on stderr (the stack too with --debug) and the exit code. */
function fail(message: string, code: number, err?: unknown): void {
  reportFailure(PREFIX, message, err);
  process.exitCode = code;
}

/** A failure to read or load a command's input: bad input (2), or a fault of ours (1). */
function failInput(err: unknown, action: string): void {
  fail(failureText(err, action), inputFailureExit(err), err);
}

/** Writes with back-pressure: waits for 'drain' whenever the stream's buffer is full. */
async function writeAll(out: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Lets signals and timers (an interrupt, the progress bar) run while a fast writer never waits. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface GrindOptions {
  edition: Edition;
  seed?: bigint;
  modelSeed: boolean;
  /** --partition k/K: that partition's own stream and rows (synth-worker-grind.ts). */
  partition?: Partition;
  /** --partitions K: all K partitions, on the worker threads, written in order (partitioned.ts). */
  partitions?: number;
  /** --to postgres://…/table: write into that table instead (synth-worker-grind.ts). */
  to?: string;
  count: number;
  header: boolean;
  quiet: boolean;
  format: OutputFormat | 'parquet';
  output?: string;
  /** A `.properties` formats config (`format.<type>.<locale>`, `address.unitLabels...`). */
  formats?: string;
  /** Worker threads (default: the cores this process may use); the bytes never depend on it. */
  workers?: number;
  /** Row workers the command started before loading the engine (worker-start.ts). */
  reserve?: WorkerReserve | undefined;
}

/** The run for a grind, or undefined after reporting why there is none (bad input: exit 2). */
async function prepareGrind(
  modelPath: string,
  opts: GrindOptions,
): Promise<{ prepared: PreparedModel; seedInfo: ReturnType<typeof resolveSeed> } | undefined> {
  let load: LoadOptions;
  try {
    load = loadOptionsFor(modelPath, opts.edition);
  } catch (err) {
    failInput(err, 'read the synth settings');
    return undefined;
  }
  try {
    const model = parseModel(readModelText(modelPath));
    const seedInfo = resolveSeed(opts.seed, model, freshSeed, !opts.modelSeed);
    // The formats config is the operator's own file (like --output), not model data: no allowlist.
    const formats =
      opts.formats === undefined ? undefined : parseProperties(readFileSync(opts.formats, 'utf8'));
    // The load phase reads every outside source first; generation then streams synchronously.
    const prepared = await loadSynthModel(model, { ...load, formats });
    return { prepared, seedInfo };
  } catch (err) {
    failInput(err, `read ${modelPath}`);
    return undefined;
  }
}

export async function grind(modelPath: string, opts: GrindOptions): Promise<void> {
  const prepared = await prepareGrind(modelPath, opts);
  if (prepared === undefined) return;
  let firstRow = 0;
  // issue 26: partitions and sinks (synth-worker-grind.ts)
  if (opts.partition !== undefined || opts.to !== undefined || opts.format === 'parquet') {
    const more = await import('./synth-worker-grind.js');
    if (opts.to !== undefined || opts.format === 'parquet') return more.grindToSink(prepared, opts);
    const slice = more.partitionSlice(prepared.seedInfo, opts.partition!, opts.count, opts.quiet);
    [prepared.seedInfo, opts.count, firstRow] = [slice.seedInfo, slice.count, slice.firstRow];
  }
  const { seedInfo } = prepared;
  // rows printed on the terminal itself would tear the bar apart: a bar only when they go elsewhere
  const progress = await rowProgress(opts.count, {
    enabled: !opts.quiet && (opts.output !== undefined || process.stdout.isTTY !== true),
  });
  // a file is written whole or not at all; an interrupt removes the unfinished one and says so
  let file: AtomicFile | undefined;
  let stopWatching: () => void = () => undefined;
  if (opts.output !== undefined) {
    try {
      file = await openAtomic(opts.output, {
        prefix: PREFIX,
        progress: () => (progress.stop(), progress.describe()),
      });
    } catch (err) {
      fail(failureText(err, `write ${opts.output}`), inputFailureExit(err), err);
      return;
    }
  } else {
    stopWatching = onInterrupt((signal) => {
      progress.stop();
      return `${PREFIX}: interrupted (${signal}) ${progress.describe()}; the output is incomplete`;
    });
  }
  if (!opts.quiet && seedInfo.seedSource === 'random')
    process.stderr.write(`Using random seed ${seedInfo.seed}\n`);
  const out: Writable = file?.stream ?? process.stdout;
  const started = performance.now();
  let lastYield = started;
  try {
    const workers = opts.workers ?? defaultWorkers();
    const format = opts.format;
    const chunks =
      opts.partitions === undefined
        ? generateChunks(prepared.prepared, seedInfo.seed, {
            count: opts.count,
            firstRow,
            format,
            header: opts.header,
            workers,
            reserve: opts.reserve,
          })
        : (await import('../synth-io/parallel/partitioned.js')).generatePartitioned(
            prepared.prepared,
            seedInfo.seed,
            {
              count: opts.count,
              partitions: opts.partitions,
              format,
              header: opts.header,
              workers,
              reserve: opts.reserve,
            },
          );
    for await (const chunk of chunks) {
      await writeAll(out, chunk.data);
      progress.update(chunk.rows);
      if (performance.now() - lastYield > 50) {
        await yieldToEventLoop();
        lastYield = performance.now();
      }
    }
    progress.stop();
    await file?.commit();
  } catch (err) {
    progress.stop();
    await file?.discard();
    // A reader that stops early (`| head`) is not an error.
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
    const action = file && systemErrorCode(err) !== undefined ? `write ${file.path}` : 'generate';
    fail(`${failureText(err, action)}${file ? `; ${file.path} was not written` : ''}`, EXIT_FAILED, err);
    return;
  } finally {
    stopWatching();
  }
  const seconds = (performance.now() - started) / 1000;
  if (!opts.quiet) {
    const rate = seconds > 0 ? opts.count / seconds : 0;
    process.stderr.write(
      `Emitted ${opts.count} observation(s) in ${seconds.toFixed(3)}s (${rate.toFixed(1)} obs/s)\n`,
    );
  }
}

/**
 * True when a model could not be checked at all: unreadable, not well-formed, or a malformed
 * setting (bad input, exit 2), as opposed to a model that was read and failed its checks (exit 1).
 */
function unreadableInput(err: unknown): boolean {
  if (err instanceof SynthError) return err.code === 'SYNTH_PARSE';
  return inputFailureExit(err) === EXIT_USAGE;
}

export async function validateFiles(files: string[], json: boolean, edition: Edition): Promise<void> {
  const checked: { entry: ValidateEntry; unreadable: boolean }[] = [];
  for (const file of files) checked.push(await validateFile(file, edition));
  const results = checked.map((c) => c.entry);
  const success = results.every((r) => r.valid);
  if (json) process.stdout.write(JSON.stringify({ success, results }, null, 2) + '\n');
  else {
    for (const r of results) {
      if (r.valid) process.stdout.write(`OK   ${r.model} (root ${r.rootName}, ${r.nodeCount} nodes)\n`);
      else {
        process.stdout.write(`FAIL ${r.model}\n`);
        if (r.loadError !== undefined) process.stdout.write(`  load error: ${r.loadError}\n`);
        for (const f of r.failures) process.stdout.write(`  ${nodeFailureLine(f)}\n`);
      }
    }
  }
  process.exitCode = checked.some((c) => c.unreadable) ? EXIT_USAGE : success ? EXIT_OK : EXIT_FAILED;
}

interface ValidateEntry {
  model: string;
  valid: boolean;
  rootName: string | null;
  nodeCount: number | null;
  failures: { nodeName: string; nodeType: string; message: string }[];
  loadError?: string;
}

async function validateFile(
  file: string,
  edition: Edition,
): Promise<{ entry: ValidateEntry; unreadable: boolean }> {
  const model = file === '-' ? '-' : resolve(file);
  const unloadable = (err: unknown, action: string) => ({
    entry: {
      model,
      valid: false,
      rootName: null,
      nodeCount: null,
      failures: [],
      loadError: failureText(err, action),
    },
    unreadable: unreadableInput(err),
  });
  let text: string;
  try {
    text = readModelText(file);
  } catch (err) {
    return unloadable(err, `read ${file}`);
  }
  try {
    const entry = { model, ...(await validateModelAsync(parseModel(text), loadOptionsFor(file, edition))) };
    return { entry, unreadable: false };
  } catch (err) {
    // a SynthError, or a malformed allowlist setting: this file's load error either way
    return unloadable(err, `validate ${file}`);
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
  let unreadable = false;
  for (const file of files)
    results.push(
      await analyzeFile(file, opts, threshold).catch((err: unknown) => {
        unreadable ||= unreadableInput(err);
        return { model: file === '-' ? '-' : resolve(file), error: failureText(err, `analyse ${file}`) };
      }),
    );
  printAnalysis(results, opts.json);
  process.exitCode = unreadable ? EXIT_USAGE : results.every((r) => r.error === null) ? EXIT_OK : EXIT_FAILED;
}

type AnalyzeEntry =
  | ({ model: string; written: boolean; error: null } & ReturnType<typeof analyzeModel>)
  | { model: string; error: string };

/** One file's analysis; throws when it cannot be analysed (analyzeFiles reports it). */
async function analyzeFile(file: string, opts: AnalyzeOptions, threshold: number): Promise<AnalyzeEntry> {
  const model = file === '-' ? '-' : resolve(file);
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
  // analyze never writes analysis.* back into the file (docs/synth.md, "Not done yet")
  return { model, ...analysis, written: false, error: null };
}

function printAnalysis(results: AnalyzeEntry[], json: boolean): void {
  const success = results.every((r) => r.error === null);
  // doubles keep their fraction (`2.0`), as the analyzer's JSON format has them (§7.1)
  if (json) process.stdout.write(stringifyWithDoubles({ success, results }) + '\n');
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
}

export async function convert(from: string, to: string): Promise<void> {
  const format = formatForPath(to);
  if (format === undefined) {
    fail(`cannot tell the format of "${to}" (use .xml, .json or .sgm)`, EXIT_USAGE);
    return;
  }
  let text: string;
  try {
    const model = parseModel(readModelText(from));
    text = writeModel(model, format);
    // Refuse to write a conversion that would not read back as the same model (a failed check).
    if (JSON.stringify(parseModel(text)) !== JSON.stringify(model)) {
      fail(`${from} cannot be written as ${format} without loss; ${to} was not written`, EXIT_FAILED);
      return;
    }
  } catch (err) {
    failInput(err, `read ${from}`);
    return;
  }
  try {
    await writeFileAtomic(to, text, { prefix: PREFIX });
  } catch (err) {
    failInput(err, `write ${to}`);
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
  for (const [what, folder] of [
    ['corpus', dir],
    ['--tables', opts.tables],
  ] as const) {
    if (folder !== undefined && !(existsSync(folder) && statSync(folder).isDirectory())) {
      fail(`the ${what} folder ${folder} does not exist or is not a folder`, EXIT_USAGE);
      return;
    }
  }
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
