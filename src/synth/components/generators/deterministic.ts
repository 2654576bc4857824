/** Generators that draw little or nothing: Constant, Sequence, Polynomial. */
import { DOUBLE, INT, type Kind, type Row, type RuntimeNode } from '../../engine/row.js';
import { parseDouble } from '../../engine/params.js';
import { SynthError } from '../../errors.js';
import { accumulate, rowIndexed } from '../../engine/row-indexed.js';
import type { BuildContext, ComponentImpl } from '../component.js';
import { descriptorOf, scalarNode, textNode } from '../component.js';

function impl(name: string, create: ComponentImpl['create']): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes: [], create };
}

/** A numeric Constant: a class whose row method every graph shares (see filters/basic.ts). */
class ConstantNode implements RuntimeNode {
  readonly name: string;
  readonly type: string;
  readonly dimension = 1;
  readonly synchronous = false;
  constructor(
    ctx: BuildContext,
    private readonly value: number,
    private readonly kind: Kind,
  ) {
    this.name = ctx.name;
    this.type = ctx.type;
  }
  next(out: Row, offset: number): void {
    out.nums[offset] = this.value;
    out.kinds[offset] = this.kind;
  }
}

export const DETERMINISTIC: ComponentImpl[] = [
  impl('Constant', (ctx) => {
    const text = ctx.params.text('value') ?? '';
    const type = ctx.params.text('type');
    if (type === 'string') {
      if (ctx.edition === 'free')
        throw new SynthError('SYNTH_LICENSE', `Constant "${ctx.name}": type="string" needs the Pro edition`);
      return textNode(ctx, () => text);
    }
    const value = parseDouble(text);
    if (value === undefined) return ctx.params.reject(`value "${text}" is not a number`);
    if (type === 'int') {
      if (!Number.isInteger(value)) ctx.params.reject(`value "${text}" is not an int`);
      return new ConstantNode(ctx, value, INT);
    }
    return new ConstantNode(ctx, value, DOUBLE);
  }),
  impl('Sequence', (ctx) => {
    const start = ctx.params.double('start');
    const step = ctx.params.double('step');
    // Accumulates (current += step), so long runs carry the usual floating-point drift; a
    // partition skips to its first row with the same sums (accumulate).
    return steppedNode(ctx, start, step, (x) => x);
  }),
  impl('Polynomial', (ctx) => {
    const coeffs = ctx.params.doubles('coefficients');
    if (coeffs.length === 0) ctx.params.reject('coefficients needs at least one value');
    const mode = ctx.params.text('xMode');
    const x0 = ctx.params.double('x');
    const step = ctx.params.double('xStep');
    const xMin = ctx.params.double('xMin');
    const xMax = ctx.params.double('xMax');
    const { rng } = ctx;
    const horner = (v: number): number => {
      let y = 0;
      for (let i = coeffs.length - 1; i >= 0; i--) y = y * v + coeffs[i]!;
      return y;
    };
    if (mode !== 'sequence')
      return scalarNode(ctx, DOUBLE, () =>
        mode === 'uniform' ? horner(xMin + (xMax - xMin) * rng.nextDouble()) : horner(x0),
      );
    return steppedNode(ctx, x0, step, horner);
  }),
];

/**
 * A node giving `value(x)` for x = start, start + step, … (one x per pull), row-indexed: a partition
 * moves x to its first row with the same sums a single run makes (accumulate).
 */
function steppedNode(ctx: BuildContext, start: number, step: number, value: (x: number) => number) {
  let x = start;
  let pulls = 0;
  const node = scalarNode(ctx, DOUBLE, () => {
    const v = value(x);
    x += step;
    pulls++;
    return v;
  });
  return rowIndexed(
    node,
    () => pulls,
    (n) => {
      x = accumulate(x, step, n);
      pulls += n;
    },
  );
}
