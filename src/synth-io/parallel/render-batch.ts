/** One batch of rows rendered to UTF-8, the same way in a worker and on the pool's own thread. */
import type { OutputFormat } from '../../synth/index.js';
import type { GraphRun } from '../../synth/engine/graph-run.js';
import { renderRange } from '../../synth/output/range.js';

export interface RenderedBatch {
  text: Uint8Array;
  /** The stream's state after the last row. */
  end: Int32Array;
  /** Each row's UTF-8 length, when asked for. */
  rowBytes?: Uint32Array;
}

const encoder = new TextEncoder();

/** Rows [from, to) of `run` from stream state `state` (the run must keep nothing between rows). */
export function renderBatch(
  run: GraphRun,
  names: readonly string[],
  format: OutputFormat,
  from: number,
  to: number,
  state: Int32Array,
  withRowBytes: boolean,
): RenderedBatch {
  run.random.restoreState(state);
  const rows = to - from;
  const ends = withRowBytes ? new Uint32Array(rows) : undefined;
  const text = renderRange(run, from, to, format, names, ends);
  const bytes = encoder.encode(text);
  const end = run.random.saveState();
  if (ends === undefined) return { text: bytes, end };
  // UTF-16 row ends to UTF-8 row lengths; ASCII text (the usual case) needs no re-measuring
  const rowBytes = new Uint32Array(rows);
  const ascii = bytes.length === text.length;
  for (let i = 0, start = 0; i < rows; start = ends[i]!, i++)
    rowBytes[i] = ascii ? ends[i]! - start : Buffer.byteLength(text.slice(start, ends[i]));
  return { text: bytes, end, rowBytes };
}
