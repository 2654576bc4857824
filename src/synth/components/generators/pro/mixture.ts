/**
 * Mixture: one weighted choice (one `nextDouble`, like Mix) among inline generator specs, then one
 * draw of the chosen generator. The spec is `Type(p=v,...):weight;...` with at least two parts.
 */
import { Params } from '../../../engine/params.js';

import type { RuntimeNode } from '../../../engine/row.js';
import { SynthError, plainMessage } from '../../../errors.js';
import type { BuildContext, ComponentImpl } from '../../component.js';
import { cumulative, pick } from '../discrete.js';
import { proImpl } from '../../pro-nodes.js';

/** One parsed part of a `components` spec. */
export interface MixturePart {
  type: string;
  attributes: Record<string, string>;
  weight: number;
}

/**
 * Parses `Normal(mean=0,sigma=1):2; Uniform(min=5, max=6):1` (weight defaults to 1).
 * @throws Error with a readable message on bad syntax
 */
export function parseMixture(spec: string): MixturePart[] {
  const parts: MixturePart[] = [];
  for (const raw of spec.split(';')) {
    const text = raw.trim();
    if (text === '') continue;
    const m = /^([A-Za-z][\w.]*)\s*(?:\(([^)]*)\))?\s*(?::\s*([^\s]+))?$/.exec(text);
    if (m === null) throw new Error(`"${text}" is not Type(p=v,...):weight`);
    const attributes: Record<string, string> = {};
    for (const pair of (m[2] ?? '').split(',')) {
      if (pair.trim() === '') continue;
      const eq = pair.indexOf('=');
      if (eq < 0) throw new Error(`"${pair.trim()}" in "${text}" is not name=value`);
      const key = pair.slice(0, eq).trim();
      if (key === '__proto__') throw new Error(`"${key}" in "${text}" is not allowed as a parameter name`);
      attributes[key] = pair.slice(eq + 1).trim();
    }
    const weight = m[3] === undefined ? 1 : Number(m[3]);
    if (!(weight >= 0) || !Number.isFinite(weight))
      throw new Error(`weight "${m[3]}" in "${text}" is not a number >= 0`);
    parts.push({ type: m[1]!, attributes, weight });
  }
  return parts;
}

/** The Mixture component; `find` resolves the part types (the registry, passed in to avoid a cycle). */
export function mixtureComponent(find: (type: string) => ComponentImpl | undefined): ComponentImpl {
  return proImpl('Mixture', (ctx: BuildContext): RuntimeNode => {
    let parts: MixturePart[];
    try {
      parts = parseMixture(ctx.params.text('components') ?? '');
    } catch (err) {
      return ctx.params.reject(plainMessage(err, 'components cannot be read'));
    }
    if (parts.length < 2) ctx.params.reject(`components needs at least two parts, has ${parts.length}`);
    const nodes = parts.map((p, i) => {
      const impl = find(p.type);
      if (
        impl === undefined ||
        impl.descriptor.category !== 'generator' ||
        impl.descriptor.name === 'Mixture'
      )
        return ctx.params.reject(`component ${i + 1} "${p.type}" is not a generator`);
      if (ctx.edition === 'free' && impl.descriptor.edition !== 'Free')
        throw new SynthError('SYNTH_LICENSE', `Mixture "${ctx.name}": ${p.type} needs the Pro edition`);
      const name = `${ctx.name}[${i}]`;
      const params = new Params(impl.descriptor, name, p.attributes);
      return impl.create({
        ...ctx,
        name,
        type: impl.descriptor.name,
        params,
        inputs: [],
        inputAttributes: [],
      });
    });
    const dims = new Set(nodes.map((n) => n.dimension));
    if (dims.size > 1) ctx.params.reject('components must share one dimension');
    const cum = cumulative(
      parts.map((p) => p.weight),
      (m) => ctx.params.reject(m),
    );
    const { rng } = ctx;
    return {
      name: ctx.name,
      type: ctx.type,
      dimension: nodes[0]!.dimension,
      synchronous: false,
      next(out, offset): void {
        nodes[pick(cum, rng.nextDouble())]!.next(out, offset);
      },
    };
  });
}
