/** One batch of rows rendered to UTF-8, the same way in a worker and on the pool's own thread. */
import type { OutputFormat } from '../../synth/index.js';
import type { GraphRun } from '../../synth/engine/graph-run.js';
import { renderRangeBytes } from '../../synth/output/bytes.js';

export interface RenderedBatch {
  text: Uint8Array;
  /** The stream's state after the last row. */
  end: Int32Array;
  /** Each row's UTF-8 length, when asked for. */
  rowBytes?: Uint32Array;
}

/**
 * Rows [from, to) of `run` from stream state `state` (the run must keep nothing between rows).
 * `shared`: the bytes and row lengths in SharedArrayBuffers, for a worker to hand over uncopied.
 */
export function renderBatch(
  run: GraphRun,
  names: readonly string[],
  format: OutputFormat,
  from: number,
  to: number,
  state: Int32Array,
  withRowBytes: boolean,
  shared = false,
): RenderedBatch {
  run.random.restoreState(state);
  const rows = to - from;
  const ends = !withRowBytes
    ? undefined
    : shared
      ? new Uint32Array(new SharedArrayBuffer(4 * rows))
      : new Uint32Array(rows);
  const text = renderRangeBytes(run, from, to, format, names, ends, shared);
  const end = run.random.saveState();
  if (ends === undefined) return { text, end };
  // byte offsets after each row to each row's length (in place: each end is read before it is replaced)
  for (let i = rows - 1; i > 0; i--) ends[i] = ends[i]! - ends[i - 1]!;
  return { text, end, rowBytes: ends };
}
