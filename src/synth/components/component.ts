/** What every component module provides: its descriptor and a factory for configured nodes. */
import type { Params } from '../engine/params.js';
import type { Kind, RuntimeNode } from '../engine/row.js';
import { Row, STRING } from '../engine/row.js';
import type { RandomSource } from '../random/random-source.js';
import type { AccessContext } from '../engine/access-context.js';
import type { ColumnLedger } from '../engine/graph-budget.js';
import type { SynthLimits } from '../limits.js';
import { overLimit } from '../limits.js';
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
  /** `"full"` (everything) or `"free"` (emulated Free gating, synth-spec §10). */
  readonly edition: Edition;
  /**
   * Collaborate peers (synth-spec §1.6) by role: `collaborate.<role>="Target"` on this node puts the
   * configured Target here under `<role>` (role text as written, lower-cased, in written order). The engine builds a
   * target before the node naming it, checks that it exists and that it is a `CollaborateTarget`,
   * and keeps these links out of the single-consumer and cycle checks. Reading a peer goes through
   * `peer.collaborate(out, offset)` only, never `next()`, so the peer's state is unchanged.
   */
  readonly collaborators: ReadonlyMap<string, CollaborateTarget>;
  /** Whatever this component's `load` hook returned during the load phase (tables, text, ...). */
  readonly outside?: unknown;
  /** Formats config entries (`format.<type>.<locale>`, `format.locale`, `address.unitLabels...`). */
  readonly formats: ReadonlyMap<string, string>;
  /** The run's budgets: check a size against them before allocating anything of that size. */
  readonly limits: SynthLimits;
  /** The graph's column ledger against its byte budget (checkColumns charges it). */
  readonly ledger?: ColumnLedger;
}

/** Editions a run can emulate. */
export type Edition = 'full' | 'free';

/** What a component's load hook gets: its parameters and the run's checked outside access. */
export interface LoadContext {
  readonly name: string;
  readonly type: string;
  readonly params: Params;
  /** Folder of the file that defined the node (its model or library); undefined for text models. */
  readonly origin: string | undefined;
  readonly access: AccessContext;
  /**
   * False in the synchronous load (`prepareModel`): a hook that would need to wait must throw a
   * load error instead of starting IO (after its policy checks, so refusals read the same).
   */
  readonly async: boolean;
  /** The run's budgets (ServiceCall caps, ...). */
  readonly limits: SynthLimits;
}

/** A component: descriptor, accepted per-input attributes, and the factory. */
export interface ComponentImpl {
  readonly descriptor: ComponentDescriptor;
  readonly inputAttributes: readonly string[];
  /**
   * Optional load phase for components that read outside data. Runs before any node is built,
   * after every policy check; a promise marks the data as asynchronous (databases, services), which
   * only the async `loadSynthModel` can wait for. The result reaches `create` as `ctx.outside`.
   */
  load?(ctx: LoadContext): unknown;
  create(ctx: BuildContext): RuntimeNode;
}

/**
 * A node that peers may read through a collaborate link (synth-spec §1.6). `collaborate` writes
 * `collaborateDimension` data points describing the node's current state and must not advance it
 * (nor pull its inputs). The one deliberate exception is an allocator such as FhirIdRegistry, whose
 * reads hand out the next id of a shared sequence.
 */
export interface CollaborateTarget extends RuntimeNode {
  readonly collaborateDimension: number;
  collaborate(out: Row, offset: number): void;
}

/** True when the node answers collaborate reads. */
export function isCollaborateTarget(node: RuntimeNode): node is CollaborateTarget {
  return typeof (node as Partial<CollaborateTarget>).collaborate === 'function';
}

/**
 * The peer behind `collaborate.<role>` (role matched case-insensitively); the engine has already
 * checked that it exists and answers collaborate reads.
 * @throws SynthError SYNTH_INVALID when a required link is missing
 */
export function collaborator(
  ctx: BuildContext,
  role: string,
  required = true,
): CollaborateTarget | undefined {
  const peer = ctx.collaborators.get(role.toLowerCase());
  if (peer === undefined && required) ctx.params.reject(`needs collaborate.${role}`);
  return peer;
}

/** A reader of a one-value peer: its first collaborate data point, number or text. */
export function collaborateValue(peer: CollaborateTarget): () => number | string {
  const row = new Row(Math.max(1, peer.collaborateDimension));
  return () => {
    peer.collaborate(row, 0);
    return row.value(0);
  };
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

/**
 * Refuses an observation wider than the column budget, or one that would take the graph's rows
 * past its byte budget; call it before allocating a row of that width. `what` names the size,
 * e.g. "dimension".
 * @throws SynthError SYNTH_INVALID naming MODELWORKS_SYNTH_MAX_COLUMNS
 * @throws SynthError SYNTH_LIMIT naming the byte cap's setting (see graph-budget.ts)
 */
export function checkColumns(ctx: BuildContext, columns: number, what: string): void {
  if (columns > ctx.limits.maxColumns) ctx.params.reject(overLimit(what, columns, 'maxColumns', ctx.limits));
  ctx.ledger?.reserve(columns, `${ctx.type} "${ctx.name}": ${what} ${columns}`);
}

/**
 * Refuses a count over the entries budget (a loop per value, a table a node builds); call it
 * before the loop or the allocation.
 * @throws SynthError SYNTH_INVALID naming MODELWORKS_SYNTH_MAX_ENTRIES
 */
export function checkEntries(ctx: BuildContext, entries: number, what: string): void {
  if (entries > ctx.limits.maxEntries) ctx.params.reject(overLimit(what, entries, 'maxEntries', ctx.limits));
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

/** A one-column generator emitting text. */
export function textNode(ctx: BuildContext, draw: () => string): RuntimeNode {
  return {
    name: ctx.name,
    type: ctx.type,
    dimension: 1,
    synchronous: false,
    next(out: Row, offset: number): void {
      out.kinds[offset] = STRING;
      out.strs[offset] = draw();
    },
  };
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
