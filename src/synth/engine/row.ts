/** Observations as the engine passes them around: parallel value and kind arrays, reused per row. */

/** Data-point kinds; they decide how a value prints. */
export const DOUBLE = 0;
export const INT = 1;
export const STRING = 2;
/** A business object (Person, Date, ...): its text is in `strs`, the object itself in `objs`. */
export const COMPOSITE = 3;
export type Kind = typeof DOUBLE | typeof INT | typeof STRING | typeof COMPOSITE;

/** Kinds whose printed form is the text in `strs` (strings and composites). */
export function isText(kind: number): boolean {
  return kind >= STRING;
}

/**
 * A composite value (§4.5): ordered named fields, a canonical text and, for dates and times, a
 * numeric value (NaN otherwise).
 */
export interface Composite {
  readonly type: string;
  readonly text: string;
  readonly numeric: number;
  /** Field names in their canonical order (`formatted` is implied). */
  readonly fieldNames: readonly string[];
  /** A field's text; undefined when the composite has no such field. */
  field(name: string): string | undefined;
}

/**
 * A reusable buffer of data points. Nodes write into it at an offset; nothing is allocated per row.
 * Numbers live unboxed in a Float64Array; text (kind STRING) lives in `strs` at the same index.
 */
export class Row {
  readonly nums: Float64Array;
  readonly kinds: Uint8Array;
  readonly strs: string[];
  /** Composite objects at the indexes whose kind is COMPOSITE. */
  readonly objs: (Composite | undefined)[];

  constructor(size: number) {
    this.nums = new Float64Array(size);
    this.kinds = new Uint8Array(size);
    this.strs = [];
    this.objs = [];
  }

  /** The value at i as a number (text parses; a composite gives its numeric value). */
  num(i: number): number {
    const kind = this.kinds[i];
    if (kind === STRING) return Number(this.strs[i]);
    if (kind === COMPOSITE) return this.objs[i]?.numeric ?? NaN;
    return this.nums[i]!;
  }

  /** The value at i as a JavaScript value (a number, or the text). */
  value(i: number): number | string {
    return isText(this.kinds[i]!) ? (this.strs[i] ?? '') : this.nums[i]!;
  }

  /** The composite at i, or undefined when the data point is not one. */
  composite(i: number): Composite | undefined {
    return this.kinds[i] === COMPOSITE ? this.objs[i] : undefined;
  }

  /** Writes a text data point. */
  setText(i: number, text: string): void {
    this.kinds[i] = STRING;
    this.strs[i] = text;
  }

  /** Writes a composite data point (its text is what prints). */
  setComposite(i: number, value: Composite): void {
    this.kinds[i] = COMPOSITE;
    this.strs[i] = value.text;
    this.objs[i] = value;
    this.nums[i] = value.numeric;
  }

  /** Copies one data point from `src[si]` to `this[di]`. */
  copy(src: Row, si: number, di: number): void {
    const kind = src.kinds[si]!;
    this.kinds[di] = kind;
    this.nums[di] = src.nums[si]!;
    if (kind >= STRING) this.strs[di] = src.strs[si]!;
    if (kind === COMPOSITE) this.objs[di] = src.objs[si];
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
