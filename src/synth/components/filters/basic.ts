/** Column-shaping filters: Append, Arrange, Calculate, Redimension, ToInteger, Truncate. */
import { compileExpression } from '../../calculate/expression.js';
import { DOUBLE, INT, Row, STRING } from '../../engine/row.js';
import type { RuntimeNode } from '../../engine/row.js';
import { parseDouble } from '../../engine/params.js';
import { SynthError } from '../../errors.js';
import type { BuildContext, ComponentImpl } from '../component.js';
import { checkColumns, checkEntries, descriptorOf } from '../component.js';

function impl(name: string, create: ComponentImpl['create'], inputAttributes: string[] = []): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes, create };
}

/** The one input of a single-input filter. */
function single(ctx: BuildContext): RuntimeNode {
  if (ctx.inputs.length !== 1) ctx.params.reject(`needs exactly one input, has ${ctx.inputs.length}`);
  return ctx.inputs[0]!;
}

/**
 * The filters' runtime nodes are classes: a graph's state lives in instance fields and each row
 * method is one function on the prototype, shared by every graph. (Row functions that closed over
 * their graph were new functions per graph: from a process's second graph on, V8 could no longer
 * inline them or treat their captured values as constants, and later generations ran ~30% slower.)
 */
abstract class FilterNode implements RuntimeNode {
  readonly name: string;
  readonly type: string;
  constructor(
    ctx: BuildContext,
    readonly dimension: number,
    readonly synchronous: boolean,
  ) {
    this.name = ctx.name;
    this.type = ctx.type;
  }
  abstract next(out: Row, offset: number): void;
}

class AppendNode extends FilterNode {
  constructor(
    ctx: BuildContext,
    private readonly inputs: readonly RuntimeNode[],
    dimension: number,
  ) {
    super(
      ctx,
      dimension,
      inputs.some((n) => n.synchronous),
    );
  }
  next(out: Row, offset: number): void {
    let at = offset;
    for (const input of this.inputs) {
      input.next(out, at);
      at += input.dimension;
    }
  }
}

class ArrangeNode extends FilterNode {
  private readonly scratch: Row;
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    private readonly columns: readonly number[],
  ) {
    super(ctx, columns.length, input.synchronous);
    this.scratch = new Row(input.dimension);
  }
  next(out: Row, offset: number): void {
    const { scratch, columns } = this;
    this.input.next(scratch, 0);
    for (let i = 0; i < columns.length; i++) out.copy(scratch, columns[i]!, offset + i);
  }
}

class CalculateNode extends FilterNode {
  private readonly scratch: Row;
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    private readonly run: (x: Float64Array, y: Float64Array) => void,
  ) {
    super(ctx, input.dimension, input.synchronous);
    this.scratch = new Row(input.dimension);
    this.x = new Float64Array(input.dimension);
    this.y = new Float64Array(input.dimension);
  }
  next(out: Row, offset: number): void {
    const { scratch, x, y, dimension: dim } = this;
    this.input.next(scratch, 0);
    const { kinds, nums } = scratch;
    for (let i = 0; i < dim; i++) x[i] = y[i] = kinds[i]! < STRING ? nums[i]! : scratch.num(i);
    this.run(x, y); // every assignment sees the original x, never an earlier y
    for (let i = 0; i < dim; i++) {
      out.nums[offset + i] = y[i]!;
      out.kinds[offset + i] = DOUBLE;
    }
  }
}

/** Redimension to a multiple of its input's width: whole input observations fill each row. */
class RedimensionWhole extends FilterNode {
  private readonly pulls: number;
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    dimension: number,
  ) {
    super(ctx, dimension, input.synchronous);
    this.pulls = dimension / input.dimension;
  }
  next(out: Row, offset: number): void {
    const { input, pulls } = this;
    const inDim = input.dimension;
    for (let k = 0; k < pulls; k++) input.next(out, offset + k * inDim);
  }
}

/** Redimension to any width: a ring of pending data points, leftovers carried to the next row. */
class RedimensionRing extends FilterNode {
  private readonly capacity: number;
  private readonly ring: Row;
  private readonly scratch: Row;
  private head = 0;
  private size = 0;
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    dimension: number,
  ) {
    super(ctx, dimension, input.synchronous);
    this.capacity = dimension + input.dimension;
    this.ring = new Row(this.capacity);
    this.scratch = new Row(input.dimension);
  }
  next(out: Row, offset: number): void {
    const { input, ring, scratch, capacity, dimension: dim } = this;
    while (this.size < dim) {
      input.next(scratch, 0);
      for (let i = 0; i < input.dimension; i++) {
        const at = (this.head + this.size++) % capacity;
        ring.copy(scratch, i, at);
      }
    }
    for (let i = 0; i < dim; i++) {
      out.copy(ring, this.head, offset + i);
      this.head = (this.head + 1) % capacity;
    }
    this.size -= dim;
  }
}

/** ToInteger of a one-column input (a die from a Uniform): the common case, with no loop. */
class ToIntegerOne extends FilterNode {
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    private readonly round: (v: number) => number,
  ) {
    super(ctx, 1, input.synchronous);
  }
  next(out: Row, offset: number): void {
    this.input.next(out, offset);
    const { kinds, nums } = out;
    nums[offset] = toIntegral(this.round(kinds[offset]! < STRING ? nums[offset]! : out.num(offset)));
    kinds[offset] = INT;
  }
}

class ToIntegerNode extends FilterNode {
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    private readonly round: (v: number) => number,
    private readonly indexes: readonly number[],
  ) {
    super(ctx, input.dimension, input.synchronous);
  }
  next(out: Row, offset: number): void {
    const { indexes } = this;
    this.input.next(out, offset);
    for (let k = 0; k < indexes.length; k++) {
      const at = offset + indexes[k]!;
      out.nums[at] = toIntegral(this.round(out.num(at)));
      out.kinds[at] = INT;
    }
  }
}

class ToIntegerWhole extends FilterNode {
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    private readonly indexes: readonly number[],
  ) {
    super(ctx, input.dimension, input.synchronous);
  }
  next(out: Row, offset: number): void {
    const { indexes } = this;
    this.input.next(out, offset);
    for (let k = 0; k < indexes.length; k++) {
      const at = offset + indexes[k]!;
      if (out.kinds[at] === DOUBLE && Number.isSafeInteger(out.nums[at]!)) out.kinds[at] = INT;
    }
  }
}

class TruncateNode extends FilterNode {
  constructor(
    ctx: BuildContext,
    private readonly input: RuntimeNode,
    private readonly min: number,
    private readonly max: number,
    private readonly censor: boolean,
    private readonly attempts: number,
    private readonly indexes: readonly number[],
  ) {
    super(ctx, input.dimension, input.synchronous);
  }
  next(out: Row, offset: number): void {
    const { input, min, max, censor, attempts, indexes } = this;
    for (let attempt = 1; ; attempt++) {
      input.next(out, offset);
      let inside = true;
      for (const i of indexes) {
        const v = out.num(offset + i);
        if (v >= min && v <= max) continue;
        if (!censor) {
          inside = false;
          break;
        }
        out.nums[offset + i] = v < min ? min : max;
        out.kinds[offset + i] = DOUBLE;
      }
      if (inside) return;
      if (attempt >= attempts) {
        throw new SynthError(
          'SYNTH_RUNTIME',
          `Truncate "${this.name}": no value inside [${min}, ${max}] after ${attempts} attempts`,
        );
      }
    }
  }
}

/** Indexes a filter applies to: the listed ones (validated) or all columns. */
function selected(ctx: BuildContext, dimension: number): number[] {
  const listed = ctx.params.ints('indexes');
  if (listed.length === 0) return Array.from({ length: dimension }, (_, i) => i);
  for (const i of listed)
    if (i < 0 || i >= dimension) ctx.params.reject(`index ${i} is outside 0..${dimension - 1}`);
  return listed;
}

/** Java's narrowing of a double to an integral value: NaN to 0, saturating at the long range. */
function toIntegral(v: number): number {
  if (v !== v) return 0; // NaN
  return v < -LONG_LIMIT ? -LONG_LIMIT : v > LONG_LIMIT ? LONG_LIMIT : v;
}

/** 2^63 as a double: where Java's long conversions saturate. */
const LONG_LIMIT = 2 ** 63;

const ROUNDERS: Record<string, (v: number) => number> = {
  floor: Math.floor,
  ceiling: Math.ceil,
  round: Math.round, // ties toward +infinity, as Java's Math.round
  truncate: Math.trunc,
};

export const BASIC_FILTERS: ComponentImpl[] = [
  impl('Append', (ctx) => {
    if (ctx.inputs.length === 0) ctx.params.reject('needs at least one input');
    const inputs = ctx.inputs;
    const dimension = inputs.reduce((s, n) => s + n.dimension, 0);
    checkColumns(ctx, dimension, 'the appended width');
    return new AppendNode(ctx, inputs, dimension);
  }),
  impl('Arrange', (ctx) => {
    const input = single(ctx);
    const columns = ctx.params.ints('columns');
    if (columns.length === 0) ctx.params.reject('columns must list at least one index');
    checkColumns(ctx, columns.length, 'the column count');
    for (const c of columns)
      if (c < 0 || c >= input.dimension)
        ctx.params.reject(`column ${c} is outside 0..${input.dimension - 1}`);
    return new ArrangeNode(ctx, input, columns);
  }),
  impl('Calculate', (ctx) => {
    const input = single(ctx);
    const program = compileExpression(ctx.params.text('expression') ?? '');
    if (program.maxInput >= input.dimension)
      ctx.params.reject(`x[${program.maxInput}] is outside the input's ${input.dimension} columns`);
    if (program.maxOutput >= input.dimension)
      ctx.params.reject(`y[${program.maxOutput}] is outside the input's ${input.dimension} columns`);
    return new CalculateNode(ctx, input, program.run);
  }),
  impl('Redimension', (ctx) => {
    const input = single(ctx);
    const dim = ctx.params.int('dimension');
    if (dim < 1) ctx.params.reject('dimension must be >= 1');
    checkColumns(ctx, dim, 'dimension');
    // Whole input observations fill the output exactly: pull straight into it, no buffering.
    if (dim % input.dimension === 0) return new RedimensionWhole(ctx, input, dim);
    return new RedimensionRing(ctx, input, dim);
  }),
  impl('ToInteger', (ctx) => {
    const input = single(ctx);
    const indexes = selected(ctx, input.dimension);
    // ours (not the vendor's): whole values become ints, others stay as they are, so a column
    // the sample writes as `2, 3.5` prints `2`, not `2.0` (synth fit writes it)
    if (ctx.params.text('mode') === 'whole') return new ToIntegerWhole(ctx, input, indexes);
    const round = ROUNDERS[ctx.params.text('mode') ?? 'floor']!;
    if (indexes.length === 1 && input.dimension === 1) return new ToIntegerOne(ctx, input, round);
    return new ToIntegerNode(ctx, input, round, indexes);
  }),
  impl('Truncate', (ctx) => {
    const input = single(ctx);
    const bound = (name: string, fallback: number): number => {
      const t = ctx.params.text(name);
      if (t === undefined || t.trim() === '') return fallback;
      return parseDouble(t) ?? ctx.params.reject(`${name} "${t}" is not a number`);
    };
    const min = bound('min', -Infinity);
    const max = bound('max', Infinity);
    if (min > max) ctx.params.reject('min exceeds max');
    const censor = ctx.params.text('mode') === 'censor';
    const attempts = ctx.params.int('maxAttempts');
    checkEntries(ctx, attempts, 'maxAttempts');
    const indexes = selected(ctx, input.dimension);
    return new TruncateNode(ctx, input, min, max, censor, attempts, indexes);
  }),
];
