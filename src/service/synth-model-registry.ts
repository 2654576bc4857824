/**
 * The synth service's registered models (`m-…`): each loaded once at registration, forgotten after
 * an idle timeout unless a generation of it is queued or running, at most `maxModels` at a time.
 */
import type { PreparedModel } from '../synth/index.js';
import { SynthServiceError } from './synth-errors.js';
import { newId, sha256 } from './synth-model-load.js';
import type { ModelInfo } from './synth-service-api.js';

export interface ModelEntry {
  info: ModelInfo;
  /** Loaded once at registration: composed, gated, with its outside data in memory. */
  prepared: PreparedModel;
  lastUsed: number;
  /** Generations of it queued or running: its idle clock stands still while any is. */
  inUse: number;
}

export class SynthModelRegistry {
  private readonly models = new Map<string, ModelEntry>();

  constructor(
    private readonly now: () => number,
    private readonly idleTimeoutMs: number,
    private readonly maxModels: number,
  ) {}

  /** Keeps a loaded model under a new id; BUSY when the registry is full of models in use or not yet idle. */
  add(text: string, prepared: PreparedModel): ModelInfo {
    this.evictIdle();
    if (this.models.size >= this.maxModels)
      throw new SynthServiceError(
        'BUSY',
        `too many registered models (${this.maxModels}); delete some or wait for idle ones to expire`,
      );
    const at = this.now();
    const info: ModelInfo = {
      modelId: newId('m'),
      rootName: prepared.model.root,
      nodeCount: prepared.model.nodes.length,
      sha256: sha256(text),
      registeredAt: new Date(at).toISOString(),
      lastUsedAt: new Date(at).toISOString(),
      idleTimeoutMs: this.idleTimeoutMs,
    };
    this.models.set(info.modelId, { info, prepared, lastUsed: at, inUse: 0 });
    return { ...info };
  }

  list(): ModelInfo[] {
    this.evictIdle();
    return [...this.models.values()].map((e) => ({ ...e.info }));
  }

  delete(modelId: string): void {
    this.evictIdle();
    if (!this.models.delete(modelId)) throw this.notFound(modelId);
  }

  /** The model's entry, its idle clock restarted; MODEL_NOT_FOUND when it is not (or no longer) here. */
  touch(modelId: string): ModelEntry {
    this.evictIdle();
    const entry = this.models.get(modelId);
    if (!entry) throw this.notFound(modelId);
    this.markUsed(entry);
    return entry;
  }

  markUsed(entry: ModelEntry): void {
    entry.lastUsed = this.now();
    entry.info.lastUsedAt = new Date(entry.lastUsed).toISOString();
  }

  evictIdle(): void {
    const cutoff = this.now() - this.idleTimeoutMs;
    for (const [id, entry] of this.models)
      if (entry.inUse === 0 && entry.lastUsed < cutoff) this.models.delete(id);
  }

  clear(): void {
    this.models.clear();
  }

  private notFound(modelId: string): SynthServiceError {
    return new SynthServiceError(
      'MODEL_NOT_FOUND',
      `unknown model '${modelId}' (never registered, deleted, or evicted after ${this.idleTimeoutMs} ms idle); register it again`,
      { modelId },
    );
  }
}
