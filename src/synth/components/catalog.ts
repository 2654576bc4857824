/**
 * The Free catalog (§4.1, §4.3): 35 generators and 10 filters with every parameter, alias, default
 * and allowed value. Parameter order is the catalog order, which is also the `.sgm` positional order.
 */
import type { ComponentDescriptor } from './descriptor.js';
import { param } from './descriptor.js';
import { OUTSIDE_CATALOG } from './outside/catalog.js';
import { PRO_CATALOG } from './catalog-pro.js';

interface Entry {
  name: string;
  category: 'generator' | 'filter';
  description: string;
  input?: string;
  details?: string;
  params: string[];
}

const MODE = 'mode[algorithm]=standard{standard,fast}:enum|standard or fast (other draw sequence)';

const GENERATORS: Entry[] = [
  {
    name: 'Bernoulli',
    category: 'generator',
    description: 'int 0/1, 1 with probability p',
    params: ['p[probability,prob]=0.5'],
  },
  {
    name: 'Beta',
    category: 'generator',
    description: 'double in (0,1)',
    params: ['alpha[shape1,a]=1.0', 'beta[shape2,b]=1.0'],
  },
  {
    name: 'Binomial',
    category: 'generator',
    description: 'int: successes in n trials',
    params: ['n[trials]=1:int', 'p[probability,prob]=0.5', MODE],
  },
  {
    name: 'Categorical',
    category: 'generator',
    description: 'int index 0..k-1 drawn with the given (normalized) weights',
    params: ['weights*[probabilities,probs]:double[]'],
  },
  { name: 'ChiSquared', category: 'generator', description: 'double', params: ['df[degreesoffreedom]=1.0'] },
  {
    name: 'Constant',
    category: 'generator',
    description: 'the same value on every row; draws nothing',
    params: ['value*:string', 'type[datatype]=double{int,double,string}:enum|string needs Pro'],
  },
  {
    name: 'Dirichlet',
    category: 'generator',
    description: 'k doubles summing to 1',
    params: ['alpha*[concentration]:double[]'],
  },
  {
    name: 'Empirical',
    category: 'generator',
    description: 'double drawn from listed values (`v` or `v:w`, weight default 1)',
    params: ['values*[data,samples]:string'],
  },
  {
    name: 'Exponential',
    category: 'generator',
    description: 'double with mean 1/lambda',
    params: ['lambda[rate]=1.0'],
  },
  {
    name: 'FDistribution',
    category: 'generator',
    description: 'double',
    params: ['d1[numeratordf,df1]=1.0', 'd2[denominatordf,df2]=1.0'],
  },
  {
    name: 'Gamma',
    category: 'generator',
    description: 'double; `rate` (or `beta`) may be given instead of scale',
    params: ['shape[alpha,k]=1.0', 'scale[theta]=1.0', 'rate[beta]|1/scale, overrides scale'],
  },
  {
    name: 'Geometric',
    category: 'generator',
    description: 'int >= 1: trials until the first success',
    params: ['p[probability,prob]=0.5'],
  },
  {
    name: 'Gumbel',
    category: 'generator',
    description: 'double',
    params: ['mu[location]=0.0', 'beta[scale]=1.0'],
  },
  {
    name: 'Hypergeometric',
    category: 'generator',
    description: 'int: successes among draws without replacement',
    params: ['population=1:int', 'successStates[k,successes]=0:int', 'draws[n,samplesize]=0:int', MODE],
  },
  {
    name: 'InverseGaussian',
    category: 'generator',
    description: 'double',
    params: ['mu[mean]=1.0', 'lambda[shape]=1.0'],
  },
  {
    name: 'InverseWishart',
    category: 'generator',
    description: 'k*k doubles (row-major matrix)',
    params: ['df[degreesoffreedom]=2.0|> k-1', 'scale*[psi]:double[]|flat row-major k x k SPD matrix'],
  },
  {
    name: 'Laplace',
    category: 'generator',
    description: 'double',
    params: ['mu[location,mean]=0.0', 'b[scale]=1.0'],
  },
  {
    name: 'Logistic',
    category: 'generator',
    description: 'double',
    params: ['mu[location,mean]=0.0', 's[scale]=1.0'],
  },
  {
    name: 'Lognormal',
    category: 'generator',
    description: 'double exp(mu + sigma * Z)',
    params: ['mu[meanlog,mean]=0.0', 'sigma[sdlog,sd,stddev]=1.0'],
  },
  {
    name: 'Multinomial',
    category: 'generator',
    description: 'k ints: counts per category over the trials',
    params: ['weights*[probabilities,probs]:double[]', 'trials[n]=1:int'],
  },
  {
    name: 'MultivariateNormal',
    category: 'generator',
    description: 'k doubles; diagonal (sigmas) or full (covariance) mode',
    params: [
      'means[mean]:double[]',
      'sigmas[sigma,stddevs,sds]:double[]|diagonal mode',
      'covariance[cov,covmatrix]:matrix|full mode, rows separated by ; or newline',
      'dimension[dim,d]:int|optional, must agree',
    ],
  },
  {
    name: 'NegativeBinomial',
    category: 'generator',
    description: 'int',
    params: ['r[size,dispersion]=1.0', 'p[probability,prob]=0.5', MODE],
  },
  {
    name: 'Normal',
    category: 'generator',
    description: 'double mean + sigma * Z',
    params: ['mean=0.0', 'sigma[stddev,sd,std]=1.0'],
  },
  {
    name: 'Pareto',
    category: 'generator',
    description: 'double',
    params: ['scale[xm,minimum]=1.0', 'shape[alpha]=1.0'],
  },
  {
    name: 'Poisson',
    category: 'generator',
    description: 'int',
    params: [
      'lambda[rate,mean]=1.0',
      'mode[algorithm]=standard{standard,large-lambda}:enum|large-lambda needs lambda >= 30',
    ],
  },
  {
    name: 'Polynomial',
    category: 'generator',
    description: 'double a0 + a1 x + a2 x^2 + ...',
    params: [
      'coefficients*[coeffs,c]:double[]',
      'xMode[mode]=constant{constant,sequence,uniform}:enum',
      'x[x0,start]=0',
      'xStep[step]=1',
      'xMin=0',
      'xMax=1',
    ],
  },
  {
    name: 'Sequence',
    category: 'generator',
    description: 'double start, start+step, ...',
    params: ['start[startvalue]=0.0', 'step[stepvalue]=1.0'],
  },
  {
    name: 'Skellam',
    category: 'generator',
    description: 'int difference of two Poisson counts (may be negative)',
    params: ['lambda1[rate1]=1.0', 'lambda2[rate2]=1.0', MODE],
  },
  { name: 'StudentT', category: 'generator', description: 'double', params: ['df[nu,degreesoffreedom]=1.0'] },
  {
    name: 'Triangular',
    category: 'generator',
    description: 'double',
    params: ['min[a,lower]=0.0', 'mode[c,peak,mostlikely]=0.5', 'max[b,upper]=1.0'],
  },
  {
    name: 'Uniform',
    category: 'generator',
    description: 'double in [min, max)',
    params: ['min=0.0|inclusive', 'max=1.0|exclusive'],
  },
  {
    name: 'VonMises',
    category: 'generator',
    description: 'double (radians)',
    params: ['mu[mean]=0.0', 'kappa[concentration]=1.0'],
  },
  {
    name: 'Weibull',
    category: 'generator',
    description: 'double',
    params: ['shape[k,alpha]=1.0', 'scale[lambda,theta]=1.0'],
  },
  {
    name: 'Wishart',
    category: 'generator',
    description: 'k*k doubles (row-major matrix)',
    params: ['df[degreesoffreedom]=2.0', 'scale*[v]:double[]|flat row-major k x k matrix'],
  },
  {
    name: 'Zipf',
    category: 'generator',
    description: 'int rank 1..n',
    params: ['n[population]=10:int', 's[exponent]=1.0'],
  },
];

const FILTERS: Entry[] = [
  {
    name: 'Append',
    category: 'filter',
    input: '1..n, document order',
    description: 'concatenates every input, pulled each cycle',
    params: [],
  },
  {
    name: 'Arrange',
    category: 'filter',
    input: '1',
    description: 'picks, repeats or reorders columns',
    params: ['columns*:int[]|an index may be listed several times or not at all'],
  },
  {
    name: 'Calculate',
    category: 'filter',
    input: '1',
    description: 'arithmetic on the columns: `y[i] = expr` assignments over `x[i]`; results are doubles',
    params: ['expression*[expr,formula]:string'],
  },
  {
    name: 'Copula',
    category: 'filter',
    input: 'n single-column distribution nodes (never pulled)',
    description: 'correlated columns with the inputs as marginals',
    params: [
      'correlation*[corr]:matrix|unit diagonal, positive definite',
      'df[degreesoffreedom]|omit = Gaussian copula',
    ],
  },
  {
    name: 'Mix',
    category: 'filter',
    input: '>= 2, per-input weight (default 1)',
    description: "one input's observation, chosen by weight; only that input is pulled",
    params: ['synchronous[sync]=false:boolean'],
  },
  {
    name: 'Pool',
    category: 'filter',
    input: 'role entity (+ role count)',
    description: "repeats each entity's columns on count rows",
    params: ['interleave=1:int', 'countColumn:int'],
  },
  {
    name: 'Redimension',
    category: 'filter',
    input: '1',
    description: 're-chunks the data-point stream into observations of the given dimension',
    params: ['dimension*[outputdimension,dim]:int'],
  },
  {
    name: 'Switch',
    category: 'filter',
    input: 'role input + branches with value (or * for default)',
    description: "the input's columns followed by those of the branch its key selects",
    params: ['key*:int|0-based column of the input'],
  },
  {
    name: 'ToInteger',
    category: 'filter',
    input: '1',
    description: 'turns selected columns into ints',
    params: [
      'mode[rounding]=floor{floor,ceiling,round,truncate,whole}:enum|whole: ints where a value is whole, others unchanged (ours)',
      'indexes[index,indices]:int[]|default all',
    ],
  },
  {
    name: 'Truncate',
    category: 'filter',
    input: '1 numeric',
    description: 'keeps values inside [min, max] by redrawing (truncate) or clamping (censor)',
    params: [
      'min:string|omit = unbounded',
      'max:string|omit = unbounded',
      'mode=truncate{truncate,censor}:enum',
      'indexes[index,indices]:int[]',
      'maxAttempts=10000:int',
    ],
  },
];

function build(e: Entry): ComponentDescriptor {
  return {
    name: e.name,
    className: `modelworks.synth.${e.category === 'generator' ? 'generators' : 'filters'}.${e.name}`,
    category: e.category,
    edition: 'Free',
    description: e.description,
    input: e.input ?? 'none',
    details: '',
    parameters: e.params.map((p, i) => param(p, i)),
  };
}

/** Every Free component, generators first, each group alphabetical. */
export const FREE_CATALOG: readonly ComponentDescriptor[] = [...GENERATORS, ...FILTERS].map(build);

const BY_NAME = new Map(
  [...FREE_CATALOG, ...OUTSIDE_CATALOG, ...PRO_CATALOG].map((d) => [d.name.toLowerCase(), d]),
);

/** Names of Pro components (§4.2, §4.4): recognised so a Free run can say "needs Pro". */
export const PRO_COMPONENTS: ReadonlySet<string> = new Set([
  'CollaborationBeacon',
  'Database',
  'EIN',
  'FhirIdRegistry',
  'FlatFile',
  'IMEI',
  'Import',
  'IPAddress',
  'IPv6Address',
  'Mixture',
  'NPI',
  'RoutingNumber',
  'SSN',
  'Address',
  'BusinessDay',
  'CollaborationWatcher',
  'CompanyName',
  'Convert',
  'CreditCard',
  'Date',
  'DomainName',
  'Email',
  'Extract',
  'FhirBloodPressureRender',
  'FhirBundleAssembler',
  'FhirObservationRender',
  'FhirPatientRender',
  'IBAN',
  'ISBN',
  'MACAddress',
  // ours, not the vendor's: full edition only, like the rest of what fitted models use
  'Missing',
  'NachaEntryRender',
  'NachaFileAssembler',
  'PersonAssembler',
  'Perturb',
  'Phone',
  'ServiceCall',
  'Time',
  'UserAgent',
  'VIN',
]);

/** The descriptor for a component type name (case-insensitive), or undefined. */
export function findDescriptor(type: string): ComponentDescriptor | undefined {
  return BY_NAME.get(type.toLowerCase());
}
