/** Observations as the engine passes them around: parallel value and kind arrays, reused per row. */

/** Data-point kinds; they decide how a value prints. */
export const DOUBLE = 0;
export const INT = 1;
export const STRING = 2;
export type Kind = typeof DOUBLE | typeof INT | typeof STRING;

/**
 * A reusable buffer of data points. Nodes write into it at an offset; nothing is allocated per row.
 * Numbers live unboxed in a Float64Array; text (kind STRING) lives in `strs` at the same index.
 */
export class Row {
  readonly nums: Float64Array;
  readonly kinds: Uint8Array;
  readonly strs: string[];

  constructor(size: number) {
    this.nums = new Float64Array(size);
    this.kinds = new Uint8Array(size);
    this.strs = [];
  }

  /** The value at i as a number (text parses; non-numeric text is NaN). */
  num(i: number): number {
    return this.kinds[i] === STRING ? Number(this.strs[i]) : this.nums[i]!;
  }

  /** The value at i as a JavaScript value (a number, or the text). */
  value(i: number): number | string {
    return this.kinds[i] === STRING ? (this.strs[i] ?? '') : this.nums[i]!;
  }

  /** Copies one data point from `src[si]` to `this[di]`. */
  copy(src: Row, si: number, di: number): void {
    const kind = src.kinds[si]!;
    this.kinds[di] = kind;
    this.nums[di] = src.nums[si]!;
    if (kind === STRING) this.strs[di] = src.strs[si]!;
  }
}

/** A configured node: pulls its inputs on demand and writes `dimension` data points per call. */
export interface RuntimeNode {
  readonly name: string;
  readonly type: string;
  readonly dimension: number;
  /** Stepped on every cycle of a lazy parent, even when its branch is not chosen. */
  readonly synchronous: boolean;
  /** Produces the next observation into `out` starting at `offset`. */
  next(out: Row, offset: number): void;
}
