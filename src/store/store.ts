/**
 * The storage contract every backend implements: memory, SQLite (the embedded default) and
 * PostgreSQL. The service is the only caller. Writes are compare-and-set on a model's revision, so
 * several processes on one store never fork a model: the loser reloads and retries.
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

/** Where a model stands: every change bumps `revision`; every audited cycle bumps `nextSequence`. */
export interface ModelHead {
  revision: number;
  nextSequence: number;
  /** Hash of the newest audit record (GENESIS_HASH before the first). */
  lastHash: string;
}

export interface StoredModel {
  spec: ModelSpec;
  /** Base document and caches as of `head.revision`. */
  state: RuntimeState;
  head: ModelHead;
}

export interface SpecVersionEntry {
  version: string;
  spec: ModelSpec;
  createdAt: string;
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

/** Called when a model changed in any process sharing the store (where the backend can tell). */
export type ChangeListener = (modelId: string) => void;

export interface Store {
  /** "memory", "sqlite" or "postgres". */
  readonly kind: string;
  listModelIds(): Promise<string[]>;
  head(id: string): Promise<ModelHead | undefined>;
  loadModel(id: string): Promise<StoredModel | undefined>;
  /**
   * Registers a model at revision 0 and records its first spec version.
   * @throws CalcError MODEL_EXISTS when the id is taken
   */
  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void>;
  /**
   * Commits a cycle: the new state and its audit record together, or neither. Returns false (and
   * writes nothing) when the model is no longer at `expectedRevision` (or its chain no longer ends
   * at `record.prevHash`) or no longer exists. The store seals the record (`sealRecord` sets its
   * hash, in place): a durable store before it writes; the memory store once the caller is back in
   * the event loop, and always before the record or the head can be read, which takes the hashing
   * off the reply's path.
   */
  commitCycle(
    id: string,
    expectedRevision: number,
    state: () => RuntimeState,
    record: AuditRecord,
  ): Promise<boolean>;
  /** Replaces spec and state without an audit record (evolution, restore); same compare-and-set. */
  replaceModel(id: string, expectedRevision: number, spec: ModelSpec, state: RuntimeState): Promise<boolean>;
  /** Removes the model, its audit trail, spec versions and snapshots. */
  deleteModel(id: string): Promise<boolean>;
  /** The whole trail, ascending by sequence. */
  auditRecords(id: string): Promise<AuditRecord[]>;
  /** Every spec version the model has had, oldest first. */
  specVersions(id: string): Promise<SpecVersionEntry[]>;
  saveSnapshot(id: string, snapshot: JsonObject): Promise<void>;
  putBlob(data: Buffer, mediaType: string): Promise<BlobRef>;
  getBlob(blobId: string): Promise<StoredBlob | undefined>;
  /** Change notifications from other processes (PostgreSQL LISTEN/NOTIFY); a no-op elsewhere. */
  watch(listener: ChangeListener): () => void;
  close(): Promise<void>;
}

export const GENESIS_HASH = '0'.repeat(64);
export const MAX_BLOB_BYTES = 50 * 1024 * 1024;
