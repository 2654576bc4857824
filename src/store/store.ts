/**
 * The storage contract every backend implements (memory now; SQLite and PostgreSQL next).
 * The service is the only caller. All methods are async so durable stores fit behind it.
 */
import type { JsonObject, JsonValue, ModelSpec, RuntimeState } from '../calc/index.js';

/** One committed cycle, as the audit trail keeps it. `hash` chains it to the previous record. */
export interface AuditRecord {
  modelId: string;
  sequence: number;
  timestamp: string;
  modelVersion: string;
  source: 'client' | 'patch' | 'foldback';
  mutations: Record<string, JsonValue>;
  derivedUpdated: string[];
  flaggedConstraints: string[];
  dispatchedEffects: string[];
  traces: JsonValue[];
  prevHash?: string;
  hash?: string;
}

export interface StoredModel {
  spec: ModelSpec;
  /** Base document and caches as of the newest committed cycle. */
  state: RuntimeState;
  /** Sequence the next audit record will get. */
  nextSequence: number;
  /** Hash of the newest audit record (64 zeros before the first). */
  lastHash: string;
}

export interface BlobRef {
  $blobId: string;
  $mediaType: string;
  $bytes: number;
}

export interface StoredBlob extends BlobRef {
  data: Buffer;
}

export interface AuditQuery {
  pathPrefix?: string;
  /** Inclusive, ISO-8601. */
  from?: string;
  /** Exclusive, ISO-8601. */
  to?: string;
  limit: number;
}

export interface Store {
  readonly kind: string;
  listModelIds(): Promise<string[]>;
  loadModel(id: string): Promise<StoredModel | undefined>;
  /** @throws when the id is taken */
  insertModel(id: string, model: StoredModel): Promise<void>;
  /**
   * Commits a cycle: the state and its audit record together, or neither. Refused (returns false)
   * when the model's sequence is no longer `expectedSequence` (another writer got there first).
   */
  commitCycle(
    id: string,
    expectedSequence: number,
    state: () => RuntimeState,
    record: AuditRecord,
  ): Promise<boolean>;
  /** Replaces spec and state without an audit record (evolution, restore). */
  replaceModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void>;
  deleteModel(id: string): Promise<boolean>;
  /** Ascending by sequence. */
  auditRecords(id: string): Promise<AuditRecord[]>;
  putBlob(data: Buffer, mediaType: string): Promise<BlobRef>;
  getBlob(blobId: string): Promise<StoredBlob | undefined>;
  close(): Promise<void>;
}

export const GENESIS_HASH = '0'.repeat(64);

export type { JsonObject };
