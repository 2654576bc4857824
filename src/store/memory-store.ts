/**
 * The in-memory store: everything lives in this process and ends with it. Nothing outside the
 * process can write it, yet it keeps the same audit seal as the durable stores (state hashes and
 * checkpoints, under a key made for this process unless one is given), so the service verifies
 * every store alike.
 */
import { hash } from 'node:crypto';
import { CalcError, cloneJson, type JsonObject, type ModelSpec, type RuntimeState } from '../calc/index.js';
import { sealRecord, stateHashOf } from './audit-chain.js';
import { checkCheckpoint, makeCheckpoint, nextCheckpoint, type MadeCheckpoint } from './audit-checkpoint.js';
import { AuditKey } from './audit-key.js';
import {
  GENESIS_HASH,
  MAX_BLOB_BYTES,
  type AuditRecord,
  type AuditSeal,
  type BlobRef,
  type ModelHead,
  type SpecVersionEntry,
  type Store,
  type StoredBlob,
  type StoredModel,
} from './store.js';

export const BLOB_MEMORY_BUDGET = 512 * 1024 * 1024;

interface Entry {
  id: string;
  spec: ModelSpec;
  /** The committed state as JSON text, as a durable store would keep it (set when sealed). */
  stateText: string;
  /** The hash of `stateText` as this store last wrote or loaded it. */
  stateHash: string;
  /** The newest committed state while its record is unsealed, taken from the live runtime then. */
  pendingState?: () => RuntimeState;
  head: ModelHead;
  /** The checkpoint text of the sealed head. */
  checkpoint: string;
  /** The checkpoint this store made last (the same as `checkpoint` unless someone changed that). */
  made: MadeCheckpoint;
  audit: AuditRecord[];
  /** The newest record while its hash is still to be computed (see `sealed`). */
  unsealed?: AuditRecord & { prevHash: string };
  versions: SpecVersionEntry[];
  snapshots: JsonObject[];
}

export interface MemoryStoreOptions {
  /** The key of the checkpoints; default: one made for this process. */
  auditKey?: AuditKey;
}

export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly models = new Map<string, Entry>();
  private readonly blobs = new Map<string, StoredBlob>();
  private blobBytes = 0;
  /** Models with a record to seal once the event loop is free. */
  private readonly toSeal = new Set<Entry>();
  private sealTimer: NodeJS.Immediate | undefined;
  private readonly auditKey: AuditKey;

  constructor(options: MemoryStoreOptions = {}) {
    this.auditKey = options.auditKey ?? AuditKey.ephemeral();
  }

  listModelIds(): Promise<string[]> {
    return Promise.resolve([...this.models.keys()].sort());
  }

  head(id: string): Promise<ModelHead | undefined> {
    const e = this.models.get(id);
    return Promise.resolve(e ? { ...this.sealed(e).head } : undefined);
  }

  loadModel(id: string): Promise<StoredModel | undefined> {
    const e = this.models.get(id);
    if (!e) return Promise.resolve(undefined);
    this.sealed(e);
    // what the caller will build on: the next seal checks the checkpoint against this very text
    e.stateHash = stateHashOf(e.stateText);
    return Promise.resolve({
      spec: e.spec,
      state: JSON.parse(e.stateText) as RuntimeState,
      head: { ...e.head },
    });
  }

  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    if (this.models.has(id))
      return Promise.reject(new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id }));
    const stateText = JSON.stringify(state);
    const stateHash = stateHashOf(stateText);
    const head = { revision: 0, nextSequence: 0, lastHash: GENESIS_HASH };
    const made = makeCheckpoint(this.auditKey, id, { ...head, stateHash }, 0);
    this.models.set(id, {
      id,
      spec,
      stateText,
      stateHash,
      head,
      checkpoint: made.text,
      made,
      audit: [],
      versions: [{ version: spec.version, spec, createdAt: new Date().toISOString() }],
      snapshots: [],
    });
    return Promise.resolve();
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: () => RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    const e = this.models.get(id);
    if (!e || e.head.revision !== expectedRevision) return Promise.resolve(false);
    const prevHash = record.prevHash;
    if (typeof prevHash !== 'string' || !Number.isInteger(record.sequence)) {
      return Promise.reject(
        new CalcError('INVALID_ARGUMENT', 'an audit record needs an integer sequence and a prevHash'),
      );
    }
    if (prevHash !== this.sealed(e).head.lastHash || record.sequence !== e.head.nextSequence)
      return Promise.resolve(false);
    // Copying the whole state on every cycle would make the memory store the slowest part of a
    // write; keep the getter and read it when the record is sealed.
    e.pendingState = state;
    e.audit.push(record);
    e.head = { revision: expectedRevision + 1, nextSequence: e.head.nextSequence + 1, lastHash: prevHash };
    // Serialising and hashing the state and the record is most of a small cycle's cost: do it after
    // the caller has its answer (every read of the head, the state or the trail seals first, so
    // nobody sees a record without its hashes, and the service reads the head before it changes
    // the runtime the getter reads).
    e.unsealed = record as AuditRecord & { prevHash: string };
    this.toSeal.add(e);
    this.sealTimer ??= setImmediate(() => {
      this.sealTimer = undefined;
      for (const pending of this.toSeal) this.sealed(pending);
    }).unref();
    return Promise.resolve(true);
  }

  replaceModel(
    id: string,
    expectedRevision: number,
    spec: ModelSpec,
    state: RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    const e = this.models.get(id);
    if (!e || e.head.revision !== expectedRevision) return Promise.resolve(false);
    const prevHash = record.prevHash;
    if (typeof prevHash !== 'string' || !Number.isInteger(record.sequence)) {
      return Promise.reject(
        new CalcError('INVALID_ARGUMENT', 'an audit record needs an integer sequence and a prevHash'),
      );
    }
    if (prevHash !== this.sealed(e).head.lastHash || record.sequence !== e.head.nextSequence)
      return Promise.resolve(false);
    if (spec.version !== e.spec.version || JSON.stringify(spec) !== JSON.stringify(e.spec)) {
      e.versions.push({ version: spec.version, spec, createdAt: new Date().toISOString() });
    }
    e.spec = spec;
    e.audit.push(record);
    e.head = { revision: expectedRevision + 1, nextSequence: e.head.nextSequence + 1, lastHash: prevHash };
    this.seal(e, record as AuditRecord & { prevHash: string }, JSON.stringify(state));
    return Promise.resolve(true);
  }

  deleteModel(id: string): Promise<boolean> {
    const e = this.models.get(id);
    if (e) this.toSeal.delete(e);
    return Promise.resolve(this.models.delete(id));
  }

  auditRecords(id: string): Promise<AuditRecord[]> {
    const e = this.models.get(id);
    return Promise.resolve(e ? this.sealed(e).audit.slice() : []);
  }

  auditSeal(id: string): Promise<AuditSeal | undefined> {
    const e = this.models.get(id);
    if (!e) return Promise.resolve(undefined);
    this.sealed(e);
    const stateHash = stateHashOf(e.stateText);
    return Promise.resolve({
      head: { ...e.head },
      stateHash,
      checkpoint: checkCheckpoint(this.auditKey, id, { ...e.head, stateHash }, e.checkpoint, e.made),
      keyId: this.auditKey.id,
    });
  }

  /** The entry with its newest record's hash computed and the head pointing at it. */
  private sealed(e: Entry): Entry {
    const record = e.unsealed;
    const state = e.pendingState;
    if (record && state) {
      e.unsealed = undefined;
      e.pendingState = undefined;
      this.seal(e, record, JSON.stringify(state()));
    }
    this.toSeal.delete(e);
    return e;
  }

  /** Seals the newest record over `stateText` and checkpoints the head it ends (which `e.head` holds). */
  private seal(e: Entry, record: AuditRecord & { prevHash: string }, stateText: string): void {
    const from = { nextSequence: record.sequence, lastHash: record.prevHash, stateHash: e.stateHash };
    const stateHash = stateHashOf(stateText);
    e.head.lastHash = sealRecord(record, stateHash).hash;
    e.stateText = stateText;
    e.stateHash = stateHash;
    const to = { nextSequence: e.head.nextSequence, lastHash: e.head.lastHash, stateHash };
    e.made = nextCheckpoint(this.auditKey, e.id, from, e.checkpoint, to, e.made);
    e.checkpoint = e.made.text;
  }

  specVersions(id: string): Promise<SpecVersionEntry[]> {
    return Promise.resolve(this.models.get(id)?.versions.slice() ?? []);
  }

  saveSnapshot(id: string, snapshot: JsonObject): Promise<void> {
    this.models.get(id)?.snapshots.push(cloneJson(snapshot));
    return Promise.resolve();
  }

  putBlob(data: Buffer, mediaType: string): Promise<BlobRef> {
    if (data.length > MAX_BLOB_BYTES) {
      return Promise.reject(
        new CalcError(
          'BLOB_TOO_LARGE',
          `blob of ${data.length} bytes exceeds the ${MAX_BLOB_BYTES}-byte limit`,
        ),
      );
    }
    const id = `sha256:${hash('sha256', data, 'hex')}`;
    const known = this.blobs.get(id);
    if (known) return Promise.resolve({ $blobId: id, $mediaType: known.$mediaType, $bytes: known.$bytes });
    if (this.blobBytes + data.length > BLOB_MEMORY_BUDGET) {
      return Promise.reject(
        new CalcError('BLOB_TOO_LARGE', 'the in-memory blob budget (512 MB) is used up; nothing is evicted'),
      );
    }
    this.blobs.set(id, { $blobId: id, $mediaType: mediaType, $bytes: data.length, data: Buffer.from(data) });
    this.blobBytes += data.length;
    return Promise.resolve({ $blobId: id, $mediaType: mediaType, $bytes: data.length });
  }

  getBlob(blobId: string): Promise<StoredBlob | undefined> {
    return Promise.resolve(this.blobs.get(blobId));
  }

  watch(): () => void {
    return () => {};
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
