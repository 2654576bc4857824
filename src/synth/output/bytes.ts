/**
 * Rows written straight to UTF-8 bytes: exactly the encoding of the text `renderChunks` writes for
 * them, without building that text first. Grind's output and parallel batches end as bytes anyway (a
 * pipe, a file, a worker's hand-over); for a numeric model, joining 16,000 rows into one string
 * and then encoding it took about a fifth of each row's time (docs/synth-workers.md).
 */
import { INT, STRING } from '../engine/row.js';
import type { Row } from '../engine/row.js';
import { csvField, numberText, renderRow } from './format.js';
import type { OutputFormat } from './format.js';

/** Whole numbers below this are copied from tables of bytes built once (as format.ts does for text). */
const CACHED = 1024;
const encoder = new TextEncoder();
const WHOLE_DOUBLES = Array.from({ length: CACHED }, (_, i) => encoder.encode(i + '.0'));
const WHOLE_INTS = Array.from({ length: CACHED }, (_, i) => encoder.encode(String(i)));
/** The longest entry of those tables ("1023.0") and a comma. */
const CACHED_BYTES = 7;
const COMMA = 44;
const NEWLINE = 10;

/** Bytes in a SharedArrayBuffer, or in an ordinary one. */
function allocate(size: number, shared: boolean): Uint8Array {
  return shared ? new Uint8Array(new SharedArrayBuffer(size)) : new Uint8Array(size);
}

/**
 * A byte buffer that grows by doubling; `bytes()` is a view of what was written. A shared one
 * (SharedArrayBuffer) goes to another thread without a copy and without detaching anything: a row
 * worker's batches are shared (docs/synth-workers.md).
 */
export class ByteWriter {
  private buf: Uint8Array;
  /** Bytes written so far. */
  length = 0;

  constructor(
    capacity: number,
    private readonly shared = false,
  ) {
    this.buf = allocate(Math.max(64, Math.ceil(capacity)), shared);
  }

  /** Makes room for `more` bytes after what was written. */
  reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const grown = allocate(size, this.shared);
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
  }

  /** One byte (room must have been reserved). */
  byte(b: number): void {
    this.buf[this.length++] = b;
  }

  /** Bytes from a table (room must have been reserved). */
  copy(src: Uint8Array): void {
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < src.length; i++) buf[at++] = src[i]!;
    this.length = at;
  }

  /** Text known to be ASCII, such as a number's (room must have been reserved). */
  ascii(text: string): void {
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Any text as UTF-8 (lone surrogates become U+FFFD, as TextEncoder and Node's streams write them). */
  text(text: string): void {
    this.reserve(3 * text.length); // a UTF-16 unit never takes more than 3 bytes
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        // not ASCII: the encoder writes the whole text again, over the bytes copied so far
        this.length += encoder.encodeInto(text, buf.subarray(this.length)).written;
        return;
      }
      buf[at++] = c;
    }
    this.length = at;
  }

  /** What was written (a view: the writer must not be used after). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** One CSV row: csvLine's text (format.ts), as bytes. */
function csvRowBytes(out: ByteWriter, row: Row, dimension: number): void {
  const { kinds, nums, strs } = row;
  for (let i = 0; i < dimension; i++) {
    const kind = kinds[i]!;
    if (kind < STRING) {
      const v = nums[i]!;
      // (v | 0) === v holds for -0 too, which must print "-0.0": v > 0 leaves it to numberText
      if (v > 0 && v < CACHED && (v | 0) === v) {
        out.reserve(CACHED_BYTES);
        if (i > 0) out.byte(COMMA);
        out.copy(kind === INT ? WHOLE_INTS[v]! : WHOLE_DOUBLES[v]!);
      } else {
        const text = numberText(v, kind);
        out.reserve(text.length + 1);
        if (i > 0) out.byte(COMMA);
        out.ascii(text);
      }
    } else {
      if (i > 0) {
        out.reserve(1);
        out.byte(COMMA);
      }
      out.text(csvField(strs[i] ?? ''));
    }
  }
  out.reserve(1);
  out.byte(NEWLINE);
}

/**
 * Where rows come from: a run (GraphRun draws them) or rows sampled earlier and replayed (the
 * pipelined mode encodes on another thread rows this one sampled: src/synth-io/parallel/).
 */
export interface RowSource {
  readonly dimension: number;
  /** The next row; the returned row may be overwritten by the following call. */
  next(): Row;
}

/** Bytes per row of the last range on this thread: the next range's first guess at its size. */
let bytesPerRow = 32;

/**
 * The next `to - from` observations of `run` as rows [from, to) of an output, in UTF-8 (row 0 of
 * a JSON array has no comma before it; outputStart and outputEnd in range.ts give the text around
 * them). The run is advanced by that many rows. With `rowEnds`, the byte length of the output so
 * far is written after each row. `shared`: the bytes are in a SharedArrayBuffer (see ByteWriter).
 */
export function renderRangeBytes(
  run: RowSource,
  from: number,
  to: number,
  format: OutputFormat,
  names: readonly string[],
  rowEnds?: Uint32Array,
  shared = false,
): Uint8Array {
  const dim = run.dimension;
  const out = new ByteWriter((to - from) * bytesPerRow * 1.1 + 64, shared);
  for (let i = from; i < to; i++) {
    const row = run.next();
    if (format === 'csv') csvRowBytes(out, row, dim);
    else {
      const text = renderRow(row, dim, format, names);
      if (format === 'json') out.text((i === 0 ? '\n' : ',\n') + text);
      else out.text(format === 'ndjson' ? text + '\n' : text);
    }
    if (rowEnds !== undefined) rowEnds[i - from] = out.length;
  }
  if (to > from) bytesPerRow = Math.max(1, out.length / (to - from));
  return out.bytes();
}
