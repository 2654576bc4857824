/** Node helpers shared by the Pro components: text generators, composite writers, role lookup. */
import type { Composite, RuntimeNode } from '../engine/row.js';
import type { BuildContext, ComponentImpl } from './component.js';
import { descriptorOf, textNode } from './component.js';

export { textNode };
import { PRO_INPUT_ATTRIBUTES } from './catalog-pro.js';

/** A Pro component implementation from its catalog entry. */
export function proImpl(name: string, create: ComponentImpl['create']): ComponentImpl {
  return { descriptor: descriptorOf(name), inputAttributes: PRO_INPUT_ATTRIBUTES[name] ?? [], create };
}

/** `table[key]` when the table has its own entry by that name (data never reaches a prototype). */
export function entryOf<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A node with the given dimension and step function. */
export function filterNode(
  ctx: BuildContext,
  dimension: number,
  next: RuntimeNode['next'],
  synchronous = ctx.inputs.some((n) => n.synchronous),
): RuntimeNode {
  return { name: ctx.name, type: ctx.type, dimension, synchronous, next };
}

/** The one input of a single-input filter. */
export function singleInput(ctx: BuildContext): RuntimeNode {
  if (ctx.inputs.length !== 1) ctx.params.reject(`needs exactly one input, has ${ctx.inputs.length}`);
  return ctx.inputs[0]!;
}

/**
 * Inputs by role: each wanted role (or one of its aliases) by its `role` attribute, and roles left
 * unnamed take the remaining inputs in document order (the positional fallback).
 */
export function byRole(
  ctx: BuildContext,
  roles: readonly (readonly string[])[],
  required: number = roles.length,
): (RuntimeNode | undefined)[] {
  const taken = new Set<number>();
  const found: (number | undefined)[] = roles.map((names) => {
    const i = ctx.inputAttributes.findIndex((a) => names.includes((a['role'] ?? '').toLowerCase()));
    if (i >= 0) taken.add(i);
    return i >= 0 ? i : undefined;
  });
  const known = new Set(roles.flat());
  for (const a of ctx.inputAttributes) {
    const role = a['role'];
    if (role !== undefined && !known.has(role.toLowerCase()) && !role.includes('.'))
      ctx.params.reject(`unknown input role "${role}"; accepted: ${roles.map((r) => r[0]).join(', ')}`);
  }
  let next = 0;
  const result = found.map((i) => {
    if (i !== undefined) return ctx.inputs[i];
    while (next < ctx.inputs.length && (taken.has(next) || ctx.inputAttributes[next]!['role'] !== undefined))
      next++;
    if (next >= ctx.inputs.length) return undefined;
    taken.add(next);
    return ctx.inputs[next++];
  });
  result.forEach((n, i) => {
    if (n === undefined && i < required) ctx.params.reject(`needs an input with role "${roles[i]![0]}"`);
  });
  return result;
}

/** A composite from ordered fields and a rendering. */
export function composite(
  type: string,
  fields: Record<string, string>,
  text: string,
  numeric = NaN,
): Composite {
  const names = Object.keys(fields);
  return {
    type,
    text,
    numeric,
    fieldNames: names,
    field(name: string): string | undefined {
      if (name === 'formatted') return text;
      return Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
    },
  };
}

/** Zero-padded decimal. */
export function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
