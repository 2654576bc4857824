/** Generators that draw little or nothing: Constant, Sequence, Polynomial. */
import { DOUBLE, INT } from '../../engine/row.js';
import { parseDouble } from '../../engine/params.js';
import { SynthError } from '../../errors.js';
import { accumulate, rowIndexed } from '../../engine/row-indexed.js';
import type { ComponentImpl } from '../component.js';
import { descriptorOf, scalarNode, textNode } from '../component.js';

function impl(name: string, create: ComponentImpl['create']): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes: [], create };
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
      return scalarNode(ctx, INT, () => value);
    }
    return scalarNode(ctx, DOUBLE, () => value);
  }),
  impl('Sequence', (ctx) => {
    const start = ctx.params.double('start');
    const step = ctx.params.double('step');
    let current = start;
    let pulls = 0;
    // Accumulates (current += step), so long runs carry the usual floating-point drift; a
    // partition skips to its first row with the same sums (accumulate).
    const node = scalarNode(ctx, DOUBLE, () => {
      const v = current;
      current += step;
      pulls++;
      return v;
    });
    return rowIndexed(
      node,
      () => pulls,
      (n) => {
        current = accumulate(current, step, n);
        pulls += n;
      },
    );
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
    let x = x0;
    const horner = (v: number): number => {
      let y = 0;
      for (let i = coeffs.length - 1; i >= 0; i--) y = y * v + coeffs[i]!;
      return y;
    };
    if (mode !== 'sequence')
      return scalarNode(ctx, DOUBLE, () =>
        mode === 'uniform' ? horner(xMin + (xMax - xMin) * rng.nextDouble()) : horner(x0),
      );
    let pulls = 0;
    const node = scalarNode(ctx, DOUBLE, () => {
      const v = horner(x);
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
  }),
];
