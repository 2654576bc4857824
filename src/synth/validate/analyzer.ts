/**
 * The analyzer (§7): complexity figures from the model's tree, a timed throughput run and an
 * optional per-node benchmark. Clock access is injected so the engine stays free of I/O.
 */
import { findComponent, type ComponentLookup } from '../components/registry.js';
import type { GraphOptions } from '../engine/loader.js';
import { buildGraph, checkStructure, isNotInBuild } from '../engine/loader.js';
import type { LoadOptions } from '../engine/prepare.js';
import { PreparedModel, prepareModel } from '../engine/prepare.js';
import { SynthError } from '../errors.js';
import { parseDouble } from '../engine/params.js';
import { Row } from '../engine/row.js';
import type { RuntimeNode } from '../engine/row.js';
import type { ModelNode, SynthModel } from '../model/types.js';
import { L64X128MixRandom } from '../random/l64x128-mix-random.js';

export interface Complexity {
  mode: 'FULLY_COMPUTED' | 'PARTIAL';
  nodeCount: number;
  minDepth: number;
  maxDepth: number;
  predictedAverageDepth: number;
  score: number;
  customComponentCount: number;
  customComponentNames: string[];
  summary: string;
}

export interface Throughput {
  sampleCount: number;
  sampleDurationMs: number;
  observationsPerSecond: number;
}

export interface ProblemNode {
  label: string;
  className: string;
  core: boolean;
  confidence: number;
  relativeMultiplier: number;
}

export interface IsolatedBenchmark {
  measuredAverageDepth: number;
  baselineNanosPerCall: number;
  problemNodeCount: number;
  problemNodes: ProblemNode[];
}

export interface AnalysisOptions {
  throughput: boolean;
  samples: number;
  warmupMs: number;
  isolate: boolean;
  isolateRounds: number;
  isolateIterations: number;
  isolateWarmupRounds: number;
  isolateThreshold: number;
  /** Monotonic clock in milliseconds (e.g. performance.now). */
  now: () => number;
  /** ISO timestamp of the analysis. */
  timestamp: string;
  /** How a plain model is loaded (edition, location, ports); ignored for a prepared model. */
  load?: LoadOptions;
}

export interface Analysis {
  rootName: string;
  timestamp: string;
  complexity: Complexity;
  throughput: Throughput | null;
  isolatedBenchmark: IsolatedBenchmark | null;
}

/** Per-class cost weights (default 1.0). Mix's 2.0 reproduces the observed score of 30 (§7.2). */
const WEIGHTS: Record<string, number> = { Mix: 2 };

function mixProbabilities(node: ModelNode): number[] {
  const w = node.inputs.map((i) =>
    i.attributes['weight'] === undefined ? 1 : (parseDouble(i.attributes['weight']) ?? 1),
  );
  const total = w.reduce((s, v) => s + v, 0);
  return w.map((v) => (total > 0 ? v / total : 0));
}

/** Complexity figures of the tree under the root (§7.2). */
export function complexityOf(
  model: SynthModel,
  rates = new Map<string, number>(),
  lookup: ComponentLookup = findComponent,
): Complexity {
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const reachable = new Set<string>();
  let minDepth = Infinity;
  let maxDepth = 0;
  let cost = 0;
  const customs: string[] = [];
  // rate = expected pulls of this node per emitted row.
  const walk = (name: string, depth: number, rate: number): number => {
    const node = byName.get(name);
    if (node === undefined) throw new SynthError('SYNTH_LOAD', `unknown node "${name}"`);
    const type = lookup(node.type)?.descriptor.name ?? node.type;
    if (!reachable.has(name)) {
      reachable.add(name);
      // Pro components count as custom (§7.2), implemented or not.
      if (lookup(node.type)?.descriptor.edition !== 'Free') customs.push(`${name}:${node.type}`);
    }
    cost += (Object.hasOwn(WEIGHTS, type) ? WEIGHTS[type]! : 1) * rate;
    rates.set(name, (rates.get(name) ?? 0) + rate);
    if (node.inputs.length === 0) {
      minDepth = Math.min(minDepth, depth);
      maxDepth = Math.max(maxDepth, depth);
      return depth;
    }
    let inputRate = rate;
    if (type === 'Redimension') {
      const dim = Number(node.attributes['dimension'] ?? node.attributes['dim'] ?? 1);
      const inDim = dimensionOf(byName, node.inputs[0]!.name, lookup);
      inputRate = inDim > 0 ? (rate * dim) / inDim : rate;
    }
    if (type === 'Perturb') {
      // Steady state: only the normal branch is pulled every row; the disturbance, wait and duration
      // inputs are pulled rarely, and the original's score (Perturb + 2 MVN + 2 Constant = 20) counts
      // them as zero.
      const normal = Math.max(
        0,
        node.inputs.findIndex((i) => ['normal', 'data', 'primary'].includes(i.attributes['role'] ?? '')),
      );
      const depths = node.inputs.map((input, i) => walk(input.name, depth + 1, i === normal ? inputRate : 0));
      return depths[normal]!;
    }
    if (type === 'Mix') {
      const p = mixProbabilities(node);
      return node.inputs.reduce(
        (s, input, i) => s + p[i]! * walk(input.name, depth + 1, inputRate * p[i]!),
        0,
      );
    }
    const depths = node.inputs.map((input) => walk(input.name, depth + 1, inputRate));
    return depths.reduce((s, d) => s + d, 0) / depths.length;
  };
  const predicted = walk(model.root, 1, 1);
  const score = Math.round(10 * cost);
  const partial = customs.length > 0;
  const nodes = reachable.size;
  const summary = partial
    ? `partial — ${customs.length} custom component(s) excluded from predicted average: nodes=${nodes} minDepth=${minDepth} maxDepth=${maxDepth} score=${score}; customs=[${customs.join(', ')}]`
    : `fully computed: nodes=${nodes} minDepth=${minDepth} maxDepth=${maxDepth} predictedAvgDepth=${predicted.toFixed(3)} score=${score}`;
  return {
    mode: partial ? 'PARTIAL' : 'FULLY_COMPUTED',
    nodeCount: nodes,
    minDepth,
    maxDepth,
    predictedAverageDepth: predicted,
    score,
    customComponentCount: customs.length,
    customComponentNames: customs,
    summary,
  };
}

/** Static dimension estimate for the Redimension pull rate (1 when unknown). */
function dimensionOf(byName: Map<string, ModelNode>, name: string, lookup: ComponentLookup): number {
  const node = byName.get(name);
  if (node === undefined) return 1;
  const type = lookup(node.type)?.descriptor.name;
  if (type === 'Redimension') return Number(node.attributes['dimension'] ?? 1);
  if (type === 'Arrange')
    return String(node.attributes['columns'] ?? '')
      .split(/[\s,]+/)
      .filter(Boolean).length;
  if (type === 'Append') return node.inputs.reduce((s, i) => s + dimensionOf(byName, i.name, lookup), 0);
  if (type === 'MultivariateNormal')
    return String(node.attributes['means'] ?? '')
      .split(/[\s,]+/)
      .filter(Boolean).length;
  if (node.inputs.length > 0 && type !== 'Mix') return dimensionOf(byName, node.inputs[0]!.name, lookup);
  if (type === 'Mix') return dimensionOf(byName, node.inputs[0]!.name, lookup);
  return 1;
}

function timeRun(root: RuntimeNode, count: number, now: () => number): number {
  const row = new Row(root.dimension);
  const t0 = now();
  for (let i = 0; i < count; i++) root.next(row, 0);
  return now() - t0;
}

/** Timed generation of `samples` observations (§7.1 `throughput`). */
export function measureThroughput(
  model: SynthModel,
  options: AnalysisOptions,
  graphOptions: GraphOptions = {},
): Throughput {
  const graph = buildGraph(model, new L64X128MixRandom(1), graphOptions);
  if (options.warmupMs > 0) {
    const end = options.now() + options.warmupMs;
    const row = new Row(graph.root.dimension);
    while (options.now() < end) for (let i = 0; i < 100; i++) graph.root.next(row, 0);
  }
  const elapsed = timeRun(graph.root, options.samples, options.now);
  const ms = Math.round(elapsed);
  const seconds = ms > 0 ? ms / 1000 : Math.max(elapsed, 1e-6) / 1000;
  return {
    sampleCount: options.samples,
    sampleDurationMs: ms,
    observationsPerSecond: options.samples / seconds,
  };
}

/** Times every node on its own (its subtree minus its inputs' subtrees) against the cheapest one. */
export function isolatedBenchmark(
  model: SynthModel,
  options: AnalysisOptions,
  predictedDepth: number,
  graphOptions: GraphOptions = {},
): IsolatedBenchmark {
  const graph = buildGraph(model, new L64X128MixRandom(1), graphOptions);
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const rates = new Map<string, number>();
  const lookup = graphOptions.components ?? findComponent;
  complexityOf(model, rates, lookup);
  const subtree = new Map<string, number[]>();
  for (const [name, node] of graph.nodes) {
    const samples: number[] = [];
    for (let r = 0; r < options.isolateWarmupRounds + options.isolateRounds; r++) {
      const ms = timeRun(node, options.isolateIterations, options.now);
      if (r >= options.isolateWarmupRounds) samples.push((ms * 1e6) / options.isolateIterations);
    }
    subtree.set(name, samples);
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const own = new Map<string, { nanos: number; confidence: number }>();
  for (const [name, samples] of subtree) {
    // Inputs are pulled rate(input) / rate(node) times per call of the node.
    const inputs = byName.get(name)?.inputs ?? [];
    const rate = rates.get(name) ?? 1;
    const inner = inputs.reduce(
      (s, i) => s + median(subtree.get(i.name) ?? []) * ((rates.get(i.name) ?? rate) / rate),
      0,
    );
    const nanos = Math.max(median(samples) - inner, 0);
    const mean = samples.reduce((s, v) => s + v, 0) / Math.max(samples.length, 1);
    const sd = Math.sqrt(samples.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(samples.length, 1));
    own.set(name, { nanos, confidence: mean > 0 ? Math.max(0, Math.min(1, 1 - sd / mean)) : 0 });
  }
  // The reference call: one uniform draw from the engine's RNG.
  const rng = new L64X128MixRandom(2);
  const reference: number[] = [];
  const refIterations = options.isolateIterations * 100;
  for (let r = 0; r < options.isolateWarmupRounds + options.isolateRounds; r++) {
    const t0 = options.now();
    for (let i = 0; i < refIterations; i++) rng.nextDouble();
    if (r >= options.isolateWarmupRounds) reference.push(((options.now() - t0) * 1e6) / refIterations);
  }
  const baseline = Math.max(median(reference), 1e-3);
  const problemNodes: ProblemNode[] = [];
  for (const [name, o] of own) {
    const multiplier = o.nanos / baseline;
    if (multiplier > options.isolateThreshold) {
      const type = graph.nodes.get(name)!.type;
      problemNodes.push({
        label: `${name}:${type}`,
        className: lookup(type)?.descriptor.className ?? type,
        core: true,
        confidence: o.confidence,
        relativeMultiplier: multiplier,
      });
    }
  }
  return {
    measuredAverageDepth: predictedDepth,
    baselineNanosPerCall: baseline,
    problemNodeCount: problemNodes.length,
    problemNodes,
  };
}

/**
 * Analyzes a model (§7).
 * @throws SynthError when the model does not load
 */
export function analyzeModel(source: SynthModel | PreparedModel, options: AnalysisOptions): Analysis {
  // Models using components this build lacks (or gated by --edition free) still get their
  // complexity figures; they just cannot be timed.
  let prepared: PreparedModel | undefined;
  const components = options.load?.components ?? findComponent;
  if (source instanceof PreparedModel) prepared = source;
  else {
    try {
      prepared = prepareModel(source, options.load);
    } catch (err) {
      const missing = source.nodes.some(
        (n) => components(n.type) === undefined && n.type.toLowerCase() !== 'import',
      );
      if (!(err instanceof SynthError && (err.code === 'SYNTH_LICENSE' || missing)) && !isNotInBuild(err))
        throw err;
    }
  }
  const model = prepared?.model ?? (source as SynthModel);
  const structure = checkStructure(model);
  if (structure.length > 0) throw new SynthError('SYNTH_INVALID', structure.map((f) => f.message).join('; '));
  const complexity = complexityOf(model, undefined, prepared?.components ?? components);
  const graphOptions: GraphOptions = {
    edition: prepared?.edition,
    outside: prepared?.outside,
    formats: prepared?.formats,
    limits: prepared?.limits,
    customs: prepared?.customs,
    components: prepared?.components,
  };
  return {
    rootName: model.root,
    timestamp: options.timestamp,
    complexity,
    throughput: options.throughput && prepared ? measureThroughput(model, options, graphOptions) : null,
    isolatedBenchmark:
      options.isolate && prepared
        ? isolatedBenchmark(model, options, complexity.predictedAverageDepth, graphOptions)
        : null,
  };
}
