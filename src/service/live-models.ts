/**
 * The service's in-process copies of models: each a runtime plus the store head it stands on,
 * reloaded when the store has moved on (another process wrote).
 */
import { CalcError, compileModel, ModelRuntime, type DerivationTrace } from '../calc/index.js';
import type { ModelHead, Store } from '../store/store.js';
import type { CalcObserver } from './calc-observer.js';

export interface LiveModel {
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

export class LiveModels {
  private readonly live = new Map<string, LiveModel>();
  /** Models whose copy holds a cycle the store has not taken yet (see `hold`). */
  private readonly held = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    private readonly observer: CalcObserver,
  ) {}

  has(id: string): boolean {
    return this.live.has(id);
  }

  get(id: string): LiveModel | undefined {
    return this.live.get(id);
  }

  set(id: string, entry: LiveModel): void {
    this.live.set(id, entry);
  }

  /** Forgets our copy: the next read loads it from the store. */
  forget(id: string): void {
    this.live.delete(id);
  }

  /**
   * Marks our copy of `id` as holding a cycle on its way to the store, until the returned release
   * is called: reads in this process wait for it (`fresh`), so none shows a state the store may
   * still refuse, or one another process would not see yet. Writers of a model are serialised
   * (the model lock), so a writer never waits on its own hold. Reads wait for every cycle under
   * way, so a steady stream of writes to one model delays its reads: writes go first.
   */
  hold(id: string): () => void {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.held.set(id, done);
    return () => {
      if (this.held.get(id) === done) this.held.delete(id);
      release();
    };
  }

  /** Our copy of a model, reloaded when the store has moved on (another process wrote it). */
  async fresh(id: string): Promise<LiveModel> {
    let head: ModelHead | undefined;
    do {
      for (let held = this.held.get(id); held; held = this.held.get(id)) await held;
      head = await this.store.head(id);
    } while (this.held.has(id)); // a cycle began while the head was read: wait for it too
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

  async runtime(id: string): Promise<ModelRuntime> {
    return (await this.fresh(id)).runtime;
  }

  /** The runtime with its trace ring holding the trail's traces too (what explain reads). */
  async explained(id: string): Promise<ModelRuntime> {
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

  /** Whether the store has moved past our copy (another process wrote); if so, forgets the copy. */
  async behind(id: string, entry: LiveModel): Promise<boolean> {
    const head = await this.store.head(id);
    if (head?.revision === entry.head.revision) return false;
    this.live.delete(id);
    this.observer.retry(id);
    return true;
  }
}
