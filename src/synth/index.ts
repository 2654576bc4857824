/**
 * @module synth
 * The synth engine's public API: model IO, runs, output rendering, validation, analysis, the
 * component catalogue and the deterministic RNG. Surfaces import from here only.
 */
export { SynthError } from './errors.js';
export type { SynthErrorCode } from './errors.js';
export type { ModelFormat, ModelInput, ModelNode, SynthModel } from './model/types.js';
export { formatForPath, parseModel, sniffFormat, writeModel } from './model/io.js';
export { SynthRun, resolveSeed } from './engine/run.js';
export { PreparedModel, loadSynthModel, prepareModel } from './engine/prepare.js';
export type { LoadOptions } from './engine/prepare.js';
export type { GraphBudget } from './engine/graph-budget.js';
export { COLUMN_BYTES } from './engine/graph-budget.js';
export { DEFAULT_LIMITS, LIMIT_SETTINGS, MAX_MODEL_DEPTH } from './limits.js';
export type { SynthLimits } from './limits.js';
export type { Edition } from './components/component.js';
export { PREFIX_SEPARATOR } from './engine/compose.js';
export type { Allowlists } from './access/allowlists.js';
export { CLOSED_ALLOWLISTS } from './access/allowlists.js';
export type {
  AccessPorts,
  Cell,
  DatabasePort,
  DatabaseRequest,
  FilePort,
  ModulePort,
  ServicePort,
  ServiceRequest,
  TableData,
} from './access/ports.js';
export { parseDatabaseUrl } from './access/urls.js';
export type { SeedSource } from './engine/run.js';
export { FREE_NODE_LIMIT } from './engine/loader.js';
export type { NodeFailure } from './engine/loader.js';
export { parseProperties } from './components/templates.js';
export { OUTPUT_FORMATS, renderChunks, renderRow, valueText } from './output/format.js';
export type { OutputFormat, RenderOptions } from './output/format.js';
export {
  nodeFailureLine,
  validateModel,
  validateModelAsync,
  validateModelText,
} from './validate/validator.js';
export type { ValidationResult } from './validate/validator.js';
export { analyzeModel, complexityOf } from './validate/analyzer.js';
export type {
  Analysis,
  AnalysisOptions,
  Complexity,
  IsolatedBenchmark,
  Throughput,
} from './validate/analyzer.js';
export { componentsJson, componentsMarkdown, componentsText } from './components/render.js';
export type { ComponentDescriptor, ParameterDescriptor } from './components/descriptor.js';
export type { ComponentImpl } from './components/component.js';
export {
  formatReplayReport,
  grindText,
  parseRecipe,
  replayCorpus,
  shapeDifference,
} from './conformance/replay.js';
export type { CorpusFiles, Recipe, ReplayCase, ReplayOptions } from './conformance/replay.js';
export { L64X128MixRandom } from './random/l64x128-mix-random.js';
export type { RandomSource } from './random/random-source.js';
export { javaDoubleToString } from './random/java-double.js';
