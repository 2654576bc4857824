/**
 * fit_model: proposes a synth model from a sample CSV (or a csv generation this server holds):
 * the model text plus the fit report. Bounded: sample bytes, rows, wall time and memory; the fit
 * runs in a worker thread (service/fit-runner.ts), a few at a time, so the server keeps answering
 * while it runs and a cancellation stops it. Errors carry stable codes.
 */
import { SynthServiceError } from '../service/synth-errors.js';
import type { SynthService } from '../service/synth-service.js';
import { fitInWorker } from '../service/fit-runner.js';
import { type FitControl, FitError, type FitOptions } from '../synth/fit/index.js';
import { type ModelFormat, loadSynthModel, parseModel } from '../synth/index.js';
import { okResult, textError, type ToolResult } from './results.js';
import { input, output, READ, type ToolDefinition } from './tool.js';

/** What one call may read (the sample's text and its rows) and the wall time it may take. */
export const FIT_LIMITS = { sampleBytes: 8 * 1024 * 1024, rows: 200_000, timeMs: 60_000 };

/** A deadline and the client's cancellation, checked between the fit's steps. */
export function fitControl(signal: AbortSignal, timeMs: number): FitControl {
  const deadline = Date.now() + timeMs;
  return {
    check: () => {
      if (signal.aborted) throw new FitError('CANCELLED', 'the request was cancelled; the fit was stopped');
      if (Date.now() > deadline)
        throw new FitError(
          'FIT_LIMIT',
          `the fit passed its ${timeMs / 1000} s budget and was stopped; fit fewer rows or columns`,
        );
    },
    pause: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

function bad(message: string): SynthServiceError {
  return new SynthServiceError('BAD_REQUEST', message);
}

function optionsArg(value: unknown): FitOptions & { format: ModelFormat } {
  if (value === undefined) return { format: 'xml' };
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw bad('options must be an object');
  const o = new Map(Object.entries(value));
  const known = new Set(['format', 'seed', 'criterion', 'header', 'minCategoryCount']);
  for (const key of o.keys())
    if (!known.has(key)) throw bad(`options.${key} is not an option (${[...known].join(', ')})`);
  const format = o.get('format') ?? 'xml';
  if (format !== 'xml' && format !== 'json' && format !== 'sgm')
    throw bad('options.format must be xml, json or sgm');
  const out: FitOptions & { format: ModelFormat } = { format };
  const seed = o.get('seed');
  if (seed !== undefined) {
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 1)
      throw bad('options.seed must be a positive integer');
    out.seed = seed;
  }
  const criterion = o.get('criterion');
  if (criterion !== undefined) {
    if (criterion !== 'aic' && criterion !== 'bic') throw bad('options.criterion must be aic or bic');
    out.criterion = criterion;
  }
  const header = o.get('header');
  if (header !== undefined) {
    if (typeof header !== 'boolean') throw bad('options.header must be true or false');
    out.header = header;
  }
  const min = o.get('minCategoryCount');
  if (min !== undefined) {
    if (typeof min !== 'number' || !Number.isInteger(min) || min < 1 || min > 1000)
      throw bad('options.minCategoryCount must be an integer from 1 to 1000');
    out.minCategoryCount = min;
  }
  return out;
}

/** The whole text of a csv generation this server holds (it has no header row). */
function generationText(service: SynthService, id: string): string {
  if (!id.startsWith('e-'))
    throw bad('generationId must be an e-… id of this server (generate in embedded mode)');
  const info = service.generationInfo(id);
  if (info.format !== 'csv') throw bad(`generation ${id} is ${info.format}; fit reads csv generations`);
  if (info.count > FIT_LIMITS.rows)
    throw new FitError('FIT_LIMIT', `generation ${id} has more than ${FIT_LIMITS.rows} rows`);
  let text = '';
  for (let offset = 0; offset < info.count;) {
    const page = service.readGeneration(id, { offset, limit: 10_000, maxChars: Number.MAX_SAFE_INTEGER });
    text += page.data;
    offset += page.rowCount;
  }
  return text;
}

async function run(
  service: SynthService | undefined,
  a: Record<string, unknown>,
  signal: AbortSignal,
  timeMs: number,
): Promise<ToolResult> {
  const { format, ...options } = optionsArg(a.options);
  let text: string;
  if (typeof a.sampleCsv === 'string' && a.generationId === undefined) {
    const bytes = Buffer.byteLength(a.sampleCsv, 'utf8');
    if (bytes > FIT_LIMITS.sampleBytes)
      throw new FitError('FIT_LIMIT', `sampleCsv is ${bytes} bytes; the limit is ${FIT_LIMITS.sampleBytes}`);
    text = a.sampleCsv;
  } else if (typeof a.generationId === 'string' && a.sampleCsv === undefined && service) {
    text = generationText(service, a.generationId);
    options.header ??= false;
  } else throw bad('give sampleCsv (CSV text) or generationId (an e-… csv generation), not both');
  const { modelText, report } = await fitInWorker(
    { text, options: { ...options, maxRows: FIT_LIMITS.rows }, format },
    { signal, timeMs },
  );
  if (service?.edition === 'free') {
    const refusal = await refusedUnderFree(service, modelText);
    if (refusal) return refusal;
  }
  return okResult({ format, modelText, report }, 'fit fewer columns');
}

/**
 * A Free-edition server refuses models over its node limit or with Pro components, and a fitted
 * model usually is one: load it with the server's own gates, and refuse with why, rather than
 * return a model this server would not run.
 */
async function refusedUnderFree(service: SynthService, modelText: string): Promise<ToolResult | undefined> {
  try {
    await loadSynthModel(parseModel(modelText), service.loadOptions());
    return undefined;
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'SYNTH_LICENSE') throw err;
    const shape = {
      error: `the fitted model needs the Pro edition and this server runs the Free edition (${(err as Error).message}); fit on a full-edition server or with the CLI`,
      code: 'SYNTH_LICENSE',
    };
    return {
      content: [{ type: 'text', text: JSON.stringify(shape) }],
      structuredContent: shape,
      isError: true,
    };
  }
}

/** `timeMs`: the wall-time budget of one call (tests give a small one). */
export function fitModelTool(service?: SynthService, timeMs = FIT_LIMITS.timeMs): ToolDefinition {
  return {
    name: 'fit_model',
    title: 'Fit a synth model to a sample',
    description:
      'Proposes a synth model from a sample CSV (or an e-… csv generation): typed columns, fitted marginals, a Gaussian copula; identifiers, free text and rare categories are never copied. Deterministic. Result: {format, modelText, report}.',
    inputSchema: input({
      sampleCsv: { type: 'string' },
      generationId: { type: 'string' },
      options: {
        type: 'object',
        description: 'format xml|json|sgm, seed, criterion aic|bic, header, minCategoryCount',
      },
    }),
    outputSchema: output(
      { format: { type: 'string' }, modelText: { type: 'string' }, report: { type: 'object' } },
      ['format', 'modelText', 'report'],
    ),
    annotations: READ,
    run: async (a, ctx) => {
      try {
        return await run(service, a, ctx.signal, timeMs);
      } catch (err) {
        if (err instanceof FitError) return fitError(err);
        if (err instanceof SynthServiceError) return fitError(err);
        return textError('internal error: the sample could not be fitted');
      }
    },
  };
}

function fitError(err: FitError | SynthServiceError): ToolResult {
  // a BUSY refusal carries its retry hint (retryAfterSeconds)
  const details = err instanceof SynthServiceError ? err.details : {};
  const shape = { error: err.message, code: err.code, ...details };
  return {
    content: [{ type: 'text', text: JSON.stringify(shape) }],
    structuredContent: shape,
    isError: true,
  };
}
