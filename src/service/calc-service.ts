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
  compileModel,
  evaluateView,
  evolveRuntime,
  isObject,
  ModelRuntime,
  modelInfo,
  prepareModel,
  projectPaths,
  restoreSnapshot,
  startRuntime,
  takeSnapshot,
  translatePatch,
  type EvalExpressionResult,
  type EvaluatedView,
  type JsonObject,
  type JsonValue,
  type ModelInfo,
  type MutationResult,
  type Snapshot,
  type SpecEvolution,
  type TestReport,
  type ValidationReport,
  type ModelSpec,
  type DerivationTrace,
  type DispatchedEffect,
} from '../calc/index.js';
import type { AuditRecord, BlobRef, ModelHead, Store } from '../store/store.js';
import {
  AuditTimestamps,
  buildAuditRecord,
  buildReplaceRecord,
  queryAudit,
  verifyStoredTrail,
  type AuditVerification,
} from './audit.js';
import {
  checkExpectedRevision,
  type CalcApi,
  type LibraryVocabulary,
  type ModelEvent,
  type ModelListener,
  type ModelStatus,
  type MutationSummary,
  type WriteOptions,
} from './calc-api.js';
import { authoring } from './calc-authoring.js';
import { expressionWorkers } from './expression-workers.js';
import { KeyedLock } from './model-lock.js';
import { inSpan, phaseSpans } from '../observability/tracing.js';
import { verificationReport, type VerificationReport } from './verification.js';

export const MAX_MODELS = 1000;

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

/** How often a cycle is retried when another process committed first. */
export const MAX_COMMIT_ATTEMPTS = 8;

/** The refusal of a write whose expectedRevision is not the model's revision. */
function revisionConflict(id: string, expected: number, actual: number): CalcError {
  return new CalcError(
    'VERSION_CONFLICT',
    `Version conflict: model '${id}' is at revision ${actual}, not ${expected}; nothing was written. Read it again, then retry with expectedRevision ${actual} if your change still holds`,
    { expected, actual },
  );
}

/** How a write ended: committed, rolled back by a constraint, or refused for any other reason. */
export type CycleOutcome = 'committed' | 'rolled_back' | 'failed';

/**
 * Told of each write as it ends (metrics, issue 28); injected so the service knows no metrics
 * library. Calls are synchronous and must not throw.
 */
export interface CalcObserver {
  /** A write ended; `seconds` from its start (lock held) to its outcome, retries included. */
  cycle(modelId: string, outcome: CycleOutcome, seconds: number): void;
  /** One compare-and-set commit answered by the store. */
  storeCommit(seconds: number): void;
  /** Another writer got there first: the cycle runs again on fresh state. */
  retry(modelId: string): void;
}

const NO_OBSERVER: CalcObserver = { cycle() {}, storeCommit() {}, retry() {} };

const secondsSince = (started: number): number => (performance.now() - started) / 1000;

/**
 * Told of the effects a committed cycle dispatched (the effect runner, issue 23). Called while the
 * model lock is held: it must only schedule work, never wait on the model, and must not throw.
 */
export type DispatchHook = (modelId: string, effects: DispatchedEffect[]) => void;

interface LiveModel {
  runtime: ModelRuntime;
  head: ModelHead;
  /**
   * The head as the store holds it, hash included: read from the store, or left by our own commit
   * when the store sealed the record before answering (the durable stores). A write may build on
   * such a copy without asking the store first; its compare-and-set says whether it was stale.
   */
  settled?: boolean;
  /**
   * Set by a reload: the trace ring lacks the traces of the trail's cycles before this sequence.
   * They are read when explain first asks, not on every reload: the trail grows with every cycle,
   * and a model another process keeps writing is reloaded for nearly every write.
   */
  tracesBefore?: number;
  /** The refill of the ring in progress (concurrent explains wait for the same one). */
  traceRefill?: Promise<void>;
}

export class CalcService implements CalcApi {
  private readonly live = new Map<string, LiveModel>();
  private readonly lock = new KeyedLock();
  private readonly listeners = new Map<string, Set<ModelListener>>();
  private readonly unwatch: () => void;
  private readonly observer: CalcObserver;
  private readonly now: () => number;
  /** Audit record timestamps, on the same clock as history. */
  private readonly timestamps: AuditTimestamps;
  private readonly dispatchHooks = new Set<DispatchHook>();

  constructor(
    readonly store: Store,
    options: {
      observer?: CalcObserver;
      /** The clock for history timestamps (tests pass one they control); Date.now by default. */
      now?: () => number;
    } = {},
  ) {
    this.observer = options.observer ?? NO_OBSERVER;
    this.now = options.now ?? Date.now;
    this.timestamps = new AuditTimestamps(this.now);
    // another process changed a model: forget our copy and tell local subscribers
    this.unwatch = store.watch((modelId) => {
      this.live.delete(modelId);
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
    const raw = requireObject(input, 'spec');
    const id = typeof raw.id === 'string' ? raw.id : '';
    const { model } = await prepareModel(raw);
    return this.lock.run(id, async () => {
      if (this.live.has(id) || (await this.store.head(id))) {
        throw new CalcError(
          'MODEL_EXISTS',
          `Model '${id}' already exists: delete it with delete_model, change it with evolve_spec, or create it under another id`,
          { error: 'Model exists', id },
        );
      }
      if ((await this.store.listModelIds()).length >= MAX_MODELS) {
        throw new CalcError('BUSY', `the server already holds ${MAX_MODELS} models; delete some first`);
      }
      const runtime = await startRuntime(model, { now: this.now });
      await this.store.insertModel(id, model.spec, runtime.exportState());
      const head = await this.store.head(id); // the store owns the head
      if (head) this.live.set(id, { runtime, head });
      return modelInfo(model.spec);
    });
  }

  /** Our copy of a model, reloaded when the store has moved on (another process wrote it). */
  private async fresh(id: string): Promise<LiveModel> {
    const head = await this.store.head(id);
    if (!head) {
      this.live.delete(id);
      throw new CalcError('MODEL_NOT_FOUND', `Model not found: ${id}`, { id });
    }
    const cached = this.live.get(id);
    if (cached && cached.head.revision === head.revision) {
      cached.head = head; // the store's word on the chain's end (the memory store seals late)
      cached.settled = true;
      return cached;
    }
    const stored = await this.store.loadModel(id);
    if (!stored) throw new CalcError('MODEL_NOT_FOUND', `Model not found: ${id}`, { id });
    const runtime = new ModelRuntime(await compileModel(stored.spec), { now: this.now });
    runtime.loadState(stored.state);
    const entry: LiveModel = {
      runtime,
      head: stored.head,
      settled: true,
      tracesBefore: stored.head.nextSequence,
    };
    this.live.set(id, entry);
    return entry;
  }

  private async runtime(id: string): Promise<ModelRuntime> {
    return (await this.fresh(id)).runtime;
  }

  /** The runtime with its trace ring holding the trail's traces too (what explain reads). */
  private async explained(id: string): Promise<ModelRuntime> {
    const entry = await this.fresh(id);
    if (entry.tracesBefore !== undefined) {
      // cleared when done, so a failed read is tried again by the next explain
      entry.traceRefill ??= this.refillTraces(id, entry, entry.tracesBefore).finally(() => {
        entry.traceRefill = undefined;
      });
      await entry.traceRefill;
    }
    return entry.runtime;
  }

  /**
   * Puts the traces of the trail's cycles before `before` (of this spec version) ahead of those the
   * ring gathered since the reload, as if they had been there all along.
   */
  private async refillTraces(id: string, entry: LiveModel, before: number): Promise<void> {
    const ring = entry.runtime.traces;
    const version = entry.runtime.model.spec.version;
    const older = (await this.store.auditRecords(id))
      .filter((r) => r.modelVersion === version && r.sequence < before)
      .flatMap((r) => r.traces) as unknown as DerivationTrace[];
    const newer = ring.toArray();
    ring.clear();
    ring.pushAll(older.slice(-ring.capacity));
    ring.pushAll(newer);
    entry.tracesBefore = undefined;
  }

  /** The model's info and its revision (see ModelStatus). */
  async getModelInfo(id: string): Promise<ModelStatus> {
    const { runtime, head } = await this.fresh(id);
    return { ...modelInfo(runtime.model.spec), revision: head.revision };
  }

  async getSpec(id: string): Promise<ModelSpec> {
    return (await this.runtime(id)).model.spec;
  }

  async getLineage(id: string): Promise<JsonValue[]> {
    return (await this.runtime(id)).model.spec.lineage;
  }

  /** Which embedded tests can be checked against this version, and whether they pass. */
  async getVerification(id: string): Promise<VerificationReport> {
    return verificationReport((await this.runtime(id)).model);
  }

  async deleteModel(id: string): Promise<{ deleted: true }> {
    return this.lock.run(id, async () => {
      await this.fresh(id);
      await this.store.deleteModel(id);
      this.live.delete(id);
      this.emit(id, { kind: 'deleted', modelId: id });
      return { deleted: true };
    });
  }

  // ------------------------------------------------------------ reads

  async getState(
    id: string,
    options: { at?: string; paths?: string[]; depth?: number } = {},
  ): Promise<JsonObject | JsonValue> {
    const runtime = await this.runtime(id);
    let state: JsonValue =
      options.at !== undefined ? await runtime.stateAt(parseTimestamp(options.at)) : await runtime.getState();
    if (options.paths !== undefined) state = projectPaths(state, options.paths);
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
    const { head } = await this.fresh(id);
    const revision = head.revision; // read first: a state read later is never older than it
    return { state: await this.getState(id, options), revision };
  }

  async getField(id: string, path: string, options: { missing?: 'null' | 'error' } = {}): Promise<JsonValue> {
    const v = await (await this.runtime(id)).getValue(path);
    if (v === undefined && options.missing === 'error')
      throw new CalcError('PATH_NOT_FOUND', `Nothing at ${path} in model '${id}'`, { id, path });
    return v === undefined ? null : v;
  }

  async getEffectiveSchema(id: string, path: string): Promise<JsonObject> {
    return (await this.runtime(id)).getEffectiveSchema(path);
  }

  async explain(id: string, path: string, limit?: number): Promise<DerivationTrace[]> {
    return (await this.explained(id)).explain(path, limit);
  }

  async getHistory(id: string): Promise<string[]> {
    return (await this.runtime(id)).historyTimestamps().map((t) => new Date(t).toISOString());
  }

  async getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return evaluateView(await this.runtime(id), viewId);
  }

  /** The dependency graph: nodes (kind, label, expression), edges and evaluation levels. */
  async getGraph(id: string): Promise<ModelGraph> {
    return modelGraph((await this.runtime(id)).model);
  }

  /** What a model card shows of a stored model: spec, graph, state, meta, failing rules, views. */
  async getCard(
    id: string,
  ): Promise<CardState & { spec: ModelSpec; graph: ModelGraph; outputs: Record<string, JsonValue> }> {
    const runtime = await this.runtime(id);
    return {
      spec: runtime.model.spec,
      graph: modelGraph(runtime.model),
      ...(await cardState(runtime)),
      outputs: await outputValues(runtime),
    };
  }

  /** The flag rules failing now (each `{constraintId, message, policy}`), as the card shows them. */
  async getFlags(id: string): Promise<ConstraintViolation[]> {
    return failingConstraints(await this.runtime(id));
  }

  /** "Why is this number?" for one address of a stored model. */
  async explainValue(id: string, path: string): Promise<ValueExplanation> {
    const runtime = await this.runtime(id);
    return explainValue(runtime, modelGraph(runtime.model), path);
  }

  async getLibrary(id: string): Promise<LibraryVocabulary> {
    const lib = (await this.runtime(id)).model.library;
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
    options: WriteOptions & { source?: AuditRecord['source'] } = {},
  ): Promise<MutationSummary> {
    const writes = requireObject(mutations, 'mutations');
    const expected = checkExpectedRevision(options.expectedRevision);
    return this.lock.run(id, () =>
      this.observed(id, () =>
        this.commit(id, () => writes, options.source ?? 'client', options.includeTraces === true, expected),
      ),
    );
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
        const { runtime, head } = await this.fresh(id);
        const writes = await decide(runtime);
        try {
          return await this.observed(id, () =>
            this.commit(id, () => writes, 'foldback', false, head.revision),
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
    this.dispatchHooks.add(hook);
    return () => this.dispatchHooks.delete(hook);
  }

  /** An RFC 6902 patch on the base document, run as one cycle (an empty translation is a no-op). */
  async patchModel(id: string, patch: unknown, options: WriteOptions = {}): Promise<MutationSummary> {
    const expected = checkExpectedRevision(options.expectedRevision);
    // translated against the state each attempt runs on, so a retry never applies a stale patch
    return this.lock.run(id, () =>
      this.observed(id, () =>
        this.commit(
          id,
          (runtime) => translatePatch(runtime.baseDocument(), patch),
          'patch',
          options.includeTraces === true,
          expected,
        ),
      ),
    );
  }

  /**
   * Runs a write, telling the observer of a refusal (commit() tells it of a committed cycle). The
   * write's own promise is returned: a wrapper's extra ticks would change how racing writers interleave.
   */
  private observed(id: string, write: () => Promise<MutationSummary>): Promise<MutationSummary> {
    const started = performance.now();
    const written = inSpan('calc.cycle', { 'modelworks.model_id': id }, write);
    void written.catch((err: unknown) => {
      const rolledBack = err instanceof CalcError && err.code === 'CONSTRAINT_VIOLATION';
      this.observer.cycle(id, rolledBack ? 'rolled_back' : 'failed', secondsSince(started));
    });
    return written;
  }

  /**
   * Runs the cycle on our copy and commits it with compare-and-set; when another process got there
   * first, reloads and runs it again on the fresh state. A settled copy is used without reading
   * the head first (one query less per write): a stale one fails the compare-and-set, and a refusal
   * or a no-op computed on it is only reported once the head confirms it was current.
   */
  private async commit(
    id: string,
    writesFor: (runtime: ModelRuntime) => Record<string, unknown>,
    source: AuditRecord['source'],
    includeTraces: boolean,
    expectedRevision?: number,
  ): Promise<MutationSummary> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      const cached = this.live.get(id);
      const unread = attempt === 1 && cached?.settled === true;
      const entry = unread ? cached : await this.fresh(id);
      const { runtime, head } = entry;
      if (expectedRevision !== undefined && head.revision !== expectedRevision) {
        // our copy may be the stale one: the store's head decides
        if (unread && (await this.behind(id, entry))) continue;
        throw revisionConflict(id, expectedRevision, head.revision);
      }
      let writes: Record<string, unknown>;
      let result: MutationResult;
      const phases = phaseSpans('calc.phase'); // tracing only: the engine announces its phases
      try {
        writes = writesFor(runtime);
        if (Object.keys(writes).length === 0) {
          if (unread && (await this.behind(id, entry))) continue;
          return this.noChange(includeTraces);
        }
        result = await runtime.mutate(writes, phases && { onPhase: phases.phase });
      } catch (err) {
        if (unread && (await this.behind(id, entry))) continue;
        throw err;
      } finally {
        phases?.end();
      }
      const record = buildAuditRecord({
        modelId: id,
        sequence: head.nextSequence,
        modelVersion: runtime.model.spec.version,
        source,
        mutations: writes,
        result,
        prevHash: head.lastHash,
        timestamps: this.timestamps,
      });
      let committed: boolean;
      try {
        const commitStarted = performance.now();
        committed = await inSpan('store.commit', { 'modelworks.store': this.store.kind }, () =>
          this.store.commitCycle(
            id,
            head.revision,
            {
              object: () => runtime.exportState(),
              text: () => runtime.exportStateText(),
              historyRow: () => runtime.newestHistoryRow(),
            },
            record,
          ),
        );
        this.observer.storeCommit(secondsSince(commitStarted));
      } catch (err) {
        this.live.delete(id); // our copy is ahead of the store: reload next time
        throw new CalcError('STORE_FAILURE', `the store refused the cycle: ${(err as Error).message}`);
      }
      if (committed) {
        // without the hash (the memory store seals later) the next write reads the head first
        entry.head = {
          revision: head.revision + 1,
          nextSequence: head.nextSequence + 1,
          lastHash: record.hash ?? head.lastHash,
        };
        entry.settled = record.hash !== undefined;
        this.observer.cycle(id, 'committed', secondsSince(started));
        return this.finishCycle(id, result, includeTraces);
      }
      this.live.delete(id);
      this.observer.retry(id);
      if (attempt >= MAX_COMMIT_ATTEMPTS) {
        throw new CalcError(
          'BUSY',
          `model '${id}' kept changing under this write (${attempt} attempts); retry`,
        );
      }
    }
  }

  /** Whether the store has moved past our copy (another process wrote); if so, forgets the copy. */
  private async behind(id: string, entry: LiveModel): Promise<boolean> {
    const head = await this.store.head(id);
    if (head?.revision === entry.head.revision) return false;
    this.live.delete(id);
    this.observer.retry(id);
    return true;
  }

  /** A write that changes nothing: success, no cycle, no audit record. */
  private noChange(includeTraces: boolean): MutationSummary {
    const empty = {
      success: true as const,
      mutatedPaths: [],
      derivedUpdated: [],
      metaUpdated: [],
      flaggedConstraints: [],
      dispatchedEffects: [],
    };
    return includeTraces ? { ...empty, traces: [] } : empty;
  }

  private finishCycle(id: string, result: MutationResult, includeTraces: boolean): MutationSummary {
    this.emit(id, {
      kind: 'mutation',
      modelId: id,
      mutatedPaths: result.mutatedPaths,
      derivedUpdated: result.derivedUpdated,
      flaggedConstraints: result.flaggedConstraints,
      dispatchedEffects: result.dispatchedEffects,
    });
    if (result.dispatchedEffects.length > 0)
      for (const hook of this.dispatchHooks) {
        try {
          hook(id, result.dispatchedEffects);
        } catch {
          // the cycle is committed: a hook's failure cannot undo it
        }
      }
    const { traces, ...summary } = result;
    return includeTraces ? { ...summary, traces } : summary;
  }

  async snapshot(id: string): Promise<Snapshot> {
    const snapshot = takeSnapshot(await this.runtime(id));
    await this.store.saveSnapshot(id, snapshot as unknown as JsonObject);
    return snapshot;
  }

  /**
   * Replaces spec and state under compare-and-set, with the audit record of the change (every
   * change of state has one), recomputing `change` on fresh state if beaten.
   */
  private async replace(
    id: string,
    source: 'restore' | 'evolution',
    change: (current: ModelRuntime) => Promise<ModelRuntime>,
    expectedRevision?: number,
  ): Promise<ModelRuntime> {
    for (let attempt = 1; ; attempt++) {
      const entry = await this.fresh(id);
      if (expectedRevision !== undefined && entry.head.revision !== expectedRevision)
        throw revisionConflict(id, expectedRevision, entry.head.revision);
      const next = await change(entry.runtime);
      const { revision, nextSequence, lastHash } = entry.head;
      const record = buildReplaceRecord({
        modelId: id,
        sequence: nextSequence,
        modelVersion: next.model.spec.version,
        source,
        prevHash: lastHash,
        timestamps: this.timestamps,
      });
      const ok = await this.store.replaceModel(id, revision, next.model.spec, next.exportState(), record);
      if (ok) {
        const head = {
          revision: revision + 1,
          nextSequence: nextSequence + 1,
          lastHash: record.hash ?? lastHash,
        };
        this.live.set(id, { runtime: next, head });
        return next;
      }
      this.live.delete(id);
      if (attempt >= MAX_COMMIT_ATTEMPTS) throw new CalcError('BUSY', `model '${id}' kept changing; retry`);
    }
  }

  restore(id: string, snapshot: unknown): Promise<{ restored: true }> {
    return this.lock.run(id, async () => {
      await this.replace(id, 'restore', (current) => {
        // restore into a copy so a refused snapshot or a lost race leaves our runtime as it was
        const copy = new ModelRuntime(current.model, { now: current.now });
        copy.loadState(current.exportState());
        restoreSnapshot(copy, snapshot);
        return Promise.resolve(copy);
      });
      this.emit(id, { kind: 'restored', modelId: id });
      return { restored: true };
    });
  }

  /**
   * Applies a SpecEvolution; the model changes only if every step succeeds.
   * @throws CalcError VERSION_CONFLICT, EVOLUTION_INVALID, and backfill mutation errors
   */
  async evolveSpec(
    id: string,
    evolution: unknown,
    options: Pick<WriteOptions, 'expectedRevision'> = {},
  ): Promise<{ id: string; version: string }> {
    const ev = requireObject(evolution, 'evolution') as SpecEvolution;
    const expected = checkExpectedRevision(options.expectedRevision);
    return this.lock.run(id, async () => {
      const runtime = await this.replace(
        id,
        'evolution',
        async (current) => (await evolveRuntime(current, ev)).runtime,
        expected,
      );
      this.emit(id, { kind: 'spec-evolved', modelId: id, version: runtime.model.spec.version });
      return { id, version: runtime.model.spec.version };
    });
  }

  // ------------------------------------------------------------ audit

  async getAudit(
    id: string,
    q: { pathPrefix?: string; from?: string; to?: string; limit?: number } = {},
  ): Promise<AuditRecord[]> {
    await this.runtime(id);
    if (q.from !== undefined) parseTimestamp(q.from);
    if (q.to !== undefined) parseTimestamp(q.to);
    const limit = q.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1)
      throw new CalcError('INVALID_ARGUMENT', 'limit must be a positive integer');
    return queryAudit(await this.store.auditRecords(id), { ...q, limit });
  }

  /** The hash chain, its end, the stored state and the keyed checkpoint (see `verifyTrail`). */
  async verifyAudit(id: string): Promise<AuditVerification> {
    await this.fresh(id); // MODEL_NOT_FOUND for an unknown model, as every read
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
      const state = await (await this.runtime(modelId)).getState();
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
    const current = await this.runtime(id);
    const copy = new ModelRuntime(current.model, { historyCapacity: 0 });
    copy.loadState({ ...current.exportState(), history: [] });
    return copy;
  }

  async close(): Promise<void> {
    this.unwatch();
    await this.store.close();
  }
}
