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

function node(
  ctx: BuildContext,
  dimension: number,
  synchronous: boolean,
  next: RuntimeNode['next'],
): RuntimeNode {
  return { name: ctx.name, type: ctx.type, dimension, synchronous, next };
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
    return node(
      ctx,
      dimension,
      inputs.some((n) => n.synchronous),
      (out, offset) => {
        let at = offset;
        for (const input of inputs) {
          input.next(out, at);
          at += input.dimension;
        }
      },
    );
  }),
  impl('Arrange', (ctx) => {
    const input = single(ctx);
    const columns = ctx.params.ints('columns');
    if (columns.length === 0) ctx.params.reject('columns must list at least one index');
    checkColumns(ctx, columns.length, 'the column count');
    for (const c of columns)
      if (c < 0 || c >= input.dimension)
        ctx.params.reject(`column ${c} is outside 0..${input.dimension - 1}`);
    const scratch = new Row(input.dimension);
    return node(ctx, columns.length, input.synchronous, (out, offset) => {
      input.next(scratch, 0);
      for (let i = 0; i < columns.length; i++) {
        out.copy(scratch, columns[i]!, offset + i);
      }
    });
  }),
  impl('Calculate', (ctx) => {
    const input = single(ctx);
    const program = compileExpression(ctx.params.text('expression') ?? '');
    if (program.maxInput >= input.dimension)
      ctx.params.reject(`x[${program.maxInput}] is outside the input's ${input.dimension} columns`);
    if (program.maxOutput >= input.dimension)
      ctx.params.reject(`y[${program.maxOutput}] is outside the input's ${input.dimension} columns`);
    const dim = input.dimension;
    const scratch = new Row(dim);
    const x = new Float64Array(dim);
    const y = new Float64Array(dim);
    const run = program.run;
    return node(ctx, dim, input.synchronous, (out, offset) => {
      input.next(scratch, 0);
      const { kinds, nums } = scratch;
      for (let i = 0; i < dim; i++) x[i] = y[i] = kinds[i]! < STRING ? nums[i]! : scratch.num(i);
      run(x, y); // every assignment sees the original x, never an earlier y
      for (let i = 0; i < dim; i++) {
        out.nums[offset + i] = y[i]!;
        out.kinds[offset + i] = DOUBLE;
      }
    });
  }),
  impl('Redimension', (ctx) => {
    const input = single(ctx);
    const dim = ctx.params.int('dimension');
    if (dim < 1) ctx.params.reject('dimension must be >= 1');
    checkColumns(ctx, dim, 'dimension');
    const inDim = input.dimension;
    if (dim % inDim === 0) {
      // Whole input observations fill the output exactly: pull straight into it, no buffering.
      const pulls = dim / inDim;
      return node(ctx, dim, input.synchronous, (out, offset) => {
        for (let k = 0; k < pulls; k++) input.next(out, offset + k * inDim);
      });
    }
    // A ring of pending data points; leftovers of a non-multiple carry over to the next row.
    const capacity = dim + input.dimension;
    const ring = new Row(capacity);
    const scratch = new Row(input.dimension);
    let head = 0;
    let size = 0;
    return node(ctx, dim, input.synchronous, (out, offset) => {
      while (size < dim) {
        input.next(scratch, 0);
        for (let i = 0; i < input.dimension; i++) {
          const at = (head + size++) % capacity;
          ring.copy(scratch, i, at);
        }
      }
      for (let i = 0; i < dim; i++) {
        out.copy(ring, head, offset + i);
        head = (head + 1) % capacity;
      }
      size -= dim;
    });
  }),
  impl('ToInteger', (ctx) => {
    const input = single(ctx);
    const round = ROUNDERS[ctx.params.text('mode') ?? 'floor']!;
    const indexes = selected(ctx, input.dimension);
    if (indexes.length === 1 && input.dimension === 1) {
      // one number per pull (a die from a Uniform): the common case, with no loop
      return node(ctx, 1, input.synchronous, (out, offset) => {
        input.next(out, offset);
        const { kinds, nums } = out;
        nums[offset] = toIntegral(round(kinds[offset]! < STRING ? nums[offset]! : out.num(offset)));
        kinds[offset] = INT;
      });
    }
    return node(ctx, input.dimension, input.synchronous, (out, offset) => {
      input.next(out, offset);
      for (let k = 0; k < indexes.length; k++) {
        const at = offset + indexes[k]!;
        out.nums[at] = toIntegral(round(out.num(at)));
        out.kinds[at] = INT;
      }
    });
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
    return node(ctx, input.dimension, input.synchronous, (out, offset) => {
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
            `Truncate "${ctx.name}": no value inside [${min}, ${max}] after ${attempts} attempts`,
          );
        }
      }
    });
  }),
];
