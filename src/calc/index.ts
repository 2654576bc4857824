/**
 * The calc engine's public API. Each export here is a decision: surfaces (MCP, HTTP, CLI, service)
 * use only what is listed.
 */
export { canonicalize, formatPath, parseAddress, patternMatches, WILDCARD, type Path } from './address.js';
export {
  CALC_ERROR_CODES,
  CalcError,
  isEngineError,
  publicMessage,
  schemaViolationError,
  type CalcErrorCode,
  type ConstraintViolation,
} from './errors.js';
export { applyEvolution, type SpecEvolution } from './evolution.js';
export {
  compileExpression,
  configureExpressionLimits,
  DEFAULT_LIMITS as DEFAULT_EXPRESSION_LIMITS,
  expressionLimits,
  JSONATA_BUILTINS,
  LIMIT_RANGES as EXPRESSION_LIMIT_RANGES,
  type ExpressionLimits,
} from './expression.js';
export { ALLOCATION_BUDGET_CODE, isProvenCheap } from './expression-budget.js';
export {
  findUnsafeValue,
  FORBIDDEN_KEY,
  isForbiddenKey,
  MAX_VALUE_DEPTH,
  unsafeValueLocation,
  unsafeValueReason,
  unsafeValueViolation,
  type UnsafeValue,
} from './safe-keys.js';
export { BoundedCache, contentKey } from './schema-cache.js';
export { canonicalJson, cloneJson, isObject, jsonEqual, type JsonObject, type JsonValue } from './json.js';
export type { CompiledLibrary, LibraryExport } from './library.js';
export {
  dryRun,
  evalExpression,
  evolveRuntime,
  modelInfo,
  prepareModel,
  restoreSnapshot,
  runtimeWithSpec,
  startRuntime,
  takeSnapshot,
  type EvalExpressionResult,
  type EvolutionOutcome,
  type ModelInfo,
  type Snapshot,
} from './lifecycle.js';
export { historyFromRows, historyRowsOf } from './history.js';
export { HISTORY_CAPACITY } from './traces.js';
export { translatePatch, type PatchOperation } from './patch.js';
export { compileModel, type CompiledModel } from './program.js';
/** The engine's own reading of an expression: what it reads, and whether through its own row (the sheet converter's row slices). */
export { extractDependencyInfo, readsVariable, type Dependency } from './dependencies.js';
export { capDepth, projectPaths } from './projection.js';
export {
  ModelRuntime,
  type CyclePhase,
  type DispatchedEffect,
  type MutationResult,
  type RuntimeState,
} from './runtime.js';
export { normalizeSpec, type Effect, type ModelSpec, type SpecTest } from './spec.js';
export { runTests, type TestReport } from './test-runner.js';
export type { DerivationTrace } from './traces.js';
export { validateSpec, type ValidationReport } from './validator.js';
export { evaluateView, findView, type EvaluatedView } from './views.js';
export { MODEL_SPEC_SCHEMA, SPEC_EVOLUTION_SCHEMA } from './spec-schemas.js';
export { evaluateViews, itemViewIds, topLevelViewIds } from './views.js';
export { modelGraph, type GraphNode, type GraphNodeKind, type ModelGraph } from './graph-export.js';
export {
  cardState,
  explainValue,
  failingConstraints,
  inputValues,
  outputValues,
  type CardState,
  type ExplainedInput,
  type ValueExplanation,
} from './card-state.js';
/** The static schema node at a path (`{}` where the schema says nothing): restore's "is this still an input?". */
export { schemaAt } from './schema.js';
export {
  compareScores,
  gridEnds,
  search,
  snap,
  solveConstraint,
  type Score,
  type SolveConstraint,
  type SearchPlan,
  type SolveVariable,
} from './solve/index.js';
