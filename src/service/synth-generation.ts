/**
 * One generation held in memory: the output exactly as `synth grind` writes it (no header), as
 * UTF-8 chunks with row offsets so it can be paged; the size projection that refuses an oversized
 * run early (a lower bound from the row's width before any row, then the warm-up's size), and the
 * byte cap enforced row by row while it is produced (a row is refused before it is built past the
 * cap, and a very wide row is rendered a slice of columns at a time, yielding between slices);
 * paging within a character budget; and a least-recently-used cache bounded both in generations
 * and in bytes held. (The rows a graph holds are bounded by the same cap when it is built: see
 * src/synth/engine/graph-budget.ts.)
 */
import { availableParallelism } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { SynthRun } from '../synth/index.js';
import type { Row } from '../synth/engine/row.js';
import { type SeedSource, SynthError, renderRow } from '../synth/index.js';
import { minRowChars, renderColumns } from '../synth/output/format.js';
import { PARALLEL_MIN_ROWS, RowPool, defaultWorkers, planParallel } from '../synth-io/parallel/index.js';
import { SynthServiceError } from './synth-errors.js';

/** Row-oriented formats: each row's text stands alone, so any page concatenates to the whole. */
export const PAGED_FORMATS = ['csv', 'raw', 'ndjson'] as const;
export type PagedFormat = (typeof PAGED_FORMATS)[number];

/** Hard row cap for any one generation, whatever the byte projection says. */
export const MAX_ROWS = 2_000_000;
/** Largest byte cap a generation may have (row offsets are 32-bit). */
export const MAX_GENERATION_BYTES = 2 ** 32 - 1;
/** Rows generated before the full run to project its size. */
export const WARMUP_ROWS = 1000;
/** Rows per slice between yields to the event loop (keeps a server responsive, lets a cancel land). */
const SLICE_ROWS = 8192;
/** Characters per slice: a slice also ends here, so wide rows yield as often as narrow ones. */
const SLICE_CHARS = 1024 * 1024;
/**
 * How far past the cap one row may be built before it is refused mid-row: rows just over the cap
 * are measured exactly, a huge row never exists in full.
 */
const ROW_SLACK_CHARS = 64 * 1024;
/**
 * Columns rendered between two yields of a row wider than this: rendering ~16,000 values takes a
 * few milliseconds, so a row of a million columns holds the event loop no longer than a slice.
 */
const WIDE_ROW_COLUMNS = 16_384;
/** Columns a big row is rendered by, between checks of its text against the slice and the cap. */
const ROW_SLICE_COLUMNS = 256;

/** How the effective seed was chosen; an explicit seed in a request is `request`. */
export type GenerationSeedSource = Exclude<SeedSource, 'cli'> | 'request';

export interface Generation {
  id: string;
  modelId: string;
  format: PagedFormat;
  seed: bigint;
  seedSource: GenerationSeedSource;
  count: number;
  /** The whole output as UTF-8, in chunks that each end at a row boundary. */
  chunks: readonly Buffer[];
  /** Byte offset of each chunk in the whole output. */
  chunkStarts: readonly number[];
  /** Row `i` is bytes `offsets[i] .. offsets[i + 1]` of the whole output. */
  offsets: Uint32Array;
  /** UTF-8 size of the output. */
  bytes: number;
  createdAt: string;
}

/** What a generation holds in memory: its text and its row offsets. */
export function heldBytes(gen: Generation): number {
  return gen.bytes + gen.offsets.byteLength;
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
  /** Worker threads for this generation (default: the cores available); never changes the bytes. */
  workers?: number;
  /** Start only once every worker is ready (tests: otherwise the run may finish without them). */
  waitForWorkers?: boolean;
}

/** Setting: worker threads one generation may use (default: the cores available). */
export const WORKERS_SETTING = 'MODELWORKS_SYNTH_WORKERS';

/**
 * Worker threads from MODELWORKS_SYNTH_WORKERS: 1 to 256, unset or blank for the cores available.
 * @throws Error naming the setting when it is malformed
 */
export function workersFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env[WORKERS_SETTING]?.trim();
  if (text === undefined || text === '') return availableParallelism();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 256)
    throw new Error(`${WORKERS_SETTING} must be a whole number from 1 to 256 (got '${text}')`);
  return Number(text);
}

const sizeError = (
  req: ProduceRequest,
  what: string,
  bytes: number,
  field: 'projectedBytes' | 'bytes' = 'bytes',
): SynthServiceError =>
  new SynthServiceError(
    'TOO_LARGE',
    `${what} ${bytes} bytes for ${req.count} rows exceeds the cap of ${req.maxBytes} bytes (${req.maxBytesSetting}); ask for fewer rows or raise the cap`,
    { count: req.count, maxBytes: req.maxBytes, [field]: bytes },
  );

function checkCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SynthServiceError('CANCELLED', 'generation cancelled');
}

/**
 * Generates `count` rows. The cap holds while rows are produced: each row is measured as it is
 * added, and a row is refused mid-way once it alone would pass what is left of the cap. After a
 * warm-up sample the size of the whole run is projected, so an oversized request stops early.
 * Memory held: the output so far (at most the cap), one slice of text, the row offsets.
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
  if (req.maxBytes > MAX_GENERATION_BYTES)
    throw new SynthServiceError('CONFIG', `the byte cap ${req.maxBytes} passes ${MAX_GENERATION_BYTES}`);
  const dimension = run.dimension;
  // before any row exists: even at its shortest the output would pass the cap
  const rowFloor = minRowChars(dimension, format) + (format === 'ndjson' ? 1 : 0);
  if (count * rowFloor > req.maxBytes)
    throw new SynthServiceError(
      'TOO_LARGE',
      `output of at least ${count * rowFloor} bytes for ${count} rows of ${dimension} columns (${rowFloor} bytes a row at the shortest) exceeds the cap of ${req.maxBytes} bytes (${req.maxBytesSetting}); ask for fewer rows or raise the cap`,
      { count, maxBytes: req.maxBytes, projectedBytes: count * rowFloor },
    );
  // column names are text in ndjson rows only; a wide model's names are not built otherwise
  const names = format === 'ndjson' ? run.header() : [];
  const offsets = new Uint32Array(count + 1);
  const chunks: Buffer[] = [];
  const chunkStarts: number[] = [];
  let bytes = 0;
  let row = 0;
  /**
   * Rows up to `until`, ending early once the slice holds SLICE_CHARS. A row whose own text passes
   * SLICE_CHARS ends it too: that row, drawn but not added, is returned for `generateBig`.
   */
  const generate = (until: number): Row | undefined => {
    let big: Row | undefined;
    let part = '';
    let partBytes = 0;
    for (; row < until && part.length < SLICE_CHARS; row++) {
      const used = bytes + partBytes;
      // characters never outnumber UTF-8 bytes: a row longer than this is over the cap
      const budget = req.maxBytes - used + ROW_SLACK_CHARS;
      const values = run.next();
      let text: string;
      try {
        text = renderRow(values, dimension, format, names, Math.min(budget, SLICE_CHARS));
      } catch (err) {
        if (!(err instanceof SynthError && err.code === 'SYNTH_LIMIT')) throw err;
        if (budget <= SLICE_CHARS) throw sizeError(req, 'output of at least', used + budget + 1);
        big = values; // longer than a slice: rendered again in slices, with yields between them
        break;
      }
      if (format === 'ndjson') text += '\n';
      partBytes += Buffer.byteLength(text, 'utf8');
      if (bytes + partBytes > req.maxBytes) throw sizeError(req, 'output of at least', bytes + partBytes);
      part += text;
      offsets[row + 1] = bytes + partBytes;
    }
    if (part !== '') {
      chunkStarts.push(bytes);
      chunks.push(Buffer.from(part, 'utf8'));
      bytes += partBytes;
    }
    return big;
  };
  /**
   * One row too wide or too long to render between two yields (more than WIDE_ROW_COLUMNS
   * columns, or text past SLICE_CHARS): rendered ROW_SLICE_COLUMNS columns at a time, yielding
   * whenever a slice's worth of columns or text is done, and refused as soon as its text passes
   * what is left of the cap.
   */
  const generateBig = async (values: Row): Promise<void> => {
    const used = bytes;
    let text = '';
    let yieldedAt = { chars: 0, column: 0 };
    // columns a slice: a few at first, then as many as keep a slice's text a fraction of
    // SLICE_CHARS (fewer when the texts are long), growing at most twofold a slice
    let step = 8;
    for (let from = 0; from < dimension;) {
      if (text.length - yieldedAt.chars >= SLICE_CHARS || from - yieldedAt.column >= WIDE_ROW_COLUMNS) {
        await yieldToEventLoop();
        checkCancelled(req.signal);
        yieldedAt = { chars: text.length, column: from };
      }
      const budget = req.maxBytes - used + ROW_SLACK_CHARS - text.length;
      const to = Math.min(dimension, from + step);
      let piece: string;
      try {
        piece = renderColumns(values, from, to, dimension, format, names, budget);
      } catch (err) {
        if (err instanceof SynthError && err.code === 'SYNTH_LIMIT')
          throw sizeError(req, 'output of at least', req.maxBytes + ROW_SLACK_CHARS + 1);
        throw err;
      }
      text += piece;
      const perColumn = Math.max(1, piece.length / (to - from));
      step = Math.max(1, Math.min(ROW_SLICE_COLUMNS, 2 * step, Math.floor(SLICE_CHARS / 8 / perColumn)));
      from = to;
    }
    if (format === 'ndjson') text += '\n';
    const rowBytes = Buffer.byteLength(text, 'utf8');
    if (used + rowBytes > req.maxBytes) throw sizeError(req, 'output of at least', used + rowBytes);
    chunkStarts.push(used);
    chunks.push(Buffer.from(text, 'utf8'));
    bytes = used + rowBytes;
    offsets[row + 1] = bytes;
    row++;
  };
  /** Adds one batch rendered elsewhere; false (nothing added) when it would pass the cap. */
  const addBatch = (text: Uint8Array, rowBytes: Uint32Array): boolean => {
    if (bytes + text.length > req.maxBytes) return false;
    let end = bytes;
    for (let i = 0; i < rowBytes.length; i++) offsets[row + 1 + i] = end += rowBytes[i]!;
    chunkStarts.push(bytes);
    chunks.push(Buffer.from(text.buffer, text.byteOffset, text.length));
    bytes += text.length;
    row += rowBytes.length;
    return true;
  };
  try {
    const warmup = Math.min(count, WARMUP_ROWS);
    let projected = warmup === 0 || warmup === count;
    let parallelTried = false;
    while (row < count) {
      if (projected && !parallelTried && row >= warmup) {
        parallelTried = true;
        await generateParallel(req, () => row, addBatch);
        if (row >= count) break;
      }
      if (row > 0) {
        await yieldToEventLoop();
        checkCancelled(req.signal);
      }
      if (dimension > WIDE_ROW_COLUMNS) await generateBig(run.next());
      else {
        const big = generate(Math.min(count, row < warmup ? warmup : row + SLICE_ROWS));
        if (big !== undefined) {
          await yieldToEventLoop();
          checkCancelled(req.signal);
          await generateBig(big);
        }
      }
      if (!projected && row >= warmup) {
        projected = true;
        const estimate = Math.ceil((bytes / warmup) * count);
        if (estimate > req.maxBytes) throw sizeError(req, 'projected output of', estimate, 'projectedBytes');
      }
    }
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
    chunks,
    chunkStarts,
    offsets,
    bytes,
    createdAt: new Date().toISOString(),
  };
}

/**
 * Rows from the current one on, over worker threads when the model allows it (see
 * src/synth-io/parallel), handed to `add` batch by batch. It stops, leaving the run's stream at
 * the first row not added, when a batch would pass the cap or any batch fails: the one-thread
 * loop then goes on from there and meets the same cap or error at the same row.
 */
async function generateParallel(
  req: ProduceRequest,
  current: () => number,
  add: (text: Uint8Array, rowBytes: Uint32Array) => boolean,
): Promise<void> {
  const { run, count, format } = req;
  const workers = req.workers ?? defaultWorkers();
  if (workers <= 1 || count - current() < PARALLEL_MIN_ROWS) return;
  // the probe and this thread's batches use the request's run: one graph per thread (see planParallel)
  const plan = planParallel(run.prepared, req.seed, format, run);
  if (!plan.ok) return;
  const pool = new RowPool(run.prepared, req.seed, plan, {
    workers,
    format,
    rowBytes: true,
    run,
    waitForWorkers: req.waitForWorkers,
  });
  let resume = run.random.saveState();
  try {
    for await (const batch of pool.batches(current(), count, resume)) {
      checkCancelled(req.signal);
      if (!add(batch.text, batch.rowBytes!)) break;
      resume = batch.end;
    }
  } catch (err) {
    if (err instanceof SynthServiceError) throw err;
    // a failing row: the one-thread loop reaches it again from the last batch added
  } finally {
    run.random.restoreState(resume);
    await pool.close();
  }
}

/** The output between two byte offsets that fall on row boundaries. */
export function textBetween(gen: Generation, start: number, end: number): string {
  if (end <= start) return '';
  const { chunks, chunkStarts } = gen;
  // the last chunk starting at or before `start`
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (chunkStarts[mid]! <= start) lo = mid;
    else hi = mid - 1;
  }
  let text = '';
  for (let c = lo; c < chunks.length && chunkStarts[c]! < end; c++) {
    const from = Math.max(start, chunkStarts[c]!) - chunkStarts[c]!;
    const to = Math.min(end, chunkStarts[c]! + chunks[c]!.length) - chunkStarts[c]!;
    text += chunks[c]!.toString('utf8', from, to);
  }
  return text;
}

/** The whole output of a generation. */
export function generationText(gen: Generation): string {
  return textBetween(gen, 0, gen.bytes);
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
  const { offsets } = gen;
  let end = Math.min(gen.count, offset + limit);
  const start = offsets[offset]!;
  // Fast path: even if every byte became two characters when escaped, the page fits.
  if ((offsets[end]! - start) * 2 > maxChars) {
    let used = 0;
    let i = offset;
    for (; i < end; i++) {
      const n = jsonLength(textBetween(gen, offsets[i]!, offsets[i + 1]!));
      if (i > offset && used + n > maxChars) break;
      used += n;
    }
    end = i;
  }
  return { offset, rowCount: end - offset, data: textBetween(gen, start, offsets[end]!) };
}

/**
 * At most `maxEntries` generations holding at most `maxBytes` between them (text plus row
 * offsets), the least recently used dropped first. The generation just added always stays.
 */
export class GenerationCache {
  private readonly entries = new Map<string, Generation>();
  private held = 0;
  /** Generations pushed out to make room, since start (a metric). */
  evictions = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  add(gen: Generation): void {
    this.delete(gen.id);
    this.entries.set(gen.id, gen);
    this.held += heldBytes(gen);
    while (this.entries.size > 1 && (this.entries.size > this.maxEntries || this.held > this.maxBytes)) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
      this.evictions++;
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
    const gen = this.entries.get(id);
    if (gen === undefined) return false;
    this.entries.delete(id);
    this.held -= heldBytes(gen);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held by the cached generations. */
  get bytes(): number {
    return this.held;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
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
