/** The in-memory form of a synth model: what XML, JSON and `.sgm` texts all describe. */

/** One `<input>` reference of a filter; `attributes` holds `weight`, `role`, `value` as written. */
export interface ModelInput {
  name: string;
  attributes: Record<string, string>;
}

/** One node: a generator (no inputs) or a filter. Attribute values are strings, as written. */
export interface ModelNode {
  type: string;
  name: string;
  attributes: Record<string, string>;
  inputs: ModelInput[];
}

/** A whole model. Optional parts are absent rather than empty so round trips stay exact. */
export interface SynthModel {
  root: string;
  /** Seed text as written (an integer literal); absent, zero or negative means "no fixed seed". */
  seed?: string;
  /** RNG class override (Pro unless it names the default class). */
  random?: string;
  /** `<custom name class>` bindings (Pro). */
  customs: { name: string; className: string }[];
  /** `<declare name value>` parameters (Pro). */
  declares: { name: string; value: string }[];
  /** `analysis.*` entries, key without the `analysis.` prefix, in written order. */
  analysis: [string, string][];
  nodes: ModelNode[];
}

/** The three on-disk syntaxes. */
export type ModelFormat = 'xml' | 'json' | 'sgm';
