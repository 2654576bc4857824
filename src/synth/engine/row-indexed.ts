/**
 * Nodes that number their observations (a Sequence, a table read in order, an id allocator, a
 * custom time step): what they expose so that a partition can start them at its first row
 * (row-identity.ts). Kept apart from the placement so that components import no loader.
 */
import type { RuntimeNode } from './row.js';

/** A node whose observations depend on how many times it has been pulled. */
export interface RowIndexedNode extends RuntimeNode {
  /** Times its state advanced so far (pulls, and the reads of an allocator that hand out ids). */
  pulls(): number;
  /** Advances as if pulled `n` more times, drawing nothing and writing nothing. */
  skip(n: number): void;
}

/** True when the node numbers its observations (see RowIndexedNode). */
export function isRowIndexed(node: RuntimeNode): node is RowIndexedNode {
  const n = node as Partial<RowIndexedNode>;
  return typeof n.pulls === 'function' && typeof n.skip === 'function';
}

/** `node` with its pull count and skip attached. */
export function rowIndexed<T extends RuntimeNode>(
  node: T,
  pulls: () => number,
  skip: (n: number) => void,
): T & RowIndexedNode {
  return Object.assign(node, { pulls, skip });
}

/**
 * `start` plus `step` added `n` times, as a loop of `x += step` computes it (drift included): a
 * product when every partial sum is an exact integer, the loop otherwise.
 */
export function accumulate(start: number, step: number, n: number): number {
  const bound = Math.abs(start) + Math.abs(step) * n;
  if (Number.isInteger(start) && Number.isInteger(step) && bound <= Number.MAX_SAFE_INTEGER)
    return start + step * n;
  let x = start;
  for (let i = 0; i < n; i++) x += step;
  return x;
}
