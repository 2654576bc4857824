/**
 * How the calc service commits: a reactive cycle run on our copy and committed with
 * compare-and-set (retried on fresh state when another process got there first), and the
 * replacement of spec and state (restore, evolution) under the same compare-and-set.
 */
import {
  CalcError,
  jsonEqual,
  parseAddress,
  type JsonObject,
  type ModelRuntime,
  type MutationResult,
} from '../calc/index.js';
import { inSpan, phaseSpans } from '../observability/tracing.js';
import type { AuditRecord, Store } from '../store/store.js';
import { buildAuditRecord, buildReplaceRecord, type AuditTimestamps } from './audit.js';
import type { ModelEvent, MutationSummary } from './calc-api.js';
import { secondsSince, type CalcObserver, type DispatchHook } from './calc-observer.js';
import type { LiveModels } from './live-models.js';

/** How often a cycle is retried when another process committed first. */
export const MAX_COMMIT_ATTEMPTS = 8;

/** The refusal of a write whose expectedRevision is not the model's revision. */
export function revisionConflict(id: string, expected: number, actual: number): CalcError {
  return new CalcError(
    'VERSION_CONFLICT',
    `Version conflict: model '${id}' is at revision ${actual}, not ${expected}; nothing was written. Read it again, then retry with expectedRevision ${actual} if your change still holds`,
    { expected, actual },
  );
}

export class CycleWriter {
  private readonly dispatchHooks = new Set<DispatchHook>();

  constructor(
    private readonly store: Store,
    private readonly models: LiveModels,
    private readonly observer: CalcObserver,
    private readonly timestamps: AuditTimestamps,
    private readonly emit: (id: string, event: ModelEvent) => void,
  ) {}

  /** Registers a hook told of each committed cycle's dispatched effects; returns its removal. */
  onDispatch(hook: DispatchHook): () => void {
    this.dispatchHooks.add(hook);
    return () => this.dispatchHooks.delete(hook);
  }

  /**
   * Runs a write, telling the observer of a refusal (commit() tells it of a committed cycle). The
   * write's own promise is returned: a wrapper's extra ticks would change how racing writers interleave.
   */
  observed<T>(id: string, write: () => Promise<T>): Promise<T> {
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
  async commit(
    id: string,
    writesFor: (runtime: ModelRuntime) => Record<string, unknown>,
    source: AuditRecord['source'],
    includeTraces: boolean,
    expectedRevision?: number,
    origin?: JsonObject,
  ): Promise<MutationSummary> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      const cached = this.models.get(id);
      const unread = attempt === 1 && cached?.settled === true;
      const entry = unread ? cached : await this.models.fresh(id);
      const { runtime, head } = entry;
      if (expectedRevision !== undefined && head.revision !== expectedRevision) {
        // our copy may be the stale one: the store's head decides
        if (unread && (await this.models.behind(id, entry))) continue;
        throw revisionConflict(id, expectedRevision, head.revision);
      }
      // from the engine's cycle until the store has answered, reads of this model in this process
      // wait (LiveModels.hold): none sees a state the store may yet refuse
      const release = this.models.hold(id);
      try {
        let writes: Record<string, unknown>;
        let result: MutationResult;
        const phases = phaseSpans('calc.phase'); // tracing only: the engine announces its phases
        try {
          writes = writesFor(runtime);
          if (Object.keys(writes).length === 0 || writesNothingNew(runtime, writes)) {
            if (unread && (await this.models.behind(id, entry))) continue;
            return this.noChange(includeTraces, head.revision);
          }
          result = await runtime.mutate(writes, phases && { onPhase: phases.phase });
        } catch (err) {
          if (unread && (await this.models.behind(id, entry))) continue;
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
          origin,
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
          this.models.forget(id); // our copy is ahead of the store: reload next time
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
          return { ...this.finishCycle(id, result, includeTraces), revision: entry.head.revision };
        }
      } finally {
        release();
      }
      this.models.forget(id);
      this.observer.retry(id);
      if (attempt >= MAX_COMMIT_ATTEMPTS) {
        throw new CalcError(
          'BUSY',
          `model '${id}' kept changing under this write (${attempt} attempts); retry`,
        );
      }
    }
  }

  /** A write that changes nothing: success, no cycle, no audit record, the revision as it was. */
  private noChange(includeTraces: boolean, revision: number): MutationSummary {
    const empty = {
      success: true as const,
      mutatedPaths: [],
      derivedUpdated: [],
      metaUpdated: [],
      flaggedConstraints: [],
      dispatchedEffects: [],
      revision,
      unchanged: true as const,
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

  /**
   * Replaces spec and state under compare-and-set, with the audit record of the change (every
   * change of state has one), recomputing `change` on fresh state if beaten. A `change` that
   * answers undefined changes nothing: no commit, no record, the revision stays.
   */
  async replace(
    id: string,
    source: 'restore' | 'evolution' | 'approval',
    change: (current: ModelRuntime) => Promise<ModelRuntime | undefined>,
    expectedRevision?: number,
    originOf?: (next: ModelRuntime) => JsonObject,
  ): Promise<{ runtime: ModelRuntime; revision: number; changed: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const entry = await this.models.fresh(id);
      if (expectedRevision !== undefined && entry.head.revision !== expectedRevision)
        throw revisionConflict(id, expectedRevision, entry.head.revision);
      const next = await change(entry.runtime);
      if (next === undefined)
        return { runtime: entry.runtime, revision: entry.head.revision, changed: false };
      const { revision, nextSequence, lastHash } = entry.head;
      const record = buildReplaceRecord({
        modelId: id,
        sequence: nextSequence,
        modelVersion: next.model.spec.version,
        source,
        prevHash: lastHash,
        timestamps: this.timestamps,
        origin: originOf?.(next),
      });
      const ok = await this.store.replaceModel(id, revision, next.model.spec, next.exportState(), record);
      if (ok) {
        const head = {
          revision: revision + 1,
          nextSequence: nextSequence + 1,
          lastHash: record.hash ?? lastHash,
        };
        this.models.set(id, { runtime: next, head });
        return { runtime: next, revision: head.revision, changed: true };
      }
      this.models.forget(id);
      if (attempt >= MAX_COMMIT_ATTEMPTS) throw new CalcError('BUSY', `model '${id}' kept changing; retry`);
    }
  }
}

/**
 * Whether every write puts back the input value already there (same JSON): such a write is no
 * change, so no cycle runs and the revision stays (docs/mcp.md). Anything else (an absent value, a
 * derived target, an address the engine would refuse) goes to the engine, which decides.
 */
function writesNothingNew(runtime: ModelRuntime, writes: Record<string, unknown>): boolean {
  const base = runtime.baseDocument();
  for (const [address, value] of Object.entries(writes)) {
    if (runtime.model.derivedTargets.has(address)) return false;
    const parsed = parseAddress(address);
    if (!parsed.ok) return false;
    let at: unknown = base;
    for (const seg of parsed.path) {
      if (Array.isArray(at) && typeof seg === 'number' && seg < at.length) at = at[seg];
      else if (
        typeof at === 'object' &&
        at !== null &&
        !Array.isArray(at) &&
        typeof seg === 'string' &&
        Object.hasOwn(at, seg)
      )
        at = (at as Record<string, unknown>)[seg];
      else return false;
    }
    if (!jsonEqual(at, value)) return false;
  }
  return true;
}
