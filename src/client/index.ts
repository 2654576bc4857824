/**
 * `modelworks/client`: a typed client of the `modelworks serve` REST API for browsers and Node
 * (docs/embedding.md, docs/rest-api.md).
 */
export {
  ModelworksClient,
  type Created,
  type CompositionGraph,
  type DownloadedBytes,
  type EffectApproval,
  type FlaggedConstraint,
  type Health,
  type ModelworksClientOptions,
  type MutateOptions,
  type PendingEffect,
  type SimulateArgs,
  type SimulationResult,
  type SolveAnswer,
  type SolveArgs,
  type WriteOptions,
} from './client.js';
export {
  ConnectionError,
  ModelworksError,
  RateLimitError,
  VersionConflictError,
  ViolationError,
  retryAfterSeconds,
  type ErrorBody,
  type Violation,
} from './errors.js';
export type {
  ResumedEvent,
  SocketConstructor,
  SocketLike,
  Subscription,
  SubscriptionEvent,
  SubscriptionHandlers,
} from './subscription.js';
export type {
  AuditFilter,
  EvolveResult,
  LibraryVocabulary,
  ModelEvent,
  ModelStatus,
  MutationSummary,
  RestoreResult,
  StateOptions,
} from '../service/calc-api.js';
export type { EvaluatedView, JsonObject, JsonValue, ModelInfo, ModelSpec, Snapshot } from '../calc/index.js';
