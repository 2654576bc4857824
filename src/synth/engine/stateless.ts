/**
 * Whether a model's rows depend on earlier rows only through the random stream. Then a run whose
 * stream is put at the right state produces any row range on its own, which is what lets
 * generation split rows over threads with the same bytes. Decided from a list of components
 * known to keep nothing between observations; anything else (a Sequence, a sequential table, a
 * Pool, custom components, ...) keeps the run on one thread.
 */
import type { SynthModel } from '../model/types.js';
import type { Graph } from './loader.js';

/** Components whose observations read nothing but their parameters, inputs and the stream. */
const STATELESS = new Set([
  // continuous and discrete generators
  'Uniform',
  'Normal',
  'Lognormal',
  'Exponential',
  'Gamma',
  'Beta',
  'ChiSquared',
  'StudentT',
  'FDistribution',
  'Gumbel',
  'Laplace',
  'Logistic',
  'Pareto',
  'Weibull',
  'Triangular',
  'InverseGaussian',
  'VonMises',
  'Constant',
  'Bernoulli',
  'Binomial',
  'Categorical',
  'Empirical',
  'Geometric',
  'Poisson',
  'Skellam',
  'NegativeBinomial',
  'Hypergeometric',
  'Zipf',
  'MultivariateNormal',
  'Dirichlet',
  'Multinomial',
  // filters
  'Append',
  'Arrange',
  'Calculate',
  'ToInteger',
  'Truncate',
  'Mix',
  'Switch',
  // identifiers and network addresses (Pro)
  'SSN',
  'EIN',
  'NPI',
  'IPAddress',
]);

/**
 * True when no node of `model` (the prepared, composed model) carries state from one observation
 * to the next other than the shared random stream.
 */
export function rowIndependent(model: SynthModel, graph: Graph): boolean {
  for (const node of model.nodes) {
    if (STATELESS.has(node.type)) continue;
    if (node.type === 'FlatFile' && (node.attributes['mode'] ?? 'unweighted') !== 'sequential') continue;
    if (node.type === 'Redimension') {
      // whole input observations per output row pass straight through; otherwise a ring of
      // leftovers carries over between rows
      const own = graph.nodes.get(node.name);
      const input = node.inputs.length === 1 ? graph.nodes.get(node.inputs[0]!.name) : undefined;
      if (own !== undefined && input !== undefined && own.dimension % input.dimension === 0) continue;
    }
    return false;
  }
  return true;
}
