/**
 * The in-memory store: everything lives in this process and ends with it. Its records are
 * hash-chained like every store's, but it keeps no state hashes and no keyed checkpoint: nothing
 * outside the process can write it, and serialising and hashing the whole state on every cycle would
 * be most of a small write's cost here (the durable stores serialise the state to write it anyway).
 */
import { hash } from 'node:crypto';
import { CalcError, cloneJson, type JsonObject, type ModelSpec, type RuntimeState } from '../calc/index.js';
import { sealRecord } from './audit-chain.js';
import {
  GENESIS_HASH,
  MAX_BLOB_BYTES,
  type AuditRecord,
  type AuditSeal,
  type BlobRef,
  IDEMPOTENCY_LIMITS,
  type CommittedState,
  type IdempotencyEntry,
  type ModelHead,
  type SpecVersionEntry,
  type Store,
  type StoredBlob,
  type StoredModel,
} from './store.js';

export const BLOB_MEMORY_BUDGET = 512 * 1024 * 1024;

interface Entry {
  spec: ModelSpec;
  state: RuntimeState;
  /** The newest committed state, taken from the live runtime only when somebody asks. */
  currentState?: () => RuntimeState;
  head: ModelHead;
  audit: AuditRecord[];
  /** The newest record while its hash is still to be computed (see `sealed`). */
  unsealed?: AuditRecord & { prevHash: string };
  versions: SpecVersionEntry[];
  snapshots: JsonObject[];
  /** Idempotency keys → kept answers, oldest first (a Map keeps insertion order). */
  idempotency: Map<string, IdempotencyEntry>;
}

export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly models = new Map<string, Entry>();
  private readonly blobs = new Map<string, StoredBlob>();
  private blobBytes = 0;
  /** Models with a record to seal once the event loop is free. */
  private readonly toSeal = new Set<Entry>();
  private sealTimer: NodeJS.Immediate | undefined;

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
    return Promise.resolve({
      spec: e.spec,
      state: e.currentState ? e.currentState() : cloneJson(e.state),
      head: { ...e.head },
    });
  }

  insertModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    if (this.models.has(id))
      return Promise.reject(new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id }));
    this.models.set(id, {
      spec,
      state, // the caller's own copy (store.ts): reads clone it, so nobody shares it
      head: { revision: 0, nextSequence: 0, lastHash: GENESIS_HASH },
      audit: [],
      versions: [{ version: spec.version, spec, createdAt: new Date().toISOString() }],
      snapshots: [],
      idempotency: new Map(),
    });
    return Promise.resolve();
  }

  commitCycle(
    id: string,
    expectedRevision: number,
    state: CommittedState,
    record: AuditRecord,
  ): Promise<boolean> {
    const e = this.models.get(id);
    if (!e || e.head.revision !== expectedRevision) return Promise.resolve(false);
    const follows = this.follows(e, record);
    if (follows !== true) return follows === false ? Promise.resolve(false) : Promise.reject(follows);
    // Copying the whole state on every cycle would make the memory store the slowest part of a
    // write; keep the getter and read it when the model is loaded.
    e.currentState = () => state.object();
    e.audit.push(record);
    e.head = {
      revision: expectedRevision + 1,
      nextSequence: e.head.nextSequence + 1,
      lastHash: record.prevHash!,
    };
    // Hashing the record is most of a small cycle's cost: do it after the caller has its answer
    // (every read of the head or the trail seals first, so nobody sees a record without its hash).
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
    const follows = this.follows(e, record);
    if (follows !== true) return follows === false ? Promise.resolve(false) : Promise.reject(follows);
    if (spec.version !== e.spec.version || JSON.stringify(spec) !== JSON.stringify(e.spec)) {
      e.versions.push({ version: spec.version, spec, createdAt: new Date().toISOString() });
    }
    e.spec = spec;
    e.state = cloneJson(state);
    delete e.currentState;
    e.audit.push(record);
    e.head = {
      revision: expectedRevision + 1,
      nextSequence: e.head.nextSequence + 1,
      lastHash: sealRecord(record as AuditRecord & { prevHash: string }).hash,
    };
    return Promise.resolve(true);
  }

  /** Whether `record` is the next of the model's trail; a malformed record is an error. */
  private follows(e: Entry, record: AuditRecord): boolean | CalcError {
    if (typeof record.prevHash !== 'string' || !Number.isInteger(record.sequence))
      return new CalcError('INVALID_ARGUMENT', 'an audit record needs an integer sequence and a prevHash');
    return record.prevHash === this.sealed(e).head.lastHash && record.sequence === e.head.nextSequence;
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
    return Promise.resolve({ head: { ...this.sealed(e).head }, checkpoint: { status: 'not-kept' } });
  }

  /** The entry with its newest record's hash computed and the head pointing at it. */
  private sealed(e: Entry): Entry {
    const record = e.unsealed;
    if (record) {
      e.unsealed = undefined;
      e.head.lastHash = sealRecord(record).hash;
    }
    this.toSeal.delete(e);
    return e;
  }

  specVersions(id: string): Promise<SpecVersionEntry[]> {
    return Promise.resolve(this.models.get(id)?.versions.slice() ?? []);
  }

  saveSnapshot(id: string, snapshot: JsonObject): Promise<void> {
    this.models.get(id)?.snapshots.push(cloneJson(snapshot));
    return Promise.resolve();
  }

  idempotencyEntry(id: string, key: string): Promise<IdempotencyEntry | undefined> {
    const kept = this.models.get(id)?.idempotency.get(key);
    return Promise.resolve(kept && cloneJson(kept));
  }

  saveIdempotencyEntry(id: string, entry: IdempotencyEntry): Promise<void> {
    const kept = this.models.get(id)?.idempotency;
    if (!kept) return Promise.resolve();
    kept.delete(entry.key); // re-inserted as the newest
    kept.set(entry.key, cloneJson(entry));
    const cutoff = Date.now() - IDEMPOTENCY_LIMITS.maxAgeMs;
    for (const [key, e] of kept) {
      if (kept.size > IDEMPOTENCY_LIMITS.maxKeys || Date.parse(e.createdAt) < cutoff) kept.delete(key);
      else break; // oldest first: the rest are newer
    }
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
