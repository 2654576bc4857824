/**
 * compare_sample's work, as it runs inside its worker thread (compare-worker.ts): the request's
 * arguments checked in the order the tool always checked them, the sample parsed, the model's own
 * output drawn (or a held generation's text parsed) and the two compared. Everything here is plain
 * data in and out, so it can cross the thread boundary; what needs the server's state (a held
 * generation's rows) is read by the runner beforehand and handed over as text or as the error it gave.
 */
import { randomBytes } from 'node:crypto';
import {
  type CompareOptions,
  type CompareReport,
  CompareError,
  type HeaderChoice,
  compareTables,
  outputTable,
  parseSampleCsv,
  type Table,
} from '../synth/compare/index.js';
import { type LoadOptions, SynthRun, loadSynthModel, parseModel, resolveSeed } from '../synth/index.js';
import { SynthServiceError } from './synth-errors.js';
import { modelTextArg } from './synth-service.js';

/** The sample's limits: text, rows and columns (a report must fit one tool result). */
export const COMPARE_LIMITS = { sampleBytes: 4 * 1024 * 1024, rows: 20_000, columns: 40, timeMs: 30_000 };
/** Findings listed in the result; the rest are counted in omittedFindings. */
const MAX_FINDINGS = 40;

/** An error as it crosses the thread boundary, rebuilt on the other side by `rebuildError`. */
export interface CarriedError {
  kind: 'service' | 'compare' | 'coded';
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** What a comparison's worker is given: the tool's raw arguments and what the server read for it. */
export interface CompareJob {
  args: {
    sampleCsv: unknown;
    options: unknown;
    modelText: unknown;
    generationId: unknown;
    seed: unknown;
    ignore: unknown;
  };
  /** A held generation's csv text (without header), or the error reading it gave. */
  generation?: { text: string } | { error: CarriedError };
  /** How the model is loaded (the service's options without its callback, which stays on the server). */
  load: Omit<LoadOptions, 'onCustomsLoaded' | 'ports' | 'components'>;
}

/** A refusal of ours as plain data; undefined for anything else (an internal failure). */
export function carryError(err: unknown): CarriedError | undefined {
  if (err instanceof SynthServiceError)
    return { kind: 'service', code: err.code, message: err.message, details: err.details };
  if (err instanceof CompareError) return { kind: 'compare', code: err.code, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'string' && /^[A-Z_]+$/.test(code))
    return { kind: 'coded', code, message: err.message };
  return undefined;
}

export function rebuildError(carried: CarriedError): Error {
  if (carried.kind === 'service')
    return new SynthServiceError(
      carried.code as SynthServiceError['code'],
      carried.message,
      carried.details ?? {},
    );
  if (carried.kind === 'compare')
    return new CompareError(carried.code as CompareError['code'], carried.message);
  return Object.assign(new Error(carried.message), { code: carried.code });
}

export function bad(message: string): SynthServiceError {
  return new SynthServiceError('BAD_REQUEST', message);
}

function seedArg(value: unknown): bigint | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d{1,20}$/.test(text.trim()))
    throw bad('seed must be an integer (a decimal string for 64-bit values)');
  const seed = BigInt(text.trim());
  if (seed < -(1n << 63n) || seed >= 1n << 64n) throw bad('seed must fit in 64 bits');
  return BigInt.asIntN(64, seed);
}

export function optionsArg(value: unknown): { compare: CompareOptions; header: HeaderChoice } {
  if (value === undefined) return { compare: {}, header: 'auto' };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw bad('options must be an object');
  const o = new Map(Object.entries(value));
  const known = new Set(['highP', 'mediumP', 'maxCategories', 'identifierColumns', 'header']);
  for (const key of o.keys())
    if (!known.has(key)) throw bad(`options.${key} is not an option (${[...known].join(', ')})`);
  const compare: CompareOptions = {};
  for (const key of ['highP', 'mediumP'] as const) {
    const v = o.get(key);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !(v > 0 && v < 1))
      throw bad(`options.${key} must be a number between 0 and 1`);
    compare[key] = v;
  }
  const cats = o.get('maxCategories');
  if (cats !== undefined) {
    if (typeof cats !== 'number' || !Number.isInteger(cats) || cats < 2 || cats > 1000)
      throw bad('options.maxCategories must be an integer from 2 to 1000');
    compare.maxCategories = cats;
  }
  const ids = o.get('identifierColumns');
  if (ids !== undefined) {
    if (ids !== 'auto' && !(Array.isArray(ids) && ids.every((x) => typeof x === 'string')))
      throw bad('options.identifierColumns must be "auto" or a list of column names');
    compare.identifierColumns = ids as 'auto' | string[];
  }
  const header = o.get('header') ?? 'auto';
  if (header !== 'auto' && header !== 'yes' && header !== 'no')
    throw bad('options.header must be auto, yes or no');
  return { compare, header };
}

/** The columns left out (`ignore`): a list of sample column names. */
export function ignoreArg(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'string') || value.length > 200)
    throw bad('ignore must be a list of sample column names');
  return value;
}

/** The sample's type and size, checked before it is parsed (cheap: done on the server's thread too). */
export function checkSampleText(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw bad('sampleCsv must be a non-empty string holding the CSV');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > COMPARE_LIMITS.sampleBytes)
    throw new CompareError(
      'COMPARE_LIMIT',
      `sampleCsv is ${bytes} bytes; the limit is ${COMPARE_LIMITS.sampleBytes}`,
    );
  return value;
}

/** Whether the request compares against a held generation (and so the runner must read it first). */
export function wantsGeneration(
  args: CompareJob['args'],
): args is CompareJob['args'] & { generationId: string } {
  return typeof args.generationId === 'string' && args.modelText === undefined && args.seed === undefined;
}

/** A deadline, checked while the output is drawn (cancellation stops the worker from outside). */
function budget(): () => void {
  const deadline = Date.now() + COMPARE_LIMITS.timeMs;
  return () => {
    if (Date.now() > deadline)
      throw new CompareError(
        'COMPARE_LIMIT',
        `the comparison passed its ${COMPARE_LIMITS.timeMs / 1000} s budget; use a smaller sample`,
      );
  };
}

async function modelTable(
  load: LoadOptions,
  modelText: unknown,
  seed: bigint | undefined,
  rows: number,
  check: () => void,
) {
  const text = modelTextArg(modelText);
  const model = parseModel(text);
  const seedInfo = resolveSeed(seed, model, () => randomBytes(8).readBigUInt64BE() >> 1n || 1n);
  const run = new SynthRun(await loadSynthModel(model, load), seedInfo.seed);
  return {
    table: outputTable(run, rows, check),
    seed: String(seedInfo.seed),
    // a seed given in the call came with the request, as generate reports it (`cli` is the CLI's)
    seedSource: seedInfo.seedSource === 'cli' ? 'request' : seedInfo.seedSource,
  };
}

/** The report made to fit one result: at most MAX_FINDINGS findings, the matrices left out. */
function compact(report: CompareReport): Record<string, unknown> {
  const { findings, correlation, ...rest } = report;
  return {
    ...rest,
    findings: findings.slice(0, MAX_FINDINGS),
    omittedFindings: Math.max(0, findings.length - MAX_FINDINGS),
    correlation: { columns: correlation.columns, maxDifference: correlation.maxDifference },
  };
}

/** Runs one comparison (in the worker). `load` is the job's options plus the worker's own ports. */
export async function runCompareJob(job: CompareJob, load: LoadOptions): Promise<Record<string, unknown>> {
  const a = job.args;
  const { compare, header } = optionsArg(a.options);
  const ignore = ignoreArg(a.ignore);
  if (ignore) compare.ignore = ignore;
  const sample = parseSampleCsv(checkSampleText(a.sampleCsv), header, COMPARE_LIMITS.rows);
  if (sample.header.length > COMPARE_LIMITS.columns)
    throw new CompareError(
      'COMPARE_LIMIT',
      `the sample has ${sample.header.length} columns; the limit is ${COMPARE_LIMITS.columns}`,
    );
  const check = budget();
  let generated: Table;
  let seedInfo: { seed?: string; seedSource?: string } = {};
  if ((a.modelText === undefined) === (a.generationId === undefined))
    throw bad('give modelText or generationId, not both');
  if (typeof a.generationId === 'string') {
    if (a.seed !== undefined) throw bad('seed goes with modelText; a generation has its own');
    if (!job.generation) throw new Error('the runner did not read the generation');
    if ('error' in job.generation) throw rebuildError(job.generation.error);
    generated = parseSampleCsv(job.generation.text, 'no', COMPARE_LIMITS.rows);
  } else if (a.generationId !== undefined) throw bad('generationId must be a string');
  else {
    const made = await modelTable(load, a.modelText, seedArg(a.seed), sample.rows.length, check);
    generated = made.table;
    seedInfo = { seed: made.seed, seedSource: made.seedSource };
  }
  check();
  return {
    ...seedInfo,
    ...compact(compareTables(sample, generated, { ...compare, maxColumns: COMPARE_LIMITS.columns })),
  };
}
