/**
 * Output formats (§8): CSV (`dim0,...` header, RFC 4180 quoting), raw, JSON Lines and a JSON array.
 * Rows are rendered in chunks of text so a caller can stream them with back-pressure.
 */
import { INT, STRING, isText } from '../engine/row.js';
import type { Row } from '../engine/row.js';
import type { SynthRun } from '../engine/run.js';
import { SynthError } from '../errors.js';
import { javaDoubleToString } from '../random/java-double.js';

export type OutputFormat = 'csv' | 'raw' | 'ndjson' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['csv', 'raw', 'ndjson', 'json'];

/** Whole numbers below this print from a table built once (the commonest values, e.g. dice sums). */
const CACHED = 1024;
const WHOLE_DOUBLES = Array.from({ length: CACHED }, (_, i) => i + '.0');
const WHOLE_INTS = Array.from({ length: CACHED }, (_, i) => String(i));
/** The same with the CSV separator before them (a column after the first). */
const SEP_DOUBLES = WHOLE_DOUBLES.map((t) => ',' + t);
const SEP_INTS = WHOLE_INTS.map((t) => ',' + t);

/** A number's text: ints in decimal, doubles as Java prints them (always ASCII). */
export function numberText(value: number, kind: number): string {
  // Small non-negative whole values come from a table: no conversion, no new string per value.
  // (v | 0) === v also holds for -0, which must print "-0.0": zero is left to the general path.
  if (value > 0 && value < CACHED && (value | 0) === value)
    return kind === INT ? WHOLE_INTS[value]! : WHOLE_DOUBLES[value]!;
  // Whole doubles in the plain range print as "15.0": the commonest case, kept cheap.
  if (kind !== INT && Number.isInteger(value) && value < 1e7 && value > -1e7 && !Object.is(value, -0))
    return value + '.0';
  if (kind === INT) return Number.isSafeInteger(value) ? String(value) : BigInt(Math.trunc(value)).toString();
  return javaDoubleToString(value);
}

/** A data point's text: ints in decimal, doubles as Java prints them, strings and composites verbatim. */
export function valueText(value: number | string, kind: number): string {
  if (isText(kind) || typeof value === 'string') return String(value);
  return numberText(value, kind);
}

/** A CSV field: quoted (quotes doubled) when it holds a comma, quote or line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function jsonValue(value: number | string, kind: number): string {
  // an empty value is a missing one (a Missing node's cell, an empty CSV field): null
  if ((isText(kind) || typeof value === 'string') && value === '') return 'null';
  if (isText(kind) || typeof value === 'string') return JSON.stringify(String(value));
  if (!Number.isFinite(value)) return JSON.stringify(javaDoubleToString(value));
  // Java's text is valid JSON for finite numbers and keeps 15.0 distinct from 15.
  return valueText(value, kind);
}

function fitsIn(used: number, more: number, maxChars: number): void {
  if (used + more > maxChars)
    throw new SynthError('SYNTH_LIMIT', `a row passes the ${maxChars}-character budget of its caller`);
}

/** A CSV line with no character budget (the hot path of every generation). */
function csvLine(row: Row, dimension: number): string {
  const { kinds, nums } = row;
  let line = '';
  for (let i = 0; i < dimension; i++) {
    const kind = kinds[i]!;
    const v = nums[i]!;
    if (i > 0 && kind < STRING && v > 0 && v < CACHED && (v | 0) === v) {
      line += kind === INT ? SEP_INTS[v]! : SEP_DOUBLES[v]!; // one piece, not two
      continue;
    }
    // Only text can hold a comma, quote or line break; numbers never need quoting.
    const text = kind >= STRING ? csvField(row.strs[i] ?? '') : numberText(v, kind);
    line += i === 0 ? text : ',' + text;
  }
  return line + '\n';
}

/**
 * Renders one row in the given format (without the json array's brackets and commas). With
 * `maxChars`, the row is refused as soon as its text would pass that length, before a long value
 * is copied or escaped: a caller holding a byte budget never builds a row it cannot keep.
 * @throws SynthError SYNTH_LIMIT when the row passes `maxChars`
 */
export function renderRow(
  row: Row,
  dimension: number,
  format: OutputFormat,
  header: readonly string[],
  maxChars = Infinity,
): string {
  if (format === 'csv' && maxChars === Infinity) return csvLine(row, dimension);
  return renderColumns(row, 0, dimension, dimension, format, header, maxChars);
}

/**
 * Columns `from … to` of a row of `dimension` columns, as they appear in `renderRow`'s text: the
 * separator before every column but the first, the opening brace with column 0 and the row's end
 * with its last column. The pieces of a row concatenate to its whole text, so a very wide row can
 * be rendered a slice at a time (a server yields between slices). `maxChars` bounds this piece.
 * @throws SynthError SYNTH_LIMIT when the piece passes `maxChars`
 */
export function renderColumns(
  row: Row,
  from: number,
  to: number,
  dimension: number,
  format: OutputFormat,
  header: readonly string[],
  maxChars = Infinity,
): string {
  const { kinds } = row;
  const fits = (used: number, more: number): void => fitsIn(used, more, maxChars);
  const last = to === dimension;
  switch (format) {
    case 'csv': {
      let line = '';
      for (let i = from; i < to; i++) {
        const kind = kinds[i]!;
        // Only text can hold a comma, quote or line break; numbers never need quoting.
        let text: string;
        if (isText(kind)) {
          const raw = row.strs[i] ?? '';
          fits(line.length, raw.length + 1);
          text = csvField(raw);
        } else text = valueText(row.nums[i]!, kind);
        line += i === 0 ? text : ',' + text;
        fits(line.length, 1);
      }
      return last ? line + '\n' : line;
    }
    case 'raw': {
      // Values verbatim; several columns are separated by a tab (an undocumented case, §12.4).
      let line = '';
      for (let i = from; i < to; i++) {
        const value = row.value(i);
        if (typeof value === 'string') fits(line.length, value.length + 1);
        line += (i === 0 ? '' : '\t') + valueText(value, kinds[i]!);
        fits(line.length, 1);
      }
      return last ? line + '\n' : line;
    }
    case 'ndjson':
    case 'json': {
      let obj = from === 0 ? '{' : '';
      for (let i = from; i < to; i++) {
        const value = row.value(i);
        if (typeof value === 'string') fits(obj.length, value.length + header[i]!.length + 6);
        obj += `${i === 0 ? '' : ','}"${header[i]}":${jsonValue(value, kinds[i]!)}`;
        fits(obj.length, 1);
      }
      return last ? obj + '}' : obj;
    }
  }
}

/** Decimal digits of the numbers 0 … n-1 together (the column names' numbers). */
function digitsBelow(n: number): number {
  let total = 0;
  for (let start = 0, digits = 1, end = 10; start < n; start = end, end *= 10, digits++)
    total += (Math.min(n, end) - start) * digits;
  return total;
}

/**
 * The fewest characters (all ASCII, so bytes) a row of `dimension` columns can take in `format`,
 * known before the row exists: every value at its shortest (an empty text in CSV and raw, one
 * digit in JSON) with its separators, names and row end (no trailing newline for ndjson, whose
 * caller adds it). A caller with a byte cap refuses a run whose rows cannot fit before building one.
 */
export function minRowChars(dimension: number, format: OutputFormat): number {
  if (dimension <= 0) return 1;
  if (format === 'csv' || format === 'raw') return dimension; // separators and the newline
  // {"dim0":0,"dim1":0} : braces, commas, and per column `"dim` + digits + `":` + one character
  return 2 + (dimension - 1) + dimension * 7 + digitsBelow(dimension);
}

/** Options for `renderChunks`. */
export interface RenderOptions {
  count: number;
  format: OutputFormat;
  /** CSV only: emit the `dim0,...` header row first. */
  header: boolean;
  /** Rows per yielded chunk. */
  chunkRows?: number;
}

/**
 * Generates `count` observations and yields the output text chunk by chunk; memory stays flat for
 * any count. Rows are produced only as chunks are requested.
 */
export function* renderChunks(run: SynthRun, options: RenderOptions): Generator<string, void, undefined> {
  const { count, format } = options;
  const chunkRows = options.chunkRows ?? 2048;
  const names = run.header();
  const dim = run.dimension;
  let buf = '';
  if (format === 'csv' && options.header) buf += names.join(',') + '\n';
  if (format === 'json') buf += '[';
  for (let i = 0; i < count; i++) {
    const text = renderRow(run.next(), dim, format, names);
    if (format === 'json') buf += (i === 0 ? '\n' : ',\n') + text;
    else if (format === 'ndjson') buf += text + '\n';
    else buf += text;
    if ((i + 1) % chunkRows === 0) {
      yield buf;
      buf = '';
    }
  }
  if (format === 'json') buf += count === 0 ? ']\n' : '\n]\n';
  if (buf !== '') yield buf;
}
