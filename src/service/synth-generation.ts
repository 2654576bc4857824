/**
 * One generation held in memory: the output text exactly as `synth grind` writes it (no header),
 * with row offsets so it can be paged; the size projection that refuses an oversized run before
 * it starts; paging within a character budget; and a bounded least-recently-used cache.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { SynthRun } from '../synth/index.js';
import { type SeedSource, SynthError, renderRow } from '../synth/index.js';
import { SynthServiceError } from './synth-errors.js';

/** Row-oriented formats: each row's text stands alone, so any page concatenates to the whole. */
export const PAGED_FORMATS = ['csv', 'raw', 'ndjson'] as const;
export type PagedFormat = (typeof PAGED_FORMATS)[number];

/** Hard row cap for any one generation, whatever the byte projection says. */
export const MAX_ROWS = 2_000_000;
/** Rows generated before the full run to project its size. */
export const WARMUP_ROWS = 1000;
/** Rows per slice between yields to the event loop (keeps a server responsive, lets a cancel land). */
const SLICE_ROWS = 8192;

/** How the effective seed was chosen; an explicit seed in a request is `request`. */
export type GenerationSeedSource = Exclude<SeedSource, 'cli'> | 'request';

export interface Generation {
  id: string;
  modelId: string;
  format: PagedFormat;
  seed: bigint;
  seedSource: GenerationSeedSource;
  count: number;
  /** The whole output; rows `i` is `text.slice(offsets[i], offsets[i + 1])`. */
  text: string;
  offsets: Uint32Array;
  /** UTF-8 size of `text`. */
  bytes: number;
  createdAt: string;
}

export interface ProduceRequest {
  id: string;
  modelId: string;
  run: SynthRun;
  seed: bigint;
  seedSource: GenerationSeedSource;
  count: number;
  format: PagedFormat;
  /** Refuse when the projected or actual UTF-8 size passes this. */
  maxBytes: number;
  /** Name of the setting that holds `maxBytes`, for the error message. */
  maxBytesSetting: string;
  signal?: AbortSignal;
}

const sizeError = (req: ProduceRequest, what: string, bytes: number): SynthServiceError =>
  new SynthServiceError(
    'TOO_LARGE',
    `${what} ${bytes} bytes for ${req.count} rows exceeds the cap of ${req.maxBytes} bytes (${req.maxBytesSetting}); ask for fewer rows or raise the cap`,
    {
      count: req.count,
      maxBytes: req.maxBytes,
      [what.startsWith('projected') ? 'projectedBytes' : 'bytes']: bytes,
    },
  );

function rowText(run: SynthRun, format: PagedFormat, names: readonly string[]): string {
  const text = renderRow(run.next(), run.dimension, format, names);
  return format === 'ndjson' ? text + '\n' : text;
}

function checkCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SynthServiceError('CANCELLED', 'generation cancelled');
}

/**
 * Generates `count` rows: first a warm-up sample whose size, scaled to `count`, must fit the cap
 * (so an oversized request fails before the real work), then the rest of the same run.
 */
export async function produceGeneration(req: ProduceRequest): Promise<Generation> {
  const { run, count, format } = req;
  if (!Number.isInteger(count) || count < 0)
    throw new SynthServiceError('BAD_REQUEST', `count must be a non-negative integer (got ${count})`);
  if (count > MAX_ROWS)
    throw new SynthServiceError('TOO_LARGE', `count ${count} exceeds the row cap of ${MAX_ROWS}`, {
      count,
      maxRows: MAX_ROWS,
    });
  const names = run.header();
  const offsets = new Uint32Array(count + 1);
  const parts: string[] = [];
  let length = 0;
  let bytes = 0;
  let row = 0;
  const generate = (until: number): void => {
    let part = '';
    for (; row < until; row++) {
      part += rowText(run, format, names);
      offsets[row + 1] = length + part.length;
    }
    length += part.length;
    bytes += Buffer.byteLength(part, 'utf8');
    parts.push(part);
  };
  try {
    const warmup = Math.min(count, WARMUP_ROWS);
    generate(warmup);
    if (warmup > 0 && warmup < count) {
      const projected = Math.ceil((bytes / warmup) * count);
      if (projected > req.maxBytes) throw sizeError(req, 'projected output of', projected);
    }
    while (row < count) {
      await yieldToEventLoop();
      checkCancelled(req.signal);
      generate(Math.min(count, row + SLICE_ROWS));
      // the projection is an estimate: the cap holds for the real output too
      if (bytes > req.maxBytes) throw sizeError(req, 'output of at least', bytes);
    }
    if (bytes > req.maxBytes) throw sizeError(req, 'output of', bytes);
  } catch (err) {
    if (err instanceof SynthError)
      throw new SynthServiceError('GENERATION_FAILED', `generation failed at row ${row}: ${err.message}`);
    if (err instanceof RangeError)
      // a string or array past what the runtime can hold: only reachable with a very high cap
      throw new SynthServiceError('TOO_LARGE', `output too large to hold in memory at row ${row}`);
    throw err;
  }
  return {
    id: req.id,
    modelId: req.modelId,
    format,
    seed: req.seed,
    seedSource: req.seedSource,
    count,
    text: parts.join(''),
    offsets,
    bytes,
    createdAt: new Date().toISOString(),
  };
}

/** Length of `text` once written as a JSON string (without the quotes). */
function jsonLength(text: string): number {
  return JSON.stringify(text).length - 2;
}

export interface Page {
  offset: number;
  rowCount: number;
  data: string;
}

/**
 * Rows `offset …` up to `limit` of them, fewer when their JSON-escaped text would pass `maxChars`;
 * always at least one row when any remain (a single huge row is returned whole).
 */
export function pageOf(gen: Generation, offset: number, limit: number, maxChars: number): Page {
  if (!Number.isInteger(offset) || offset < 0)
    throw new SynthServiceError('BAD_REQUEST', `offset must be a non-negative integer (got ${offset})`);
  if (!Number.isInteger(limit) || limit < 0)
    throw new SynthServiceError('BAD_REQUEST', `limit must be a non-negative integer (got ${limit})`);
  if (offset > gen.count)
    throw new SynthServiceError(
      'BAD_REQUEST',
      `offset ${offset} is past the end of generation ${gen.id} (${gen.count} rows)`,
    );
  const { offsets, text } = gen;
  let end = Math.min(gen.count, offset + limit);
  const start = offsets[offset]!;
  // Fast path: even if every character doubled when escaped, the page fits.
  if ((offsets[end]! - start) * 2 > maxChars) {
    let used = 0;
    let i = offset;
    for (; i < end; i++) {
      const n = jsonLength(text.slice(offsets[i], offsets[i + 1]));
      if (i > offset && used + n > maxChars) break;
      used += n;
    }
    end = i;
  }
  return { offset, rowCount: end - offset, data: text.slice(start, offsets[end]) };
}

/** At most `maxEntries` generations, the least recently used dropped first. */
export class GenerationCache {
  private readonly entries = new Map<string, Generation>();

  constructor(readonly maxEntries: number) {}

  add(gen: Generation): void {
    this.entries.set(gen.id, gen);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** The generation (now the most recently used), or undefined when unknown or evicted. */
  get(id: string): Generation | undefined {
    const gen = this.entries.get(id);
    if (gen) {
      this.entries.delete(id);
      this.entries.set(id, gen);
    }
    return gen;
  }

  delete(id: string): boolean {
    return this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Parses a seed argument: an integer (safe) or a decimal string; 64-bit two's complement. */
export function parseSeedArgument(value: unknown): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new SynthServiceError(
        'BAD_REQUEST',
        `seed must be an integer (pass seeds beyond 2^53 as a decimal string); got ${value}`,
      );
    return BigInt(value);
  }
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) {
    const seed = BigInt(value.trim());
    if (seed < -(1n << 63n) || seed >= 1n << 64n)
      throw new SynthServiceError('BAD_REQUEST', `seed must fit in 64 bits (got ${value})`);
    return BigInt.asIntN(64, seed);
  }
  throw new SynthServiceError(
    'BAD_REQUEST',
    `seed must be an integer or a decimal string (got ${JSON.stringify(value)})`,
  );
}

export function parseFormat(value: unknown): PagedFormat {
  if (value === undefined || value === null) return 'csv';
  if (typeof value === 'string' && (PAGED_FORMATS as readonly string[]).includes(value))
    return value as PagedFormat;
  const hint =
    value === 'json' ? ' (for JSON rows use ndjson: pages of a JSON array would not concatenate)' : '';
  throw new SynthServiceError(
    'BAD_REQUEST',
    `format must be one of ${PAGED_FORMATS.join(', ')} (got ${JSON.stringify(value)})${hint}`,
  );
}
