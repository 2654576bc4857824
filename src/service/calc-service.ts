/**
 * CalcService: every model operation, one function per tool / endpoint / command. Surfaces only
 * translate shapes; all behaviour lives here and in the engine.
 */
import {
  CalcError,
  capDepth,
  cardState,
  failingConstraints,
  type ConstraintViolation,
  explainValue,
  modelGraph,
  outputValues,
  type CardState,
  type ModelGraph,
  type ValueExplanation,
  evaluateView,
  evolveRuntime,
  isObject,
  jsonEqual,
  ModelRuntime,
  modelInfo,
  prepareModel,
  projectPaths,
  runtimeWithSpec,
  startRuntime,
  translatePatch,
  type EvalExpressionResult,
  type EvaluatedView,
  type JsonObject,
  type JsonValue,
  type ModelInfo,
  type SpecEvolution,
  type TestReport,
  type ValidationReport,
  type ModelSpec,
  type DerivationTrace,
} from '../calc/index.js';
import type { AuditRecord, BlobRef, Store } from '../store/store.js';
import { AuditTimestamps, queryAudit, verifyStoredTrail, type AuditVerification } from './audit.js';
import {
  checkExpectedRevision,
  type CalcApi,
  type EvolveResult,
  type LibraryVocabulary,
  type ModelEvent,
  type ModelListener,
  type ModelStatus,
  type MutationSummary,
  type WriteOptions,
} from './calc-api.js';
import { authoring } from './calc-authoring.js';
import { expressionWorkers } from './expression-workers.js';
import { checkIdempotencyKey, IdempotentWrites } from './idempotency.js';
import { KeyedLock } from './model-lock.js';
import {
  checkSnapshotOwner,
  rederivedRestore,
  snapshotOf,
  specHashOf,
  type ModelSnapshot,
  type RestoreReport,
} from './snapshot-restore.js';
import { NO_OBSERVER, type CalcObserver, type DispatchHook } from './calc-observer.js';
import { CycleWriter, MAX_COMMIT_ATTEMPTS } from './cycle-writer.js';
import { LiveModels } from './live-models.js';
import { verificationReport, type VerificationReport } from './verification.js';
import { materialiseTemplate } from '../calc/templates.js';
import {
  checkLinks,
  compositionGraph,
  compositionInfo,
  resolveTemplate,
  type CompositionGraph,
  type CompositionInfo,
  type StoredModels,
} from './calc-composition.js';
import {
  definitionHash,
  EffectApprovals,
  inheritedEffectPolicy,
  specWithApproval,
  type PendingEffect,
} from './effect-approvals.js';

export const MAX_MODELS = 1000;

export type { CalcObserver, CycleOutcome, DispatchHook } from './calc-observer.js';
export { MAX_COMMIT_ATTEMPTS } from './cycle-writer.js';
export type {
  LibraryVocabulary,
  ModelEvent,
  ModelListener,
  ModelStatus,
  MutationSummary,
  WriteOptions,
} from './calc-api.js';

function parseTimestamp(text: string): number {
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(t)) {
    throw new CalcError('INVALID_ARGUMENT', `Invalid ISO-8601 timestamp: ${text}`, { timestamp: text });
  }
  return t;
}

function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (!isObject(value)) throw new CalcError('INVALID_ARGUMENT', `${what} must be a JSON object`);
  return value;
}

function containsBlobRef(value: unknown, blobId: string): boolean {
  if (Array.isArray(value)) return value.some((v) => containsBlobRef(v, blobId));
  if (!isObject(value)) return false;
  if (value.$blobId === blobId) return true;
  return Object.values(value).some((v) => containsBlobRef(v, blobId));
}

export class CalcService implements CalcApi {
  private readonly models: LiveModels;
  private readonly writer: CycleWriter;
  private readonly idempotent: IdempotentWrites;
  private readonly lock = new KeyedLock();
  private readonly listeners = new Map<string, Set<ModelListener>>();
  private readonly unwatch: () => void;
  private readonly observer: CalcObserver;
  private readonly now: () => number;
  /** Audit record timestamps, on the same clock as history. */
  private readonly timestamps: AuditTimestamps;
  /** Inherited effects from another owner and their approvals (effect-approvals.ts). */
  readonly effectApprovals: EffectApprovals;

  constructor(
    readonly store: Store,
    options: {
      observer?: CalcObserver;
      /** The clock for history timestamps (tests pass one they control); Date.now by default. */
      now?: () => number;
      /** What inherited effects from another owner need (default: MODELWORKS_INHERITED_EFFECTS, else approve). */
      inheritedEffects?: 'approve' | 'allow' | 'deny';
    } = {},
  ) {
    this.effectApprovals = new EffectApprovals(
      options.inheritedEffects ?? inheritedEffectPolicy(process.env.MODELWORKS_INHERITED_EFFECTS),
    );
    this.observer = options.observer ?? NO_OBSERVER;
    this.now = options.now ?? Date.now;
    this.timestamps = new AuditTimestamps(this.now);
    this.models = new LiveModels(store, this.now, this.observer);
    this.idempotent = new IdempotentWrites(store, this.now);
    this.writer = new CycleWriter(store, this.models, this.observer, this.timestamps, (id, event) =>
      this.emit(id, event),
    );
    // another process changed a model: forget our copy and tell local subscribers
    this.unwatch = store.watch((modelId) => {
      this.models.forget(modelId);
      this.emit(modelId, { kind: 'changed', modelId });
    });
  }

  // ------------------------------------------------------------ registry

  listModels(): Promise<string[]> {
    return this.store.listModelIds();
  }

  /**
   * Validates (no embedded tests), compiles, seeds and registers a model.
   * @throws CalcError SPEC_INVALID, MODEL_EXISTS, BUSY, CONSTRAINT_VIOLATION (seeding refused)
   */
  async createModel(input: unknown): Promise<ModelInfo> {
    // a branch is materialised first: validated and stored self-contained (src/calc/templates.ts)
    const raw = await materialiseTemplate(requireObject(input, 'spec') as JsonObject, (c) =>
      resolveTemplate(this.stored, c),
    );
    const id = typeof raw.id === 'string' ? raw.id : '';
    const { model } = await prepareModel(raw);
    return this.lock.run(id, async () => {
      if (this.models.has(id) || (await this.store.head(id))) {
        throw new CalcError(
          'MODEL_EXISTS',
          `Model '${id}' already exists: delete it with delete_model, change it with evolve_spec, or create it under another id`,
          { error: 'Model exists', id },
        );
      }
      if ((await this.store.listModelIds()).length >= MAX_MODELS) {
        throw new CalcError('BUSY', `the server already holds ${MAX_MODELS} models; delete some first`);
      }
      await checkLinks(this.stored, model.spec);
      const runtime = await startRuntime(model, { now: this.now });
      await this.store.insertModel(id, model.spec, runtime.exportState());
      const head = await this.store.head(id); // the store owns the head
      if (head) this.models.set(id, { runtime, head });
      return modelInfo(model.spec);
    });
  }

  /** This service's models as composition reads them (calc-composition.ts). */
  private readonly stored: StoredModels = {
    ids: () => this.store.listModelIds(),
    has: async (id) => this.models.has(id) || (await this.store.head(id)) !== undefined,
    runtime: (id) => this.models.runtime(id),
  };

  /** GET /composition/graph: every model, its links and lineage edges (calc-composition.ts). */
  compositionGraph(): Promise<CompositionGraph> {
    return compositionGraph(this.stored);
  }

  /** Lineage, links and effects awaiting approval, for the model's info (calc-composition.ts). */
  async compositionInfo(id: string): Promise<CompositionInfo> {
    const spec = (await this.models.runtime(id)).model.spec;
    return compositionInfo(spec, this.effectApprovals.pending(id, spec));
  }

  /** Inherited effects of another owner that wait for approval (effect-approvals.ts). */
  async pendingEffects(id: string): Promise<PendingEffect[]> {
    return this.effectApprovals.pending(id, (await this.models.runtime(id)).model.spec);
  }

  /**
   * Approves an inherited effect as it is defined now (an edit of it needs approving again): one
   * audited change (source `approval`) recording the approval on the effect in the stored spec
   * (effect-approvals.ts). An effect that is not waiting (approved already, or not another
   * owner's) is answered the same and changes nothing.
   * @throws CalcError MODEL_NOT_FOUND, INVALID_ARGUMENT (no such effect)
   */
  async approveEffect(
    id: string,
    effectId: string,
  ): Promise<{ id: string; effectId: string; approved: true }> {
    return this.lock.run(id, async () => {
      const { runtime, changed } = await this.writer.replace(
        id,
        'approval',
        async (current) => {
          const effect = current.model.spec.effects.find((e) => e.id === effectId);
          if (!effect)
            throw new CalcError('INVALID_ARGUMENT', `model '${id}' has no effect '${effectId}'`, {
              error: 'Unknown effect',
              effectId,
            });
          if (!this.effectApprovals.blocked(id, effect)) return undefined;
          const approved = specWithApproval(current.model.spec, effectId, this.timestamps.current());
          return approved && runtimeWithSpec(current, approved.spec);
        },
        undefined,
        (next) => {
          const effect = next.model.spec.effects.find((e) => e.id === effectId)!;
          return { effectId, definitionHash: definitionHash(effect) };
        },
      );
      if (changed) this.emit(id, { kind: 'spec-evolved', modelId: id, version: runtime.model.spec.version });
      return { id, effectId, approved: true as const };
    });
  }

  /** The model's info and its revision (see ModelStatus). */
  async getModelInfo(id: string): Promise<ModelStatus> {
    const { runtime, head } = await this.models.fresh(id);
    return { ...modelInfo(runtime.model.spec), revision: head.revision };
  }

  async getSpec(id: string): Promise<ModelSpec> {
    return (await this.models.runtime(id)).model.spec;
  }

  async getLineage(id: string): Promise<JsonValue[]> {
    return (await this.models.runtime(id)).model.spec.lineage;
  }

  /** Which embedded tests can be checked against this version, and whether they pass. */
  async getVerification(id: string): Promise<VerificationReport> {
    return verificationReport((await this.models.runtime(id)).model);
  }

  async deleteModel(id: string): Promise<{ deleted: true }> {
    return this.lock.run(id, async () => {
      await this.models.fresh(id);
      await this.store.deleteModel(id);
      this.models.forget(id);
      this.emit(id, { kind: 'deleted', modelId: id });
      return { deleted: true };
    });
  }

  // ------------------------------------------------------------ reads

  async getState(
    id: string,
    options: { at?: string; paths?: string[]; depth?: number } = {},
  ): Promise<JsonObject | JsonValue> {
    const runtime = await this.models.runtime(id);
    let state: JsonValue;
    if (options.at !== undefined) {
      state = await runtime.stateAt(parseTimestamp(options.at));
      if (options.paths !== undefined) state = projectPaths(state, options.paths);
    } else if (options.paths !== undefined) {
      // only what the paths name is read: never the whole state (issue 45)
      state = await runtime.projectState(options.paths);
    } else state = await runtime.getState();
    if (options.depth !== undefined) {
      if (!Number.isInteger(options.depth) || options.depth < 0)
        throw new CalcError('INVALID_ARGUMENT', 'depth must be an integer >= 0');
      state = capDepth(state, options.depth);
    }
    return state;
  }

  /** The state as getState reads it, and the revision the model was at when the read began. */
  async readState(
    id: string,
    options: { at?: string; paths?: string[]; depth?: number } = {},
  ): Promise<{ state: JsonValue; revision: number }> {
    const { head } = await this.models.fresh(id);
    const revision = head.revision; // read first: a state read later is never older than it
    return { state: await this.getState(id, options), revision };
  }

  async getField(id: string, path: string, options: { missing?: 'null' | 'error' } = {}): Promise<JsonValue> {
    const v = await (await this.models.runtime(id)).getValue(path);
    if (v === undefined && options.missing === 'error')
      throw new CalcError('PATH_NOT_FOUND', `Nothing at ${path} in model '${id}'`, { id, path });
    return v === undefined ? null : v;
  }

  async getEffectiveSchema(id: string, path: string): Promise<JsonObject> {
    return (await this.models.runtime(id)).getEffectiveSchema(path);
  }

  async explain(id: string, path: string, limit?: number): Promise<DerivationTrace[]> {
    return (await this.models.explained(id)).explain(path, limit);
  }

  async getHistory(id: string): Promise<string[]> {
    return (await this.models.runtime(id)).historyTimestamps().map((t) => new Date(t).toISOString());
  }

  async getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return evaluateView(await this.models.runtime(id), viewId);
  }

  /** The dependency graph: nodes (kind, label, expression), edges and evaluation levels. */
  async getGraph(id: string): Promise<ModelGraph> {
    return modelGraph((await this.models.runtime(id)).model);
  }

  /** What a model card shows of a stored model: spec, graph, state, meta, failing rules, views. */
  async getCard(
    id: string,
  ): Promise<CardState & { spec: ModelSpec; graph: ModelGraph; outputs: Record<string, JsonValue> }> {
    const runtime = await this.models.runtime(id);
    return {
      spec: runtime.model.spec,
      graph: modelGraph(runtime.model),
      ...(await cardState(runtime)),
      outputs: await outputValues(runtime),
    };
  }

  /** The flag rules failing now (each `{constraintId, message, policy}`), as the card shows them. */
  async getFlags(id: string): Promise<ConstraintViolation[]> {
    return failingConstraints(await this.models.runtime(id));
  }

  /** "Why is this number?" for one address of a stored model. */
  async explainValue(id: string, path: string): Promise<ValueExplanation> {
    const runtime = await this.models.runtime(id);
    return explainValue(runtime, modelGraph(runtime.model), path);
  }

  async getLibrary(id: string): Promise<LibraryVocabulary> {
    const lib = (await this.models.runtime(id)).model.library;
    if (!lib) throw new CalcError('LIBRARY_NOT_FOUND', `Model '${id}' has no library`);
    const out: LibraryVocabulary = {
      layers: lib.layers.map((l) => ({ ...l })),
      exports: lib.exports.map((e) => ({ ...e })),
    };
    if (lib.description !== undefined) out.description = lib.description;
    return out;
  }

  // ------------------------------------------------------------ writes

  /**
   * One reactive cycle, committed with its audit record.
   * @throws CalcError SCHEMA_VIOLATION, CONSTRAINT_VIOLATION, DERIVED_TARGET_WRITE, INDEX_LIMIT, BUSY
   */
  async mutate(
    id: string,
    mutations: unknown,
    options: Omit<WriteOptions, 'source'> & { source?: AuditRecord['source']; origin?: JsonObject } = {},
  ): Promise<MutationSummary> {
    const writes = requireObject(mutations, 'mutations');
    const expected = checkExpectedRevision(options.expectedRevision);
    const key = checkIdempotencyKey(options.idempotencyKey);
    const write = (): Promise<MutationSummary> =>
      this.writer.observed(id, () =>
        this.writer.commit(
          id,
          () => writes,
          options.source ?? 'client',
          options.includeTraces === true,
          expected,
          options.origin,
        ),
      );
    if (key === undefined) return this.lock.run(id, write);
    const request = { mutations: writes, includeTraces: options.includeTraces === true, expected };
    return this.lock.run(id, () => this.idempotent.run(id, key, 'mutate', request, write));
  }

  /**
   * The effect runner's write (status shells and fold-back, source `foldback`): `decide` reads the
   * current state under the model lock and returns the writes; none means no cycle. The commit is a
   * compare-and-set on the revision decided on: if another process wrote first, it decides again.
   */
  async effectWrite(
    id: string,
    decide: (runtime: ModelRuntime) => Promise<Record<string, unknown>>,
  ): Promise<MutationSummary> {
    return this.lock.run(id, async () => {
      for (let attempt = 1; ; attempt++) {
        const { runtime, head } = await this.models.fresh(id);
        const writes = await decide(runtime);
        try {
          return await this.writer.observed(id, () =>
            this.writer.commit(id, () => writes, 'foldback', false, head.revision),
          );
        } catch (err) {
          const raced = err instanceof CalcError && err.code === 'VERSION_CONFLICT';
          if (!raced || attempt >= MAX_COMMIT_ATTEMPTS) throw err;
        }
      }
    });
  }

  /** Registers a hook told of each committed cycle's dispatched effects; returns its removal. */
  onDispatch(hook: DispatchHook): () => void {
    return this.writer.onDispatch(hook);
  }

  /** An RFC 6902 patch on the base document, run as one cycle (an empty translation is a no-op). */
  async patchModel(id: string, patch: unknown, options: WriteOptions = {}): Promise<MutationSummary> {
    const expected = checkExpectedRevision(options.expectedRevision);
    const key = checkIdempotencyKey(options.idempotencyKey);
    // translated against the state each attempt runs on, so a retry never applies a stale patch
    const write = (): Promise<MutationSummary> =>
      this.writer.observed(id, () =>
        this.writer.commit(
          id,
          (runtime) => translatePatch(runtime.baseDocument(), patch),
          'patch',
          options.includeTraces === true,
          expected,
        ),
      );
    if (key === undefined) return this.lock.run(id, write);
    const request = { patch: patch ?? null, includeTraces: options.includeTraces === true, expected };
    return this.lock.run(id, () => this.idempotent.run(id, key, 'patch_model', request, write));
  }

  /** The model's state with the model id, spec version and spec hash it was taken under. */
  async snapshot(id: string): Promise<ModelSnapshot> {
    const snapshot = snapshotOf(await this.models.runtime(id));
    await this.store.saveSnapshot(id, snapshot as unknown as JsonObject);
    return snapshot;
  }

  /**
   * Puts a snapshot's inputs back and re-derives everything under the current spec (see
   * snapshot-restore.ts); inputs the current spec no longer has are listed, not restored.
   * @throws CalcError SNAPSHOT_MODEL_MISMATCH, SCHEMA_VIOLATION, INVALID_ARGUMENT, IDEMPOTENCY_KEY_REUSED
   */
  async restore(
    id: string,
    snapshot: unknown,
    options: Pick<WriteOptions, 'idempotencyKey'> = {},
  ): Promise<RestoreReport> {
    const key = checkIdempotencyKey(options.idempotencyKey);
    const warnings = checkSnapshotOwner(id, snapshot);
    const taken = snapshot as Record<string, unknown>;
    return this.lock.run(id, () =>
      this.idempotent.run(id, key, 'restore', { snapshot: taken }, async () => {
        let dropped: string[] = [];
        const { runtime, revision } = await this.writer.replace(id, 'restore', async (current) => {
          // restored into a copy, so a refused snapshot or a lost race leaves our runtime as it was
          const restored = await rederivedRestore(current, taken);
          dropped = restored.droppedInputs;
          return restored.runtime;
        });
        this.emit(id, { kind: 'restored', modelId: id });
        const report: RestoreReport = {
          restored: true,
          revision,
          modelVersion: runtime.model.spec.version,
          sameSpec: taken.specHash === specHashOf(runtime.model.spec),
          droppedInputs: dropped,
          warnings,
        };
        if (typeof taken.modelVersion === 'string') report.snapshotVersion = taken.modelVersion;
        return report;
      }),
    );
  }

  /**
   * Applies a SpecEvolution; the model changes only if every step succeeds. An evolution that
   * changes neither the spec nor the inputs commits nothing (`unchanged: true`, same revision).
   * @throws CalcError VERSION_CONFLICT, EVOLUTION_INVALID, IDEMPOTENCY_KEY_REUSED, and backfill mutation errors
   */
  async evolveSpec(
    id: string,
    evolution: unknown,
    options: Pick<WriteOptions, 'expectedRevision' | 'idempotencyKey'> = {},
  ): Promise<EvolveResult> {
    const ev = requireObject(evolution, 'evolution') as SpecEvolution;
    const expected = checkExpectedRevision(options.expectedRevision);
    const key = checkIdempotencyKey(options.idempotencyKey);
    return this.lock.run(id, () =>
      this.idempotent.run(id, key, 'evolve_spec', { evolution: ev, expected }, async () => {
        const { runtime, revision, changed } = await this.writer.replace(
          id,
          'evolution',
          async (current) => {
            const next = (await evolveRuntime(current, ev)).runtime;
            await checkLinks(this.stored, next.model.spec);
            const same =
              specHashOf(next.model.spec) === specHashOf(current.model.spec) &&
              jsonEqual(next.baseDocument(), current.baseDocument());
            return same ? undefined : next;
          },
          expected,
        );
        const version = runtime.model.spec.version;
        if (!changed) return { id, version, revision, unchanged: true as const };
        this.emit(id, { kind: 'spec-evolved', modelId: id, version });
        return { id, version, revision };
      }),
    );
  }

  // ------------------------------------------------------------ audit

  async getAudit(
    id: string,
    q: { pathPrefix?: string; from?: string; to?: string; limit?: number } = {},
  ): Promise<AuditRecord[]> {
    await this.models.runtime(id);
    if (q.from !== undefined) parseTimestamp(q.from);
    if (q.to !== undefined) parseTimestamp(q.to);
    const limit = q.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1)
      throw new CalcError('INVALID_ARGUMENT', 'limit must be a positive integer');
    return queryAudit(await this.store.auditRecords(id), { ...q, limit });
  }

  /** The hash chain, its end, the stored state and the keyed checkpoint (see `verifyTrail`). */
  async verifyAudit(id: string): Promise<AuditVerification> {
    await this.models.fresh(id); // MODEL_NOT_FOUND for an unknown model, as every read
    return verifyStoredTrail(this.store, id);
  }

  // ------------------------------------------------------------ blobs

  uploadBlob(data: unknown, mediaType = 'application/octet-stream'): Promise<BlobRef> {
    if (data instanceof Uint8Array) return this.store.putBlob(Buffer.from(data), mediaType);
    if (typeof data !== 'string' || !/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(data)) {
      return Promise.reject(new CalcError('INVALID_ARGUMENT', 'data must be base64 text'));
    }
    return this.store.putBlob(Buffer.from(data, 'base64'), mediaType);
  }

  async downloadBlob(
    blobId: string,
    modelId?: string,
  ): Promise<{ blobId: string; bytes: number; data: string; mediaType: string }> {
    if (modelId !== undefined) {
      const state = await (await this.models.runtime(modelId)).getState();
      if (!containsBlobRef(state, blobId))
        throw new CalcError('BLOB_NOT_FOUND', `model '${modelId}' does not reference blob ${blobId}`);
    }
    const blob = await this.store.getBlob(blobId);
    if (!blob) throw new CalcError('BLOB_NOT_FOUND', `no blob ${blobId}`);
    return { blobId, bytes: blob.$bytes, data: blob.data.toString('base64'), mediaType: blob.$mediaType };
  }

  // ------------------------------------------------------------ subscriptions

  subscribe(id: string, listener: ModelListener): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  /** Listeners subscribed now, over every model (a gauge of the metrics). */
  get subscriptionCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  private emit(id: string, event: ModelEvent): void {
    for (const l of this.listeners.get(id) ?? []) {
      try {
        l(event);
      } catch {
        // a subscriber's failure never affects the model
      }
    }
  }

  // ------------------------------------------------------------ authoring (never touches the registry)

  validateSpec(spec: unknown): Promise<ValidationReport> {
    return authoring.validateSpec(spec);
  }

  evalExpression(
    expr: string,
    input?: unknown,
    library?: unknown,
    constants?: Record<string, unknown>,
  ): Promise<EvalExpressionResult> {
    // a request's expression runs where a runaway cannot take the server down (expression-workers.ts)
    return expressionWorkers().evaluate(expr, input ?? {}, library, constants ?? {});
  }

  /** Runs the spec's embedded tests, or the given cases instead. */
  testSpec(spec: unknown, tests?: unknown): Promise<TestReport> {
    return authoring.testSpec(spec, tests);
  }

  dryRun(spec: unknown, mutations?: unknown): Promise<JsonObject> {
    return authoring.dryRun(spec, mutations);
  }

  /**
   * A private copy of the model as it stands (spec and state, no history) that nothing else sees or
   * stores: `simulate` runs its cycles on it.
   */
  async scratchCopy(id: string): Promise<ModelRuntime> {
    const current = await this.models.runtime(id);
    const copy = new ModelRuntime(current.model, { historyCapacity: 0 });
    copy.loadState({ ...current.exportState(), history: [] });
    return copy;
  }

  async close(): Promise<void> {
    this.unwatch();
    await this.store.close();
  }
}
