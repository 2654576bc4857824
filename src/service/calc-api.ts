/**
 * The calc operations as an interface, so a surface does not care where the models live: the
 * embedded CalcService implements it, and so does the REST client of remote mode
 * (src/remote/calc-client.ts). MCP tools, resources and the console depend only on this.
 */
import {
  CalcError,
  type CompiledLibrary,
  type DerivationTrace,
  type MutationResult,
  type EvalExpressionResult,
  type EvaluatedView,
  type JsonObject,
  type JsonValue,
  type ModelInfo,
  type ModelSpec,
  type Snapshot,
  type TestReport,
  type ValidationReport,
} from '../calc/index.js';
import type { AuditRecord, BlobRef } from '../store/store.js';
import type { AuditVerification } from './audit.js';
import type { CompositionGraph } from './calc-composition.js';
import type { PendingEffect as AwaitingApproval } from './effect-approvals.js';
import type { ModelGraph, VerificationReport } from './verification.js';

/**
 * What `mutate` / `patch_model` return over MCP (traces only when asked for): the cycle's result,
 * the model's `revision` after it, `unchanged: true` when the write changed nothing (no cycle, no
 * revision, no audit record), and `replayed: true` when an idempotency key answered it.
 */
export type MutationSummary = Omit<MutationResult, 'traces'> & {
  traces?: DerivationTrace[];
  revision?: number;
  unchanged?: true;
  replayed?: true;
};

/** What `evolve_spec` answers; `unchanged: true` for an evolution that changes nothing (no new revision). */
export interface EvolveResult {
  id: string;
  version: string;
  revision?: number;
  unchanged?: true;
  replayed?: true;
}

/** What `restore` answers (see RestoreReport in snapshot-restore.ts). */
export interface RestoreResult {
  restored: true;
  revision?: number;
  modelVersion?: string;
  snapshotVersion?: string;
  sameSpec?: boolean;
  droppedInputs?: string[];
  warnings?: string[];
  replayed?: true;
}

/**
 * A model's info with its revision: a count of the committed changes to it (cycles, restores,
 * evolutions), the number a write's `expectedRevision` is compared with.
 */
export type ModelStatus = ModelInfo & { revision: number };

/** The options of a write. */
export interface WriteOptions {
  includeTraces?: boolean;
  /**
   * Optimistic concurrency: the write runs only if the model is still at this revision, else it
   * is refused with VERSION_CONFLICT `{expected, actual}` and nothing changes.
   */
  expectedRevision?: number;
  /**
   * A retry with the same key and request answers the first answer (`replayed: true`) without
   * writing again; the same key with another request is refused (IDEMPOTENCY_KEY_REUSED).
   */
  idempotencyKey?: string;
  /** Who writes, for the audit trail: a person (card, sandbox) or an agent (MCP); default `client`. */
  source?: 'person' | 'agent' | 'rest';
}

/**
 * A write's expectedRevision, checked where the write is made (embedded service, remote client):
 * absent, or a whole number 0 or more.
 * @throws CalcError INVALID_ARGUMENT for anything else (-1, 1.5, "3")
 */
export function checkExpectedRevision(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new CalcError('INVALID_ARGUMENT', 'expectedRevision must be a whole number, 0 or more', {
      argument: 'expectedRevision',
    });
  return value;
}

export type ModelEvent =
  | {
      kind: 'mutation';
      modelId: string;
      mutatedPaths: string[];
      derivedUpdated: string[];
      flaggedConstraints: unknown[];
      dispatchedEffects: unknown[];
    }
  | { kind: 'spec-evolved'; modelId: string; version: string }
  | { kind: 'restored'; modelId: string }
  | { kind: 'deleted'; modelId: string }
  /** Changed by another process sharing the store (details unknown here). */
  | { kind: 'changed'; modelId: string };

export type ModelListener = (event: ModelEvent) => void;

/** Ends a subscription. `ready` (remote subscriptions) settles once the server has registered it:
 *  a caller that waits for it sees every change made after it. */
export type Unsubscribe = (() => void) & { ready?: Promise<void> };

/** What get_library answers: the compiled library without its runtime bindings. */
export type LibraryVocabulary = Omit<CompiledLibrary, 'bindings'>;

export interface AuditFilter {
  pathPrefix?: string;
  from?: string;
  to?: string;
  limit?: number;
}

export interface StateOptions {
  at?: string;
  paths?: string[];
  depth?: number;
}

export interface DownloadedBlob {
  blobId: string;
  bytes: number;
  /** Base64. */
  data: string;
  mediaType: string;
}

/** Operations on the model registry: each maps to one MCP tool and one REST endpoint. */
export interface CalcModelApi {
  listModels(): Promise<string[]>;
  createModel(spec: unknown): Promise<ModelInfo>;
  getModelInfo(id: string): Promise<ModelStatus>;
  getSpec(id: string): Promise<ModelSpec>;
  getLineage(id: string): Promise<JsonValue[]>;
  /** Inherited effects of another owner waiting for approval (docs/composition.md). */
  pendingEffects(id: string): Promise<AwaitingApproval[]>;
  approveEffect(id: string, effectId: string): Promise<{ id: string; effectId: string; approved: true }>;
  compositionGraph(): Promise<CompositionGraph>;
  deleteModel(id: string): Promise<{ deleted: true }>;
  getState(id: string, options?: StateOptions): Promise<JsonValue>;
  /** getState and the revision the model was at when it was read. */
  readState(id: string, options?: StateOptions): Promise<{ state: JsonValue; revision: number }>;
  /** `missing: 'error'` refuses an absent address (PATH_NOT_FOUND) instead of answering null. */
  getField(id: string, path: string, options?: { missing?: 'null' | 'error' }): Promise<JsonValue>;
  getEffectiveSchema(id: string, path: string): Promise<JsonObject>;
  explain(id: string, path: string, limit?: number): Promise<DerivationTrace[]>;
  getHistory(id: string): Promise<string[]>;
  getGraph(id: string): Promise<ModelGraph>;
  getVerification(id: string): Promise<VerificationReport>;
  getView(id: string, viewId?: string): Promise<EvaluatedView>;
  getLibrary(id: string): Promise<LibraryVocabulary>;
  mutate(id: string, mutations: unknown, options?: WriteOptions): Promise<MutationSummary>;
  patchModel(id: string, patch: unknown, options?: WriteOptions): Promise<MutationSummary>;
  snapshot(id: string): Promise<Snapshot>;
  restore(
    id: string,
    snapshot: unknown,
    options?: Pick<WriteOptions, 'idempotencyKey'>,
  ): Promise<RestoreResult>;
  evolveSpec(
    id: string,
    evolution: unknown,
    options?: Pick<WriteOptions, 'expectedRevision' | 'idempotencyKey'>,
  ): Promise<EvolveResult>;
  getAudit(id: string, filter?: AuditFilter): Promise<AuditRecord[]>;
  verifyAudit(id: string): Promise<AuditVerification>;
  /** `data`: base64 text (MCP) or raw bytes (REST upload). */
  uploadBlob(data: unknown, mediaType?: string): Promise<BlobRef>;
  downloadBlob(blobId: string, modelId?: string): Promise<DownloadedBlob>;
  /** Events of one model; returns the unsubscribe function. */
  subscribe(id: string, listener: ModelListener): Unsubscribe;
}

/** Authoring operations: pure, never touch the registry; a remote client runs them locally. */
export interface CalcAuthoringApi {
  validateSpec(spec: unknown): Promise<ValidationReport>;
  evalExpression(
    expr: string,
    input?: unknown,
    library?: unknown,
    constants?: Record<string, unknown>,
  ): Promise<EvalExpressionResult>;
  testSpec(spec: unknown, tests?: unknown): Promise<TestReport>;
  dryRun(spec: unknown, mutations?: unknown): Promise<JsonObject>;
}

export type CalcApi = CalcModelApi & CalcAuthoringApi;
