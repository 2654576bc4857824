/**
 * From a parsed model to a runnable graph: edition gates, name resolution, the single-consumer and
 * cycle checks, attribute resolution, and one configured node per model node.
 */
import { PRO_COMPONENTS, findDescriptor } from '../components/catalog.js';
import { findComponent, listComponents } from '../components/registry.js';
import { SynthError } from '../errors.js';
import type { SynthModel } from '../model/types.js';
import type { RandomSource } from '../random/random-source.js';
import { nearest } from './nearest.js';
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

// ---- Edition and engine options (synthpro). Kept apart so the Free-gating work can merge cleanly. ----

/** `full` runs everything; `free` emulates the Free edition's gating (§10). */
export type Edition = 'free' | 'full';

/**
 * What a load needs from outside the pure engine: the edition to enforce, the formats config
 * (`format.<type>.<locale>`, `format.locale`, `address.unitLabels...` entries, §4.5) and a text
 * reader for word lists. None of them touches the file system itself.
 */
export interface LoadOptions {
  edition?: Edition;
  formats?: ReadonlyMap<string, string>;
  /** Reads a word list or similar text resource named by a node (relative to the model). */
  readText?: (path: string) => string;
}

/** Attribute keys that link a node to a collaborate peer (§1.6). */
export const COLLABORATE_PREFIX = 'collaborate.';

/** Splits `collaborate.<role>` links off a node's attributes, keeping written order. */
export function splitCollaborate(attributes: Record<string, string>): {
  params: Record<string, string>;
  links: [string, string][];
} {
  const params: Record<string, string> = {};
  const links: [string, string][] = [];
  for (const [k, v] of Object.entries(attributes)) {
    if (k.toLowerCase().startsWith(COLLABORATE_PREFIX)) links.push([k.slice(COLLABORATE_PREFIX.length), v]);
    else params[k] = v;
  }
  return { params, links };
}

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

/**
 * Load-stage checks (§6.1) that make a model unusable before any node is configured.
 * @throws SynthError SYNTH_LOAD or SYNTH_LICENSE
 */
export function checkLoad(model: SynthModel, options: LoadOptions = {}): void {
  if ((options.edition ?? 'full') === 'free') checkFreeEdition(model);
  else checkFullEdition(model);
  checkNames(model);
}

/** The phrase marking a load error about a feature this build lacks (not a model mistake). */
const NOT_IN_BUILD = 'is not implemented in this build';

/** True when the error says the model needs something this build does not have yet. */
export function isNotInBuild(err: unknown): boolean {
  return err instanceof SynthError && err.code === 'SYNTH_LOAD' && err.message.includes(NOT_IN_BUILD);
}

/** Full edition: only what this build cannot do yet is refused (Import, declare substitution). */
function checkFullEdition(model: SynthModel): void {
  if (model.declares.length > 0) throw new SynthError('SYNTH_LOAD', `<declare> substitution ${NOT_IN_BUILD}`);
  for (const node of model.nodes) {
    if (findComponent(node.type) === undefined && PRO_COMPONENTS.has(node.type))
      throw new SynthError('SYNTH_LOAD', `${node.type} ("${node.name}") ${NOT_IN_BUILD}`);
  }
}

/** The Free edition's gates (§10). */
function checkFreeEdition(model: SynthModel): void {
  if (model.random !== undefined && !DEFAULT_RANDOM.has(model.random)) {
    throw new SynthError(
      'SYNTH_LICENSE',
      `dataset random="${model.random}" (RNG override) needs the Pro edition`,
    );
  }
  if (model.customs.length > 0)
    throw new SynthError('SYNTH_LICENSE', '<custom> definitions need the Pro edition');
  if (model.declares.length > 0)
    throw new SynthError('SYNTH_LICENSE', '<declare> parameters need the Pro edition');
  if (model.nodes.length > FREE_NODE_LIMIT) {
    throw new SynthError(
      'SYNTH_LICENSE',
      `the Free edition allows ${FREE_NODE_LIMIT} nodes; this model has ${model.nodes.length}`,
    );
  }
  for (const node of model.nodes) {
    const impl = findComponent(node.type);
    if (PRO_COMPONENTS.has(impl?.descriptor.name ?? node.type) || node.type.includes('.')) {
      throw new SynthError('SYNTH_LICENSE', `${node.type} ("${node.name}") needs the Pro edition`);
    }
    if (impl?.descriptor.name === 'Constant' && node.attributes['type']?.trim().toLowerCase() === 'string')
      throw new SynthError('SYNTH_LICENSE', `Constant "${node.name}": type="string" needs the Pro edition`);
    for (const [k, v] of Object.entries(node.attributes)) {
      if (k.startsWith('collaborate.'))
        throw new SynthError('SYNTH_LICENSE', `collaborate references ("${node.name}") need the Pro edition`);
      if (/^\$\w/.test(v))
        throw new SynthError(
          'SYNTH_LICENSE',
          `"$" references ("${node.name}".${k}) need <declare>, a Pro feature`,
        );
    }
  }
}

/** Names, types, inputs and attributes (any edition). */
function checkNames(model: SynthModel): void {
  const names = new Set<string>();
  for (const node of model.nodes) {
    if (names.has(node.name)) throw new SynthError('SYNTH_LOAD', `duplicate node name "${node.name}"`);
    names.add(node.name);
    if (findComponent(node.type) === undefined) {
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
    for (const [role, target] of splitCollaborate(node.attributes).links) {
      if (!model.nodes.some((n) => n.name === target))
        throw new SynthError(
          'SYNTH_LOAD',
          `"${node.name}" collaborate.${role} names unknown node "${target}"`,
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
    const allowed = findComponent(node.type)!.inputAttributes;
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
    // Resolve attributes now so unknown names fail the load, not the run.
    new Params(findDescriptor(node.type)!, node.name, splitCollaborate(node.attributes).params);
  }
}

/** Structural failures (§6.1): a node consumed twice, and cycles. */
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
  const state = new Map<string, 1 | 2>();
  const visit = (name: string, path: string[]): void => {
    const s = state.get(name);
    if (s === 2) return;
    if (s === 1) {
      const node = byName.get(name)!;
      failures.push({
        nodeName: name,
        nodeType: node.type,
        message: `cycle: ${[...path.slice(path.indexOf(name)), name].join(' -> ')}`,
      });
      return;
    }
    state.set(name, 1);
    for (const input of byName.get(name)?.inputs ?? []) visit(input.name, [...path, name]);
    state.set(name, 2);
  };
  for (const node of model.nodes) visit(node.name, []);
  return failures;
}

/**
 * Configures every node (reachable or not) and returns the graph plus node-level failures.
 * Nodes whose inputs failed are skipped.
 * @throws SynthError SYNTH_LOAD / SYNTH_LICENSE from attribute parsing
 */
export function configure(
  model: SynthModel,
  rng: RandomSource,
  options: LoadOptions = {},
): { graph: Graph | null; failures: NodeFailure[] } {
  const failures = checkStructure(model);
  if (failures.length > 0) return { graph: null, failures };
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const built = new Map<string, RuntimeNode | null>();
  const build = (name: string): RuntimeNode | null => {
    if (built.has(name)) return built.get(name)!;
    const node = byName.get(name)!;
    const inputs: RuntimeNode[] = [];
    for (const input of node.inputs) {
      const n = build(input.name);
      if (n === null) {
        built.set(name, null);
        return null;
      }
      inputs.push(n);
    }
    const impl = findComponent(node.type)!;
    const { params: attributes, links } = splitCollaborate(node.attributes);
    const params = new Params(impl.descriptor, node.name, attributes);
    // Collaborate peers sit outside the input tree: built on first lookup, never pulled for it.
    built.set(name, null);
    try {
      const runtime = impl.create({
        name: node.name,
        type: impl.descriptor.name,
        params,
        inputs,
        inputAttributes: node.inputs.map((i) => i.attributes),
        rng,
        edition: options.edition ?? 'full',
        formats: options.formats ?? new Map(),
        readText: options.readText,
        collaborate: new Map(links),
        lookup: (peer) => (byName.has(peer) && peer !== name ? (build(peer) ?? undefined) : undefined),
      });
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
  const nodes = new Map<string, RuntimeNode>();
  for (const [k, v] of built) if (v !== null) nodes.set(k, v);
  return { graph: { root, nodes }, failures };
}

/**
 * Loads a model into a runnable graph.
 * @throws SynthError on any load error or validation failure
 */
export function buildGraph(model: SynthModel, rng: RandomSource, options: LoadOptions = {}): Graph {
  checkLoad(model, options);
  const { graph, failures } = configure(model, rng, options);
  if (graph === null) {
    throw new SynthError('SYNTH_INVALID', failures.map((f) => f.message).join('; '));
  }
  return graph;
}
