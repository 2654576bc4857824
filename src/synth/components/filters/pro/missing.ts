/**
 * Missing (ours, not in the vendor's catalogue): writes chosen columns empty on the rows where a
 * key column holds a value. A Mix cannot do this for one column of a wider row (a node has one
 * consumer, so no Mix can choose between a row and the same row with a blank); `synth fit` uses it
 * to keep a numeric column's missing cells while the column stays in the copula, the key being a
 * presence column drawn by the copula too (so missingness keeps its own correlations).
 */
import { parseDouble } from '../../../engine/params.js';
import type { ComponentImpl } from '../../component.js';
import { filterNode, proImpl, singleInput } from '../../pro-nodes.js';

export const MISSING: ComponentImpl = proImpl('Missing', (ctx) => {
  const input = singleInput(ctx);
  const key = ctx.params.int('key');
  if (key < 0 || key >= input.dimension) ctx.params.reject(`key ${key} is outside the input's columns`);
  const indexes = ctx.params.ints('indexes');
  if (indexes.length === 0) ctx.params.reject('needs at least one index in indexes');
  for (const i of indexes)
    if (i < 0 || i >= input.dimension) ctx.params.reject(`index ${i} is outside 0..${input.dimension - 1}`);
  const value = ctx.params.text('value') ?? '0';
  // as Switch compares its keys: numerically when both sides are numbers, else as exact text
  const numeric = parseDouble(value);
  return filterNode(ctx, input.dimension, (out, offset) => {
    input.next(out, offset);
    const k = out.value(offset + key);
    const kn = typeof k === 'number' ? k : parseDouble(k);
    const hit = kn !== undefined && numeric !== undefined ? kn === numeric : String(k) === value;
    if (hit) for (let j = 0; j < indexes.length; j++) out.setText(offset + indexes[j]!, '');
  });
});
