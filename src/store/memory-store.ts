/** The in-memory store: everything lives in this process and ends with it. */
import { createHash } from 'node:crypto';
import { cloneJson, type ModelSpec, type RuntimeState } from '../calc/index.js';
import { CalcError } from '../calc/index.js';
import type { AuditRecord, BlobRef, Store, StoredBlob, StoredModel } from './store.js';

export const MAX_BLOB_BYTES = 50 * 1024 * 1024;
export const BLOB_MEMORY_BUDGET = 512 * 1024 * 1024;

interface Entry {
  model: StoredModel;
  audit: AuditRecord[];
  /** The newest committed state, taken from the live runtime only when somebody asks. */
  currentState?: () => RuntimeState;
}

export class MemoryStore implements Store {
  readonly kind = 'memory';
  private readonly models = new Map<string, Entry>();
  private readonly blobs = new Map<string, StoredBlob>();
  private blobBytes = 0;

  listModelIds(): Promise<string[]> {
    return Promise.resolve([...this.models.keys()].sort());
  }

  loadModel(id: string): Promise<StoredModel | undefined> {
    const e = this.models.get(id);
    if (!e) return Promise.resolve(undefined);
    return Promise.resolve({
      ...e.model,
      state: e.currentState ? e.currentState() : cloneJson(e.model.state),
    });
  }

  insertModel(id: string, model: StoredModel): Promise<void> {
    if (this.models.has(id))
      return Promise.reject(new CalcError('MODEL_EXISTS', `Model with id '${id}' already exists`, { id }));
    this.models.set(id, { model: { ...model, state: cloneJson(model.state) }, audit: [] });
    return Promise.resolve();
  }

  commitCycle(
    id: string,
    expectedSequence: number,
    state: () => RuntimeState,
    record: AuditRecord,
  ): Promise<boolean> {
    const e = this.models.get(id);
    if (!e || e.model.nextSequence !== expectedSequence) return Promise.resolve(false);
    // Copying the whole state on every cycle would make the memory store the slowest part of a
    // write; keep the getter and read it when the model is loaded.
    e.currentState = state;
    e.audit.push(record);
    e.model.nextSequence = expectedSequence + 1;
    e.model.lastHash = record.hash ?? e.model.lastHash;
    return Promise.resolve(true);
  }

  replaceModel(id: string, spec: ModelSpec, state: RuntimeState): Promise<void> {
    const e = this.models.get(id);
    if (e) {
      e.model = { ...e.model, spec, state: cloneJson(state) };
      delete e.currentState;
    }
    return Promise.resolve();
  }

  deleteModel(id: string): Promise<boolean> {
    return Promise.resolve(this.models.delete(id));
  }

  auditRecords(id: string): Promise<AuditRecord[]> {
    return Promise.resolve(this.models.get(id)?.audit.slice() ?? []);
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
    const id = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    const known = this.blobs.get(id);
    if (known) return Promise.resolve({ $blobId: id, $mediaType: known.$mediaType, $bytes: known.$bytes });
    if (this.blobBytes + data.length > BLOB_MEMORY_BUDGET) {
      return Promise.reject(
        new CalcError(
          'BLOB_TOO_LARGE',
          'the blob store memory budget (512 MB) is used up; nothing is evicted',
        ),
      );
    }
    this.blobs.set(id, { $blobId: id, $mediaType: mediaType, $bytes: data.length, data: Buffer.from(data) });
    this.blobBytes += data.length;
    return Promise.resolve({ $blobId: id, $mediaType: mediaType, $bytes: data.length });
  }

  getBlob(blobId: string): Promise<StoredBlob | undefined> {
    return Promise.resolve(this.blobs.get(blobId));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
