/**
 * The sink interface: rows of one generation, in order, in column batches → a destination
 * (Parquet file, PostgreSQL table). A write is all or nothing: `commit` makes every row visible at
 * once, `abort` leaves no trace, so a partition written twice (a retried job) ends the same.
 *
 * The engine has no static column types: every data point carries its own kind. A column's type is
 * decided from the kinds of the generation's first rows (a probe with a fresh run of the same
 * seed): int, double or text; a column whose kinds differ is text (the CSV field's text). A later
 * row that does not fit widens the column to text and the write starts again, unless the types were
 * fixed in advance (queued partitions share one schema), which is then a SINK_TYPE error.
 */
import type { SynthRun } from '../../synth/index.js';
import { valueText } from '../../synth/index.js';
import { DOUBLE, INT, isText } from '../../synth/engine/row.js';
import type { RowRange } from '../partition.js';

export type ColumnType = 'int' | 'double' | 'text';
export const COLUMN_TYPES: readonly ColumnType[] = ['int', 'double', 'text'];

export interface SinkColumn {
  readonly name: string;
  readonly type: ColumnType;
}

/** Consecutive rows of the generation, column by column. */
export interface RowBatch {
  /** The generation's number (from 0) of the batch's first row. */
  readonly firstRow: number;
  readonly length: number;
  /**
   * One array per column: numbers for int and double columns, text for text columns; `null` where
   * the value is missing (an empty value, as a Missing node writes it: an empty CSV field).
   */
  readonly values: readonly (readonly (number | null)[] | readonly (string | null)[])[];
}

export interface RowSink {
  /** The columns the destination has, when it decides their types (an existing table). */
  readonly columns?: readonly SinkColumn[];
  write(batch: RowBatch): Promise<void>;
  /** Makes every row written visible at once. */
  commit(): Promise<void>;
  /** Drops whatever this write did; safe to call after a failed write or commit. */
  abort(): Promise<void>;
}

/** Opens a sink for the rows `range` of a generation with these columns. */
export type SinkFactory = (columns: readonly SinkColumn[], range: RowRange) => Promise<RowSink>;

export type SinkErrorCode = 'SINK_TARGET' | 'SINK_TYPE' | 'SINK_WRITE';

/** A sink's failure: a stable code and a message in our words. */
export class SinkError extends Error {
  readonly code: SinkErrorCode;
  constructor(code: SinkErrorCode, message: string) {
    super(message);
    this.name = 'SinkError';
    this.code = code;
  }
}

/** Rows the column types are decided from. */
export const PROBE_ROWS = 1000;

function typeOfKind(kind: number): ColumnType {
  return kind === INT ? 'int' : kind === DOUBLE ? 'double' : 'text';
}

/** The column types of `rows` observations of a fresh run. */
export function probeColumnTypes(run: SynthRun, rows: number): ColumnType[] {
  const types: (ColumnType | undefined)[] = new Array<ColumnType | undefined>(run.dimension);
  for (let r = 0; r < rows; r++) {
    const { kinds, strs } = run.next();
    for (let i = 0; i < run.dimension; i++) {
      // a missing value (empty) fits any column: the others decide its type
      if (isText(kinds[i]!) && (strs[i] ?? '') === '') continue;
      const t = typeOfKind(kinds[i]!);
      types[i] = types[i] === undefined || types[i] === t ? t : 'text';
    }
  }
  // no rows to look at: every value is text
  return Array.from(types, (t) => t ?? 'text');
}

/** Ints at or past 2^63 do not fit a 64-bit column (Parquet INT64, PostgreSQL bigint). */
const INT64_LIMIT = 2 ** 63;

/** Thrown inside a write when a row does not fit its column's type. */
class Misfit extends Error {
  constructor(
    readonly column: number,
    readonly row: number,
    readonly type: ColumnType,
  ) {
    super('a value does not fit its column');
  }
}

/** Fills one batch of `length` rows from the run, checking each value against its column. */
function fillBatch(run: SynthRun, types: readonly ColumnType[], firstRow: number, length: number): RowBatch {
  const values = types.map((t) =>
    t === 'text' ? new Array<string | null>(length) : new Array<number | null>(length),
  );
  for (let r = 0; r < length; r++) {
    const row = run.next();
    for (let i = 0; i < types.length; i++) {
      const kind = row.kinds[i]!;
      const type = types[i]!;
      if (isText(kind) && (row.strs[i] ?? '') === '') values[i]![r] = null;
      else if (type === 'text')
        (values[i] as (string | null)[])[r] = isText(kind)
          ? (row.strs[i] ?? '')
          : valueText(row.nums[i]!, kind);
      else if (typeOfKind(kind) !== type) throw new Misfit(i, firstRow + r, typeOfKind(kind));
      else if (type === 'int' && !(Math.abs(row.nums[i]!) < INT64_LIMIT))
        throw new Misfit(i, firstRow + r, 'text');
      else (values[i] as (number | null)[])[r] = row.nums[i]!;
    }
  }
  return { firstRow, length, values };
}

export interface WriteOptions {
  /** A fresh run positioned at the first row of `range` (called once per attempt). */
  newRun: () => SynthRun;
  range: RowRange;
  open: SinkFactory;
  /** Fixed column types (a row that does not fit is a SINK_TYPE error); probed when absent. */
  types?: readonly ColumnType[];
  batchRows?: number;
  /** Rows the types are probed from (default PROBE_ROWS). */
  probeRows?: number;
  /** Rows written so far, after each batch. */
  onProgress?: (rows: number) => void;
  /** Stops the write between batches (the sink is aborted: nothing is written); rejects with its reason. */
  signal?: AbortSignal;
}

/** Writes the rows of `range` to a sink, all or nothing; returns the columns it wrote. */
export async function writeRows(opts: WriteOptions): Promise<SinkColumn[]> {
  const count = opts.range.end - opts.range.start;
  const batchRows = opts.batchRows ?? 8192;
  let types = opts.types
    ? [...opts.types]
    : probeColumnTypes(opts.newRun(), Math.min(count, opts.probeRows ?? PROBE_ROWS));
  for (;;) {
    const run = opts.newRun();
    if (types.length !== run.dimension)
      throw new SinkError('SINK_TYPE', `the model has ${run.dimension} columns, the schema ${types.length}`);
    const columns = run.header().map((name, i) => ({ name, type: types[i]! }));
    const sink = await opts.open(columns, opts.range);
    // an existing destination's types win over the probe: then a misfit cannot be widened away
    const fixed = opts.types !== undefined || sink.columns?.some((c, i) => c.type !== types[i]) === true;
    if (sink.columns !== undefined) types = sink.columns.map((c) => c.type);
    try {
      for (let done = 0; done < count;) {
        opts.signal?.throwIfAborted();
        const length = Math.min(batchRows, count - done);
        await sink.write(fillBatch(run, types, opts.range.start + done, length));
        done += length;
        opts.onProgress?.(done);
      }
      await sink.commit();
      return columns.map((c, i) => ({ name: c.name, type: types[i]! }));
    } catch (err) {
      await sink.abort();
      if (!(err instanceof Misfit)) throw err;
      const name = columns[err.column]!.name;
      if (fixed)
        throw new SinkError(
          'SINK_TYPE',
          `column ${name} is ${types[err.column]} at the destination, but row ${err.row} holds a ${err.type} value`,
        );
      // widen to text and start again: the run is deterministic, so nothing is lost but time
      types = types.map((t, i) => (i === err.column ? 'text' : t));
    }
  }
}
