/**
 * The storage contract every backend implements: memory, SQLite (the embedded default) and
 * PostgreSQL. The service is the only caller. Writes are compare-and-set on a model's revision, so
 * several processes on one store never fork a model: the loser reloads and retries.
 */
import type { JsonObject, JsonValue, ModelSpec, RuntimeState } from '../calc/index.js';
import type { CheckpointCheck } from './audit-checkpoint.js';

/**
 * One committed change, as the audit trail keeps it. `hash` chains it to the previous record. A
 * reactive cycle (`person`, `agent`, `rest`, `patch`, `foldback`) lists its writes; a restore or an evolution
 * replaces the state (and, for an evolution, the spec) and lists none.
 */
export interface AuditRecord {
  modelId: string;
  sequence: number;
  timestamp: string;
  modelVersion: string;
  /**
   * Who made the change: a write's origin (`person`: someone in a card or the sandbox; `agent`: an
   * agent through MCP or its paired session; `rest`: a REST call with the server's key), or the
   * kind of change (`link`: a write by another model's link; `approval`: an inherited effect
   * approved). `client` is a write recorded before origins were told apart.
   */
  source:
    | 'person'
    | 'agent'
    | 'rest'
    | 'client'
    | 'patch'
    | 'foldback'
    | 'restore'
    | 'evolution'
    | 'link'
    | 'approval';
  /**
   * What caused a change beyond its source (docs/composition.md): for a `link` write the model and
   * effect that wrote; for an `approval` the effect approved and the definition hash it was approved
   * at. Absent on every other record, so their hashes are what they were before the field existed.
   */
  origin?: JsonObject;
  mutations: Record<string, JsonValue>;
  derivedUpdated: string[];
  flaggedConstraints: string[];
  dispatchedEffects: string[];
  traces: JsonValue[];
  /**
   * SHA-256 of the state this change committed, as the store keeps it (`stateHashOf`); set by the
   * store when it seals the record. Absent on records written before state hashes existed.
   */
  stateHash?: string;
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

/** What `verify_audit` needs from the store beyond the trail, read together at one moment. */
export interface AuditSeal {
  head: ModelHead;
  /** SHA-256 of the state as stored now (`stateHashOf` of the text the store holds); durable stores. */
  stateHash?: string;
  /**
   * The checkpoint stored with the model, checked with this store's key against `head`/`stateHash`;
   * `not-kept` for a store nothing outside the process can write (memory).
   */
  checkpoint: CheckpointCheck | { status: 'not-kept' };
  /** The id of this store's audit key (stores that keep checkpoints). */
  keyId?: string;
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

/**
 * The state a cycle commits, in the form each store keeps it, made only when asked: the memory
 * store keeps the object (and reads it only when the model is loaded again), a durable store writes
 * and hashes the text and keeps the cycle's history row beside its audit record.
 */
export interface CommittedState {
  /** A plain JSON copy of the state, history included. */
  object(): RuntimeState;
  /** `JSON.stringify(object())` without `history`, byte for byte (`stateTextOf`). */
  text(): string;
  /** The cycle's history row (calc's history.ts), or undefined when the runtime keeps none. */
  historyRow(): string | undefined;
}

/** The text a durable store writes and hashes for `state`: everything but its history. */
export function stateTextOf(state: RuntimeState): string {
  return JSON.stringify({ base: state.base, derived: state.derived, meta: state.meta });
}

/** A state already at hand, in both forms (no history row: a replace starts history afresh). */
export function committedState(state: RuntimeState): CommittedState {
  return { object: () => state, text: () => stateTextOf(state), historyRow: () => undefined };
}

/**
 * The answer an idempotent write gave (issue 38): a retry with the same key and the same request
 * gets `answer` back instead of applying again. `fingerprint` identifies the request (operation
 * and body); `createdAt` is ISO-8601.
 */
export interface IdempotencyEntry {
  key: string;
  fingerprint: string;
  answer: JsonValue;
  createdAt: string;
}

/** How many idempotency keys a model keeps, and for how long (older and extra keys are dropped). */
export const IDEMPOTENCY_LIMITS = { maxKeys: 1000, maxAgeMs: 24 * 60 * 60 * 1000 } as const;
/** The longest idempotency key accepted (characters). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 200;

/** Called when a model changed in any process sharing the store (where the backend can tell). */
export type ChangeListener = (modelId: string) => void;

export interface Store {
  /** "memory", "sqlite" or "postgres". */
  readonly kind: string;
  listModelIds(): Promise<string[]>;
  head(id: string): Promise<ModelHead | undefined>;
  loadModel(id: string): Promise<StoredModel | undefined>;
  /**
   * Registers a model at revision 0 and records its first spec version. The store may keep
   * `state` as it is given (the memory store does, rather than copy a large state twice): pass a
   * copy nothing else holds, such as a fresh `exportState()`, and do not change it afterwards.
   * @throws CalcError MODEL_EXISTS when the id is taken
   */
  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void>;
  /**
   * Commits a cycle: the new state, its audit record and the model's new checkpoint together, or
   * none of them. Returns false (and writes nothing) when the model is no longer at
   * `expectedRevision` (or its chain no longer ends at `record.prevHash`) or no longer exists. The
   * store seals the record (`sealRecord` sets its hash, in place): a durable store before it
   * writes, with the hash of the state text it writes; the memory store (no state hash: nothing
   * outside the process can write its state) once the caller is back in the event loop, and always
   * before the record or the head can be read, which takes the hashing off the reply's path. The
   * memory store reads `state.object()` only when the model is loaded again: the caller must not
   * change what it returns before its next read of this model; a durable store reads `state.text()`
   * once, before the call returns.
   */
  commitCycle(
    id: string,
    expectedRevision: number,
    state: CommittedState,
    record: AuditRecord,
  ): Promise<boolean>;
  /**
   * Replaces spec and state (evolution, restore) with the audit record that says so, under the
   * same compare-and-set as `commitCycle`; the record is sealed before the call returns.
   */
  replaceModel(
    id: string,
    expectedRevision: number,
    spec: ModelSpec,
    state: RuntimeState,
    record: AuditRecord,
  ): Promise<boolean>;
  /** Removes the model, its audit trail, spec versions and snapshots. */
  deleteModel(id: string): Promise<boolean>;
  /** The whole trail, ascending by sequence. */
  auditRecords(id: string): Promise<AuditRecord[]>;
  /** Head, stored state hash and checked checkpoint of a model, read together; undefined when unknown. */
  auditSeal(id: string): Promise<AuditSeal | undefined>;
  /** Every spec version the model has had, oldest first. */
  specVersions(id: string): Promise<SpecVersionEntry[]>;
  saveSnapshot(id: string, snapshot: JsonObject): Promise<void>;
  /** The kept answer for `key` on model `id`, if any (expired ones may still be returned: the caller checks age). */
  idempotencyEntry(id: string, key: string): Promise<IdempotencyEntry | undefined>;
  /**
   * Keeps (or replaces) the answer for `entry.key` on model `id`, then drops that model's keys older
   * than IDEMPOTENCY_LIMITS.maxAgeMs and all but the newest maxKeys. Nothing is kept for a model
   * that no longer exists; deleting a model drops its keys.
   */
  saveIdempotencyEntry(id: string, entry: IdempotencyEntry): Promise<void>;
  putBlob(data: Buffer, mediaType: string): Promise<BlobRef>;
  getBlob(blobId: string): Promise<StoredBlob | undefined>;
  /** Change notifications from other processes (PostgreSQL LISTEN/NOTIFY); a no-op elsewhere. */
  watch(listener: ChangeListener): () => void;
  close(): Promise<void>;
}

export const GENESIS_HASH = '0'.repeat(64);
export const MAX_BLOB_BYTES = 50 * 1024 * 1024;
