/** Filters that choose between inputs lazily: Mix and Switch; and Pool, which repeats entities. */
import { Row } from '../../engine/row.js';
import type { RuntimeNode } from '../../engine/row.js';
import { parseDouble } from '../../engine/params.js';
import { SynthError } from '../../errors.js';
import type { RandomSource } from '../../random/random-source.js';
import type { BuildContext, ComponentImpl } from '../component.js';
import { checkEntries, descriptorOf } from '../component.js';
import { cumulative, pick } from '../generators/discrete.js';

/** A scratch row wide enough for any of the inputs (for discarded synchronous pulls). */
function sinkFor(inputs: readonly RuntimeNode[]): Row {
  return new Row(inputs.reduce((m, n) => Math.max(m, n.dimension), 1));
}

/**
 * Mix as a class: its state in instance fields, its row method shared by every graph (see
 * basic.ts). A lazy choice: the chosen input is pulled, and synchronous ones step along.
 */
class MixNode implements RuntimeNode {
  readonly name: string;
  readonly type: string;
  readonly dimension: number;
  private readonly anySync: boolean;
  private readonly sink: Row;
  private readonly rng: RandomSource;
  constructor(
    ctx: BuildContext,
    private readonly inputs: readonly RuntimeNode[],
    private readonly cum: Float64Array,
    readonly synchronous: boolean,
  ) {
    this.name = ctx.name;
    this.type = ctx.type;
    this.dimension = inputs[0]!.dimension;
    this.anySync = inputs.some((n) => n.synchronous);
    this.sink = sinkFor(inputs);
    this.rng = ctx.rng;
  }
  next(out: Row, offset: number): void {
    const { inputs } = this;
    const chosen = pick(this.cum, this.rng.nextDouble());
    if (!this.anySync) {
      inputs[chosen]!.next(out, offset);
      return;
    }
    // Synchronous inputs advance every cycle, in document order with the chosen one.
    for (let i = 0; i < inputs.length; i++) {
      if (i === chosen) inputs[i]!.next(out, offset);
      else if (inputs[i]!.synchronous) inputs[i]!.next(this.sink, 0);
    }
  }
}

export const CHOICE_FILTERS: ComponentImpl[] = [
  {
    descriptor: descriptorOf('Mix'),
    inputAttributes: ['weight'],
    create(ctx): RuntimeNode {
      const inputs = ctx.inputs;
      if (inputs.length < 2) ctx.params.reject(`needs at least two inputs, has ${inputs.length}`);
      const dims = new Set(inputs.map((n) => n.dimension));
      if (dims.size > 1) ctx.params.reject('inputs must share one dimension');
      const weights = ctx.inputAttributes.map((a) => {
        const w = a['weight'] === undefined ? 1 : parseDouble(a['weight']);
        return w ?? ctx.params.reject(`weight "${a['weight']}" is not a number`);
      });
      const cum = cumulative(weights, (m) => ctx.params.reject(m));
      const synchronous = ctx.params.has('synchronous')
        ? ctx.params.bool('synchronous')
        : inputs.some((n) => n.synchronous);
      return new MixNode(ctx, inputs, cum, synchronous);
    },
  },
  {
    descriptor: descriptorOf('Switch'),
    inputAttributes: ['role', 'value'],
    create(ctx): RuntimeNode {
      let keyIndex = ctx.inputAttributes.findIndex((a) => a['role'] === 'input');
      if (keyIndex < 0) keyIndex = ctx.inputAttributes.findIndex((a) => a['value'] === undefined);
      if (keyIndex < 0) ctx.params.reject('needs one input with role="input"');
      const source = ctx.inputs[keyIndex]!;
      const key = ctx.params.int('key');
      if (key < 0 || key >= source.dimension) ctx.params.reject(`key ${key} is outside the input's columns`);
      const branches: { value: string; numeric: number | undefined; node: RuntimeNode }[] = [];
      let fallback: RuntimeNode | undefined;
      ctx.inputs.forEach((n, i) => {
        if (i === keyIndex) return;
        const value =
          ctx.inputAttributes[i]!['value'] ?? ctx.params.reject(`branch "${n.name}" needs a value attribute`);
        if (value === '*') fallback = n;
        else branches.push({ value, numeric: parseDouble(value), node: n });
      });
      const all = [...branches.map((b) => b.node), ...(fallback === undefined ? [] : [fallback])];
      if (all.length === 0) ctx.params.reject('needs at least one branch');
      const dims = new Set(all.map((n) => n.dimension));
      if (dims.size > 1) ctx.params.reject('branches must share one dimension');
      const branchDim = all[0]!.dimension;
      const anySync = all.some((n) => n.synchronous);
      const sink = sinkFor(all);
      return {
        name: ctx.name,
        type: ctx.type,
        dimension: source.dimension + branchDim,
        synchronous: ctx.inputs.some((n) => n.synchronous),
        next(out, offset): void {
          source.next(out, offset);
          const k = out.value(offset + key);
          const kn = typeof k === 'number' ? k : parseDouble(k);
          let chosen = fallback;
          for (const b of branches) {
            const hit =
              kn !== undefined && b.numeric !== undefined ? kn === b.numeric : String(k) === b.value;
            if (hit) {
              chosen = b.node;
              break;
            }
          }
          if (chosen === undefined)
            throw new SynthError('SYNTH_RUNTIME', `Switch "${ctx.name}": no branch for key ${String(k)}`);
          for (const n of all) {
            if (n === chosen) n.next(out, offset + source.dimension);
            else if (anySync && n.synchronous) n.next(sink, 0);
          }
        },
      };
    },
  },
  {
    descriptor: descriptorOf('Pool'),
    inputAttributes: ['role'],
    create(ctx): RuntimeNode {
      const roles = ctx.inputAttributes.map((a) => a['role']);
      let entityAt = roles.indexOf('entity');
      let countAt = roles.indexOf('count');
      if (entityAt < 0) entityAt = 0;
      if (countAt < 0 && ctx.inputs.length > 1) countAt = entityAt === 0 ? 1 : 0;
      const entity = ctx.inputs[entityAt];
      if (entity === undefined) return ctx.params.reject('needs an entity input');
      const counter = countAt >= 0 ? ctx.inputs[countAt] : undefined;
      const countColumn = ctx.params.has('countColumn') ? ctx.params.int('countColumn') : -1;
      if (counter === undefined && countColumn < 0) ctx.params.reject('needs a count input or countColumn');
      if (countColumn >= entity.dimension) ctx.params.reject('countColumn is outside the entity columns');
      const interleave = ctx.params.int('interleave');
      if (interleave < 1) ctx.params.reject('interleave must be >= 1');
      const dim = entity.dimension - (countColumn >= 0 ? 1 : 0);
      // up to `interleave` entities are held at once, each a row of `dim` values
      checkEntries(ctx, interleave * Math.max(1, dim), 'interleave times the entity columns');
      const scratch = new Row(entity.dimension);
      const countRow = new Row(Math.max(1, counter?.dimension ?? 1));
      const active: { row: Row; left: number }[] = [];
      const { rng } = ctx;
      const admit = (): void => {
        for (let zeros = 0; zeros < 100000; zeros++) {
          entity.next(scratch, 0);
          let n: number;
          if (counter !== undefined) {
            counter.next(countRow, 0);
            n = Math.trunc(countRow.num(0));
          } else n = Math.trunc(scratch.num(countColumn));
          if (!(n > 0)) continue;
          const row = new Row(dim);
          for (let i = 0, j = 0; i < entity.dimension; i++) if (i !== countColumn) row.copy(scratch, i, j++);
          active.push({ row, left: n });
          return;
        }
        throw new SynthError('SYNTH_RUNTIME', `Pool "${ctx.name}": no entity with a positive count`);
      };
      return {
        name: ctx.name,
        type: ctx.type,
        dimension: dim,
        synchronous: ctx.inputs.some((n) => n.synchronous),
        next(out, offset): void {
          while (active.length < interleave) admit();
          const at = interleave === 1 ? 0 : rng.nextIntBetween(0, active.length);
          const e = active[at]!;
          for (let i = 0; i < dim; i++) {
            out.copy(e.row, i, offset + i);
          }
          if (--e.left === 0) active.splice(at, 1);
        },
      };
    },
  },
];
