/**
 * Rows sampled on one thread and encoded on another (the pipelined mode, pipeline.ts): a batch of
 * rows as raw values, column by column of each row, in shared memory.
 *
 * The output of a row is a function of its kinds, numbers and texts alone (format.ts and bytes.ts
 * read nothing else: no graph state, no composite object), so a row replayed from those values
 * renders to the bytes the run's own row would have.
 */
import { Row, STRING } from '../../synth/engine/row.js';
import type { RowSource } from '../../synth/output/bytes.js';

/** Rows [from, to) of a generation as raw values; `to - from` rows of `dimension` cells each. */
export interface SampledRows {
  from: number;
  to: number;
  dimension: number;
  /** Each cell's kind (row.ts), row after row. */
  kinds: Uint8Array;
  /** Each numeric cell's value; for a text cell, the index of its text in `texts`. */
  nums: Float64Array;
  /** The batch's distinct texts (category labels repeat: each is sent once a batch). */
  texts: string[];
}

/** Where a batch's sampling stopped early: the rows before `row` are in the batch. */
export interface SampleFailure {
  /** The row of the generation whose sampling threw. */
  row: number;
  error: unknown;
}

/**
 * Draws rows [from, to) of `run` into a batch (in SharedArrayBuffers: another thread reads them
 * without a copy). A row that throws ends the batch before it; the error is returned with its row,
 * not thrown, so that the rows before it are written first, as one thread writes them.
 */
export function sampleRows(
  run: RowSource,
  from: number,
  to: number,
): { rows: SampledRows; failure?: SampleFailure } {
  const dim = run.dimension;
  const cells = (to - from) * dim;
  const kinds = new Uint8Array(new SharedArrayBuffer(Math.max(1, cells)));
  const nums = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, cells)));
  const texts: string[] = [];
  const ids = new Map<string, number>();
  let at = 0;
  let row = from;
  try {
    for (; row < to; row++) {
      const r = run.next();
      const rk = r.kinds;
      const rn = r.nums;
      for (let c = 0; c < dim; c++, at++) {
        const kind = rk[c]!;
        kinds[at] = kind;
        if (kind < STRING) nums[at] = rn[c]!;
        else {
          // what the renderers print for a text cell: its text, or nothing
          const text = r.strs[c] ?? '';
          let id = ids.get(text);
          if (id === undefined) {
            id = texts.length;
            ids.set(text, id);
            texts.push(text);
          }
          nums[at] = id;
        }
      }
    }
  } catch (error) {
    return { rows: { from, to: row, dimension: dim, kinds, nums, texts }, failure: { row, error } };
  }
  return { rows: { from, to, dimension: dim, kinds, nums, texts } };
}

/** A batch's rows again, one by one, as the run gave them (for renderRangeBytes). */
export class ReplayedRows implements RowSource {
  readonly dimension: number;
  private readonly row: Row;
  private at = 0;

  constructor(private readonly batch: SampledRows) {
    this.dimension = batch.dimension;
    this.row = new Row(batch.dimension);
  }

  next(): Row {
    const { kinds, nums, texts, dimension } = this.batch;
    const row = this.row;
    const rk = row.kinds;
    const rn = row.nums;
    let at = this.at;
    for (let c = 0; c < dimension; c++, at++) {
      const kind = kinds[at]!;
      rk[c] = kind;
      if (kind < STRING) rn[c] = nums[at]!;
      else row.strs[c] = texts[nums[at]!]!;
    }
    this.at = at;
    return row;
  }
}
