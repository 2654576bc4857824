/**
 * A loaded model (see prepare.ts), apart from the load machinery: a worker thread builds its run
 * from one without loading the model parsers or the load phase (src/synth-io/parallel/worker.ts).
 */
import type { ComponentImpl, Edition } from '../components/component.js';
import { findComponent, type ComponentLookup } from '../components/registry.js';
import type { SynthLimits } from '../limits.js';
import { limitsOf } from '../limits.js';
import type { SynthModel } from '../model/types.js';
import type { GraphBudget } from './graph-budget.js';

/** A model after the load phase: composed, gated, with its outside data in memory. */
export class PreparedModel {
  constructor(
    /** The composed model (imports inlined, declares substituted). */
    readonly model: SynthModel,
    readonly edition: Edition,
    /** Per node name, what its load hook produced. */
    readonly outside: ReadonlyMap<string, unknown>,
    /** Formats config handed to every node (§4.5). */
    readonly formats: ReadonlyMap<string, string> = new Map(),
    /** The budgets every run of this model is configured under. */
    readonly limits: SynthLimits = limitsOf(undefined),
    /** The model's custom components, by lower-cased name. */
    readonly customs: ReadonlyMap<string, ComponentImpl> = new Map(),
    /** Resolves built-in node types (see LoadOptions.components). */
    readonly components: ComponentLookup = findComponent,
    /** Bytes every graph of this model may hold in its rows (see LoadOptions.graphBudget). */
    readonly graphBudget?: GraphBudget,
  ) {}
}
