/** Small builders for the model nodes `fit` writes (attribute values are strings, as in a file). */
import type { ModelNode } from '../model/types.js';
import { javaDoubleToString } from '../random/java-double.js';
import type { Marginal } from './marginal.js';

/** A number as the model text carries it: shortest round-trip digits, no exponent surprises. */
export function num(v: number): string {
  return Number.isInteger(v) ? String(v) : javaDoubleToString(v);
}

/** Parameters rounded to 6 significant digits: readable, and a fit is not that precise anyway. */
export function param(v: number): string {
  return num(Number(v.toPrecision(6)));
}

export function node(
  type: string,
  name: string,
  attributes: Record<string, string> = {},
  inputs: ModelNode['inputs'] = [],
): ModelNode {
  const attrs: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(attributes)) attrs[k] = v;
  return { type, name, attributes: { ...attrs }, inputs };
}

export function input(name: string, attributes: Record<string, string> = {}): ModelNode['inputs'][number] {
  return { name, attributes: { ...attributes } };
}

/** The generator node of a numeric marginal (Empirical lists `value:weight` items). */
export function marginalNode(name: string, m: Marginal): ModelNode {
  if (m.family === 'Empirical') {
    const items = (m.items ?? []).map(([v, w]) => `${num(v)}:${param(w)}`).join(', ');
    return node('Empirical', name, { values: items });
  }
  const attrs: Record<string, string> = {};
  for (const [k, v] of m.params) attrs[k] = param(v);
  if (m.family === 'Poisson' && (m.params[0]?.[1] ?? 0) >= 30) attrs.mode = 'large-lambda';
  return node(m.family, name, attrs);
}

/** A categorical column's code: Categorical over the label frequencies. */
export function categoricalNode(name: string, weights: readonly number[]): ModelNode {
  return node('Categorical', name, { weights: weights.map(param).join(', ') });
}

/**
 * A constant cell: a number keeps its type when the engine prints it back as the same text;
 * anything else (`0.00`, `007`, words) is a (Pro) string Constant, so the output shows the
 * sample's text and two labels never print alike.
 */
export function constantNode(name: string, text: string): ModelNode {
  if (/^-?[1-9]\d*$|^0$/.test(text) && Number.isSafeInteger(Number(text)))
    return node('Constant', name, { value: text, type: 'int' });
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) && javaDoubleToString(Number(text)) === text)
    return node('Constant', name, { value: text });
  return node('Constant', name, { value: text, type: 'string' });
}
