/**
 * From a parsed model to a runnable graph: edition gates, name resolution, the single-consumer and
 * cycle checks, attribute resolution, and one configured node per model node.
 */
import { PRO_COMPONENTS } from '../components/catalog.js';
import type { CollaborateTarget, ComponentImpl, Edition } from '../components/component.js';
import { isCollaborateTarget } from '../components/component.js';
import { findComponent, listComponents, lookupWith, type ComponentLookup } from '../components/registry.js';
import { SynthError } from '../errors.js';
import type { SynthLimits } from '../limits.js';
import { MAX_MODEL_DEPTH, limitsOf, overLimit } from '../limits.js';
import { setOwn } from '../model/names.js';
import type { SynthModel } from '../model/types.js';
import type { RandomSource } from '../random/random-source.js';
import { nearest } from '../../errors/nearest.js';
import { ColumnLedger, type GraphBudget } from './graph-budget.js';
import { Params } from './params.js';
import type { RuntimeNode } from './row.js';

/** Most nodes a Free model may hold. */
export const FREE_NODE_LIMIT = 20;

/** Class names that mean "the engine's own default RNG" (allowed under Free). */
const DEFAULT_RANDOM = new Set([
  'L64X128MixRandom',
  'java.util.random.L64X128MixRandom',
  'jdk.random.L64X128MixRandom',
]);

/** A node-level failure as the validator reports it. */
export interface NodeFailure {
  nodeName: string;
  nodeType: string;
  message: string;
}

/** A configured graph ready to run. */
export interface Graph {
  readonly root: RuntimeNode;
  readonly nodes: ReadonlyMap<string, RuntimeNode>;
}

/** True for a `collaborate.<role>` attribute key (case-insensitive). */
export function isCollaborateKey(key: string): boolean {
  return key.toLowerCase().startsWith('collaborate.');
}

/** A node's attributes without its collaborate links (those are not component parameters). */
export function componentAttributes(attributes: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attributes))
    if (!isCollaborateKey(k)) setOwn(out, k, v, 'an attribute');
  return out;
}

/** Options shared by the load-stage functions. */
export interface GraphOptions {
  /** `"full"` (default): everything; `"free"`: emulate the Free gating of synth-spec §10. */
  readonly edition?: Edition;
  /** Per node name, what the component's load hook returned (see prepare.ts). */
  readonly outside?: ReadonlyMap<string, unknown>;
  /** The model's loaded custom components, by lower-cased name (see prepare.ts). */
  readonly customs?: ReadonlyMap<string, ComponentImpl>;
  /** Resolves built-in node types; default: the component registry (see prepare.ts). */
  readonly components?: ComponentLookup;
  /** Formats config (`format.<type>.<locale>`, `format.locale`, `address.unitLabels...`, §4.5). */
  readonly formats?: ReadonlyMap<string, string>;
  /** Budgets every node is configured under; default: DEFAULT_LIMITS. */
  readonly limits?: SynthLimits;
  /** Bytes the graph's rows may hold (see graph-budget.ts); default: unbounded. */
  readonly graphBudget?: GraphBudget;
}

/** The wording of a load error about a feature this build lacks (not a model mistake). */
const NOT_IN_BUILD = 'is not implemented in this build';

/** True when the error says the model needs something this build does not have yet. */
export function isNotInBuild(err: unknown): boolean {
  return err instanceof SynthError && err.code === 'SYNTH_LOAD' && err.reason === 'not-in-build';
}

/**
 * Load-stage checks (§6.1) that make a model unusable before any node is configured. Under the
 * Free edition the §10 gates apply (Pro components, Import, declare, collaborate, customs, RNG
 * override, more than 20 nodes); under `"full"` only what this build lacks is refused.
 * Expects a composed model (imports inlined, declares substituted) under `"full"`.
 * @throws SynthError SYNTH_LOAD or SYNTH_LICENSE
 */
export function checkLoad(
  model: SynthModel,
  edition: Edition = 'full',
  lookup: ComponentLookup = findComponent,
): void {
  const free = edition === 'free';
  if (model.random !== undefined && !DEFAULT_RANDOM.has(model.random)) {
    throw new SynthError(
      free ? 'SYNTH_LICENSE' : 'SYNTH_LOAD',
      free
        ? `dataset random="${model.random}" (RNG override) needs the Pro edition`
        : `dataset random="${model.random}": this build offers only the default RNG (L64X128MixRandom)`,
    );
  }
  if (free && model.customs.length > 0)
    throw new SynthError('SYNTH_LICENSE', '<custom> definitions need the Pro edition');
  for (const c of model.customs)
    if (lookup(c.name) === undefined)
      throw new SynthError(
        'SYNTH_LOAD',
        `custom "${c.name}" (${c.className}) is not loaded: custom components load only in the asynchronous load phase, from the custom component folders the operator allows`,
      );
  if (free && model.declares.length > 0)
    throw new SynthError('SYNTH_LICENSE', '<declare> parameters need the Pro edition');
  if (free && model.nodes.length > FREE_NODE_LIMIT) {
    throw new SynthError(
      'SYNTH_LICENSE',
      `the Free edition allows ${FREE_NODE_LIMIT} nodes; this model has ${model.nodes.length}`,
    );
  }
  const names = new Set<string>();
  for (const node of model.nodes) {
    if (names.has(node.name)) throw new SynthError('SYNTH_LOAD', `duplicate node name "${node.name}"`);
    names.add(node.name);
    const impl = lookup(node.type);
    if (free && (impl?.descriptor.edition === 'Pro' || node.type.toLowerCase() === 'import'))
      throw new SynthError('SYNTH_LICENSE', `${node.type} ("${node.name}") needs the Pro edition`);
    if (impl === undefined) {
      if (node.type.toLowerCase() === 'import')
        throw new SynthError(
          'SYNTH_LOAD',
          `Import "${node.name}" was not resolved (imports are inlined before loading)`,
        );
      if (PRO_COMPONENTS.has(node.type) || node.type.includes('.')) {
        if (free)
          throw new SynthError('SYNTH_LICENSE', `${node.type} ("${node.name}") needs the Pro edition`);
        throw new SynthError('SYNTH_LOAD', `${node.type} ("${node.name}") ${NOT_IN_BUILD}`, 'not-in-build');
      }
      const hint = nearest(
        node.type,
        listComponents().map((c) => c.descriptor.name),
      );
      throw new SynthError(
        'SYNTH_LOAD',
        `unknown component type "${node.type}" ("${node.name}")` +
          (hint === undefined ? '' : ` (did you mean "${hint}"?)`),
      );
    }
    if (
      free &&
      impl.descriptor.name === 'Constant' &&
      node.attributes['type']?.trim().toLowerCase() === 'string'
    )
      throw new SynthError('SYNTH_LICENSE', `Constant "${node.name}": type="string" needs the Pro edition`);
    for (const [k, v] of Object.entries(node.attributes)) {
      if (free && isCollaborateKey(k))
        throw new SynthError('SYNTH_LICENSE', `collaborate references ("${node.name}") need the Pro edition`);
      if (/^\$\w/.test(v.trim()))
        throw new SynthError(
          free ? 'SYNTH_LICENSE' : 'SYNTH_LOAD',
          free
            ? `"$" references ("${node.name}".${k}) need <declare>, a Pro feature`
            : `"${node.name}".${k}="${v}" names no declared parameter`,
        );
    }
  }
  if (!names.has(model.root)) {
    const hint = nearest(model.root, [...names]);
    throw new SynthError(
      'SYNTH_LOAD',
      `root node "${model.root}" is not defined` + (hint === undefined ? '' : ` (did you mean "${hint}"?)`),
    );
  }
  for (const node of model.nodes) {
    const allowed = lookup(node.type)!.inputAttributes;
    for (const input of node.inputs) {
      if (!names.has(input.name)) {
        const hint = nearest(input.name, [...names]);
        throw new SynthError(
          'SYNTH_LOAD',
          `"${node.name}" names unknown input "${input.name}"` +
            (hint === undefined ? '' : ` (did you mean "${hint}"?)`),
        );
      }
      for (const key of Object.keys(input.attributes)) {
        if (!allowed.includes(key)) {
          const hint = nearest(key, allowed);
          throw new SynthError(
            'SYNTH_LOAD',
            `input "${input.name}" of ${node.type} "${node.name}": unknown attribute "${key}"` +
              (hint === undefined ? '' : ` (did you mean "${hint}"?)`) +
              `; accepted: ${allowed.length === 0 ? 'none' : allowed.join(', ')}`,
          );
        }
      }
    }
    for (const [k, target] of Object.entries(node.attributes)) {
      if (isCollaborateKey(k) && !names.has(target)) {
        const hint = nearest(target, [...names]);
        throw new SynthError(
          'SYNTH_LOAD',
          `${node.type} "${node.name}": ${k}="${target}" names no node` +
            (hint === undefined ? '' : ` (did you mean "${hint}"?)`),
        );
      }
    }
    // Resolve attributes now so unknown names fail the load, not the run.
    new Params(lookup(node.type)!.descriptor, node.name, componentAttributes(node.attributes));
  }
}

/** Structural failures (§6.1): a node consumed twice, cycles, and chains deeper than MAX_MODEL_DEPTH. */
export function checkStructure(model: SynthModel): NodeFailure[] {
  const failures: NodeFailure[] = [];
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const consumer = new Map<string, string>();
  for (const node of model.nodes) {
    for (const input of node.inputs) {
      const first = consumer.get(input.name);
      if (first !== undefined) {
        const target = byName.get(input.name);
        failures.push({
          nodeName: input.name,
          nodeType: target?.type ?? 'unknown',
          message: `"${input.name}" is an input of both "${first}" and "${node.name}"; a node may have only one consumer (copy values with Arrange)`,
        });
      } else consumer.set(input.name, node.name);
    }
  }
  // loops, not push(...list): a list as long as a big model's would overflow the argument stack
  for (const f of cycles(model, byName)) failures.push(f);
  if (failures.length === 0) for (const f of tooDeep(model, byName)) failures.push(f);
  return failures;
}

/** Cycles through inputs, found by an explicit-stack walk (a long chain must not use the call stack). */
function cycles(model: SynthModel, byName: ReadonlyMap<string, SynthModel['nodes'][number]>): NodeFailure[] {
  const failures: NodeFailure[] = [];
  const state = new Map<string, 1 | 2>();
  for (const start of model.nodes) {
    if (state.has(start.name)) continue;
    // each frame: a node and the index of its next input to visit
    const stack: [string, number][] = [[start.name, 0]];
    const path: string[] = [start.name];
    state.set(start.name, 1);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const inputs = byName.get(frame[0])?.inputs ?? [];
      if (frame[1] >= inputs.length) {
        state.set(frame[0], 2);
        stack.pop();
        path.pop();
        continue;
      }
      const next = inputs[frame[1]++]!.name;
      const s = state.get(next);
      if (s === 2 || !byName.has(next)) continue;
      if (s === 1) {
        failures.push({
          nodeName: next,
          nodeType: byName.get(next)!.type,
          message: `cycle: ${[...path.slice(path.indexOf(next)), next].join(' -> ')}`,
        });
        continue;
      }
      state.set(next, 1);
      stack.push([next, 0]);
      path.push(next);
    }
  }
  return failures;
}

/**
 * Nodes whose chain of inputs and collaborate links runs deeper than MAX_MODEL_DEPTH (loading and
 * pulling recurse once per level). Expects a model without input cycles.
 */
function tooDeep(model: SynthModel, byName: ReadonlyMap<string, SynthModel['nodes'][number]>): NodeFailure[] {
  const links = (name: string): string[] => {
    const node = byName.get(name);
    if (node === undefined) return [];
    const out = node.inputs.map((i) => i.name);
    for (const [k, v] of Object.entries(node.attributes)) if (isCollaborateKey(k)) out.push(v);
    return out.filter((n) => byName.has(n));
  };
  const depth = new Map<string, number>();
  const open = new Set<string>();
  for (const start of model.nodes) {
    if (depth.has(start.name)) continue;
    const stack: string[] = [start.name];
    while (stack.length > 0) {
      const name = stack[stack.length - 1]!;
      if (depth.has(name)) {
        stack.pop();
        continue;
      }
      // a collaborate cycle is reported by configure; here an open node simply counts as a leaf
      const pending = links(name).filter((n) => !depth.has(n) && !open.has(n));
      if (pending.length > 0 && !open.has(name)) {
        open.add(name);
        for (const n of pending) stack.push(n);
        continue;
      }
      open.delete(name);
      const below = links(name).reduce((m, n) => Math.max(m, depth.get(n) ?? 0), 0);
      depth.set(name, below + 1);
      stack.pop();
      if (below + 1 > MAX_MODEL_DEPTH) {
        const node = byName.get(name)!;
        return [
          {
            nodeName: name,
            nodeType: node.type,
            message: `"${name}" sits on a chain of ${below + 1} nodes (inputs and collaborate links); the limit is ${MAX_MODEL_DEPTH} levels`,
          },
        ];
      }
    }
  }
  return [];
}

/**
 * Configures every node (reachable or not) and returns the graph plus node-level failures.
 * Nodes whose inputs failed are skipped. Every node's columns are charged to the graph's ledger
 * before it allocates them (its inputs' widths before it is built, the widths it asks for as it
 * asks), and the run's row is charged once the root is known.
 * @throws SynthError SYNTH_LOAD / SYNTH_LICENSE from attribute parsing
 * @throws SynthError SYNTH_LIMIT when the rows would pass `options.graphBudget`
 */
export function configure(
  model: SynthModel,
  rng: RandomSource,
  options: GraphOptions = {},
): { graph: Graph | null; failures: NodeFailure[] } {
  const failures = checkStructure(model);
  if (failures.length > 0) return { graph: null, failures };
  const limits = options.limits ?? limitsOf(undefined);
  const lookup = lookupWith(options.customs, options.components);
  const ledger = new ColumnLedger(options.graphBudget);
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const built = new Map<string, RuntimeNode | null>();
  const building = new Set<string>();
  const build = (name: string): RuntimeNode | null => {
    if (built.has(name)) return built.get(name)!;
    const node = byName.get(name)!;
    const fail = (message: string): null => {
      failures.push({ nodeName: node.name, nodeType: node.type, message });
      built.set(name, null);
      return null;
    };
    // Collaborate targets are built first; the links stay outside the input graph (§1.6).
    building.add(name);
    const collaborators = new Map<string, CollaborateTarget>();
    for (const [k, target] of Object.entries(node.attributes)) {
      if (!isCollaborateKey(k)) continue;
      if (building.has(target) && !built.has(target)) return fail(`collaborate cycle through "${target}"`);
      const peer = build(target);
      if (peer === null) return fail(`collaborate target "${target}" failed to configure`);
      if (!isCollaborateTarget(peer))
        return fail(`${k}="${target}": ${peer.type} "${target}" cannot answer collaborate reads`);
      collaborators.set(k.slice('collaborate.'.length).toLowerCase(), peer);
    }
    const inputs: RuntimeNode[] = [];
    for (const input of node.inputs) {
      const n = build(input.name);
      if (n === null) {
        built.set(name, null);
        return null;
      }
      inputs.push(n);
    }
    const impl = lookup(node.type)!;
    const params = new Params(impl.descriptor, node.name, componentAttributes(node.attributes));
    const who = `${impl.descriptor.name} "${node.name}"`;
    ledger.startNode(
      inputs.reduce((sum, n) => sum + n.dimension, 0),
      who,
    );
    try {
      const runtime = impl.create({
        name: node.name,
        type: impl.descriptor.name,
        params,
        inputs,
        inputAttributes: node.inputs.map((i) => i.attributes),
        rng,
        edition: options.edition ?? 'full',
        collaborators,
        outside: options.outside?.get(node.name),
        formats: options.formats ?? new Map<string, string>(),
        limits,
        ledger,
      });
      // every component checks the widths it allocates; this catches one built from wide inputs
      if (runtime.dimension > limits.maxColumns)
        return fail(
          `${impl.descriptor.name} "${node.name}": ${overLimit('width', runtime.dimension, 'maxColumns', limits)}`,
        );
      ledger.endNode(runtime.dimension, who);
      built.set(name, runtime);
      return runtime;
    } catch (err) {
      if (err instanceof SynthError && err.code === 'SYNTH_INVALID') {
        failures.push({ nodeName: node.name, nodeType: impl.descriptor.name, message: err.message });
        built.set(name, null);
        return null;
      }
      throw err;
    }
  };
  for (const node of model.nodes) build(node.name);
  const root = built.get(model.root) ?? null;
  if (root === null || failures.length > 0) return { graph: null, failures };
  // the row a run pulls the root into (GraphRun), and its column names
  ledger.reserve(root.dimension, `the row of "${model.root}" (${root.dimension} columns)`);
  const nodes = new Map<string, RuntimeNode>();
  for (const [k, v] of built) if (v !== null) nodes.set(k, v);
  return { graph: { root, nodes }, failures };
}

/**
 * Loads a model into a runnable graph.
 * @throws SynthError on any load error or validation failure
 */
export function buildGraph(model: SynthModel, rng: RandomSource, options: GraphOptions = {}): Graph {
  checkLoad(model, options.edition, lookupWith(options.customs, options.components));
  const { graph, failures } = configure(model, rng, options);
  if (graph === null) {
    throw new SynthError('SYNTH_INVALID', failures.map((f) => f.message).join('; '));
  }
  return graph;
}
