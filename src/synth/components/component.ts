/** What every component module provides: its descriptor and a factory for configured nodes. */
import type { Params } from '../engine/params.js';
import type { Kind, Row, RuntimeNode } from '../engine/row.js';
import type { RandomSource } from '../random/random-source.js';
import type { ComponentDescriptor } from './descriptor.js';
import { findDescriptor } from './catalog.js';

/** Everything a factory needs to configure one node. */
export interface BuildContext {
  readonly name: string;
  readonly type: string;
  readonly params: Params;
  readonly inputs: readonly RuntimeNode[];
  readonly inputAttributes: readonly Record<string, string>[];
  readonly rng: RandomSource;
  /** The edition the run enforces (`free` emulates the Free gating). */
  readonly edition: 'free' | 'full';
  /** Formats config entries (`format.<type>.<locale>`, `format.locale`, `address.unitLabels...`). */
  readonly formats: ReadonlyMap<string, string>;
  /** Reads a text resource a node names (word lists); absent when the caller gave no port. */
  readonly readText: ((path: string) => string) | undefined;
  /** `collaborate.<role>` links of this node: role -> peer node name, in written order. */
  readonly collaborate: ReadonlyMap<string, string>;
  /** The configured runtime of another node by name (built on demand), or undefined. */
  lookup(name: string): RuntimeNode | undefined;
}

/** A node that answers reads through a collaborate link (§1.6). */
export interface CollaborationTarget extends RuntimeNode {
  /** The value a peer sees; `role` is the reader's link name. */
  collaborate(role: string): number | string;
}

/** True when the node can be a collaborate target. */
export function isCollaborationTarget(node: RuntimeNode | undefined): node is CollaborationTarget {
  return node !== undefined && typeof (node as Partial<CollaborationTarget>).collaborate === 'function';
}

/**
 * The peer behind `collaborate.<role>`, checked when the node is set up.
 * @throws SynthError SYNTH_INVALID when the link is missing or the target cannot answer
 */
export function collaborator(
  ctx: BuildContext,
  role: string,
  required = true,
): CollaborationTarget | undefined {
  const target = ctx.collaborate.get(role);
  if (target === undefined) {
    if (required) ctx.params.reject(`needs collaborate.${role}`);
    return undefined;
  }
  const node = ctx.lookup(target);
  if (!isCollaborationTarget(node))
    return ctx.params.reject(`collaborate.${role}="${target}" is not a node that answers collaborate reads`);
  return node;
}

/** A component: descriptor, accepted per-input attributes, and the factory. */
export interface ComponentImpl {
  readonly descriptor: ComponentDescriptor;
  readonly inputAttributes: readonly string[];
  create(ctx: BuildContext): RuntimeNode;
}

/** A node usable as a Copula marginal: it can map a probability to a value without drawing. */
export interface QuantileNode extends RuntimeNode {
  quantile(u: number): number;
  readonly integerValued: boolean;
}

/** True when the node offers an inverse CDF. */
export function hasQuantile(node: RuntimeNode): node is QuantileNode {
  return typeof (node as Partial<QuantileNode>).quantile === 'function';
}

/** Looks up a catalog descriptor that must exist. */
export function descriptorOf(name: string): ComponentDescriptor {
  const d = findDescriptor(name);
  if (d === undefined) throw new Error(`catalog has no ${name}`);
  return d;
}

/** A one-column generator node around a draw function, optionally with an inverse CDF. */
export function scalarNode(
  ctx: BuildContext,
  kind: Kind,
  draw: () => number,
  quantile?: (u: number) => number,
): RuntimeNode {
  const node = {
    name: ctx.name,
    type: ctx.type,
    dimension: 1,
    synchronous: false,
    next(out: Row, offset: number): void {
      out.nums[offset] = draw();
      out.kinds[offset] = kind;
    },
  };
  return quantile === undefined ? node : Object.assign(node, { quantile, integerValued: kind !== 0 });
}

/** A generator node emitting a fixed-size vector per call. */
export function vectorNode(
  ctx: BuildContext,
  kind: Kind,
  dimension: number,
  fill: (out: number[]) => void,
): RuntimeNode {
  const buf = new Array<number>(dimension).fill(0);
  return {
    name: ctx.name,
    type: ctx.type,
    dimension,
    synchronous: false,
    next(out: Row, offset: number): void {
      fill(buf);
      for (let i = 0; i < dimension; i++) {
        out.nums[offset + i] = buf[i]!;
        out.kinds[offset + i] = kind;
      }
    },
  };
}
