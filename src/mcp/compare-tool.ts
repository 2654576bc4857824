/**
 * compare_sample: a sample CSV against a synth model's own output for the sample's row count and
 * the seed (or against a generation this server holds). Bounded: the sample's size and rows, the
 * columns, and a time budget for the run; errors carry stable codes.
 */
import { randomBytes } from 'node:crypto';
import { fitGate } from '../service/fit-runner.js';
import { SynthServiceError } from '../service/synth-errors.js';
import { modelTextArg, type SynthService } from '../service/synth-service.js';
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
import { SynthRun, loadSynthModel, parseModel, resolveSeed } from '../synth/index.js';
import { RESULT_LIMIT_CHARS, type ToolResult } from './results.js';
import { synthErrorResult } from './synth-tools.js';
import { input, output, READ, type ToolDefinition } from './tool.js';

/** The sample's limits: text, rows and columns (a report must fit one tool result). */
export const COMPARE_LIMITS = { sampleBytes: 4 * 1024 * 1024, rows: 20_000, columns: 40, timeMs: 30_000 };
/** Findings listed in the result; the rest are counted in omittedFindings. */
const MAX_FINDINGS = 40;

function bad(message: string): SynthServiceError {
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

function optionsArg(value: unknown): { compare: CompareOptions; header: HeaderChoice } {
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

function sampleArg(value: unknown, header: HeaderChoice): Table {
  if (typeof value !== 'string' || value.trim() === '')
    throw bad('sampleCsv must be a non-empty string holding the CSV');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > COMPARE_LIMITS.sampleBytes)
    throw new CompareError(
      'COMPARE_LIMIT',
      `sampleCsv is ${bytes} bytes; the limit is ${COMPARE_LIMITS.sampleBytes}`,
    );
  return parseSampleCsv(value, header, COMPARE_LIMITS.rows);
}

/** A deadline and the client's cancellation, checked while the output is drawn. */
function budget(signal: AbortSignal): () => void {
  const deadline = Date.now() + COMPARE_LIMITS.timeMs;
  return () => {
    if (signal.aborted) throw new CompareError('COMPARE_LIMIT', 'the comparison was cancelled');
    if (Date.now() > deadline)
      throw new CompareError(
        'COMPARE_LIMIT',
        `the comparison passed its ${COMPARE_LIMITS.timeMs / 1000} s budget; use a smaller sample`,
      );
  };
}

/** The whole output of a csv generation this server holds, as a table. */
function generationTable(service: SynthService, id: string): Table {
  if (!id.startsWith('e-'))
    throw bad('generationId must be an e-… id of this server (generate in embedded mode)');
  const info = service.generationInfo(id);
  if (info.format !== 'csv') throw bad(`generation ${id} is ${info.format}; compare reads csv generations`);
  let text = '';
  for (let offset = 0; offset < info.count;) {
    const page = service.readGeneration(id, { offset, limit: 10_000, maxChars: Number.MAX_SAFE_INTEGER });
    text += page.data;
    offset += page.rowCount;
  }
  return parseSampleCsv(text, 'no', COMPARE_LIMITS.rows);
}

async function modelTable(
  service: SynthService,
  modelText: unknown,
  seed: bigint | undefined,
  rows: number,
  check: () => void,
) {
  const text = modelTextArg(modelText);
  const model = parseModel(text);
  const seedInfo = resolveSeed(seed, model, () => randomBytes(8).readBigUInt64BE() >> 1n || 1n);
  const run = new SynthRun(await loadSynthModel(model, service.loadOptions()), seedInfo.seed);
  return {
    table: outputTable(run, rows, check),
    seed: String(seedInfo.seed),
    seedSource: seedInfo.seedSource,
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

export async function compareSample(
  service: SynthService,
  a: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const { compare, header } = optionsArg(a.options);
  const sample = sampleArg(a.sampleCsv, header);
  if (sample.header.length > COMPARE_LIMITS.columns)
    throw new CompareError(
      'COMPARE_LIMIT',
      `the sample has ${sample.header.length} columns; the limit is ${COMPARE_LIMITS.columns}`,
    );
  const check = budget(signal);
  let generated: Table;
  let seedInfo: { seed?: string; seedSource?: string } = {};
  if ((a.modelText === undefined) === (a.generationId === undefined))
    throw bad('give modelText or generationId, not both');
  if (typeof a.generationId === 'string') {
    if (a.seed !== undefined) throw bad('seed goes with modelText; a generation has its own');
    generated = generationTable(service, a.generationId);
  } else if (a.generationId !== undefined) throw bad('generationId must be a string');
  else {
    const made = await modelTable(service, a.modelText, seedArg(a.seed), sample.rows.length, check);
    generated = made.table;
    seedInfo = { seed: made.seed, seedSource: made.seedSource };
  }
  check();
  return {
    ...seedInfo,
    ...compact(compareTables(sample, generated, { ...compare, maxColumns: COMPARE_LIMITS.columns })),
  };
}

const REPORT = output({ highCount: { type: 'integer' }, findings: { type: 'array' } }, [
  'highCount',
  'findings',
]);

export function compareSampleTool(service: SynthService, log?: (message: string) => void): ToolDefinition {
  return {
    name: 'compare_sample',
    title: 'Compare a sample with a model',
    description: `sampleCsv vs the model's output (same rows, seed) or generationId's rows. Findings {severity, kind, column, message}: formats, distributions, tails, spikes, categories, copied ids, correlations, duplicates. ≤${COMPARE_LIMITS.rows} rows, ${COMPARE_LIMITS.columns} columns.`,
    inputSchema: input(
      {
        modelText: { type: 'string' },
        generationId: { type: 'string' },
        sampleCsv: { type: 'string' },
        seed: { type: ['integer', 'string'] },
        options: {
          type: 'object',
          description: 'highP, mediumP, maxCategories, identifierColumns, header (auto|yes|no)',
        },
      },
      ['sampleCsv'],
    ),
    outputSchema: REPORT,
    annotations: READ,
    run: async (a, ctx): Promise<ToolResult> => {
      try {
        // behind the fits' gate: a few heavy analyses at a time, then BUSY with a retry hint
        const report = await fitGate()
          .run(() => compareSample(service, a, ctx.signal), ctx.signal)
          .catch((err: unknown) => {
            if (ctx.signal.aborted && !(err instanceof CompareError))
              throw new CompareError('COMPARE_LIMIT', 'the comparison was cancelled');
            throw err;
          });
        const text = JSON.stringify(report);
        if (text.length > RESULT_LIMIT_CHARS)
          throw new SynthServiceError(
            'TOO_LARGE',
            `the report is ${text.length} characters, over ${RESULT_LIMIT_CHARS}; compare fewer columns`,
          );
        return { content: [{ type: 'text', text }], structuredContent: report };
      } catch (err) {
        return synthErrorResult(err, log);
      }
    },
  };
}
