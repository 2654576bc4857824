/**
 * Shared by the durable stores: how audit records, JSON and blobs are encoded in rows, and how a
 * backend failure becomes a structured error.
 */
import { hash } from 'node:crypto';
import { CalcError, historyRowsOf, type RuntimeState } from '../calc/index.js';
import { sealRecord, stateHashOf } from './audit-chain.js';
import { checkCheckpoint, type MadeCheckpoint } from './audit-checkpoint.js';
import type { AuditKey } from './audit-key.js';
import { MAX_BLOB_BYTES, type AuditRecord, type AuditSeal, type ModelHead } from './store.js';

/** Any failure that is not already a CalcError becomes STORE_FAILURE, with the backend's code. */
export function storeFailure(err: unknown, what: string): CalcError {
  if (err instanceof CalcError) return err;
  const e = err as { message?: unknown; code?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const details: Record<string, unknown> = {};
  if (typeof e?.code === 'string') details.cause = e.code;
  return new CalcError('STORE_FAILURE', `${what}: ${message}`, details);
}

export function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CalcError(
      'STORE_FAILURE',
      `the stored ${what} is not valid JSON (the store file was altered?)`,
    );
  }
}

/**
 * The stored text of an audit record: everything but `sequence`, `prevHash` and `hash`, which live
 * in their own columns (the columns are the truth; nothing is kept twice).
 */
export function auditContent(record: AuditRecord): string {
  // a rest copy, not `delete` on a spread: deleting keys turns an object slow to print
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { sequence, prevHash, hash, ...rest } = record;
  return JSON.stringify(rest);
}

/**
 * Rebuilds a record from its row. A record whose text no longer parses is returned as an empty
 * record so that `verifyChain` names it (content hash mismatch) instead of the read failing.
 */
export function auditFromRow(
  modelId: string,
  row: { sequence: number; record: string; prev_hash: string; hash: string },
): AuditRecord {
  let content: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(row.record);
    content =
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
  } catch {
    content = {};
  }
  const base: AuditRecord = {
    modelId,
    sequence: row.sequence,
    timestamp: '',
    modelVersion: '',
    source: 'client',
    mutations: {},
    derivedUpdated: [],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: [],
  };
  // defined, not assigned: a `__proto__` key in the stored text stays a plain key (and, as the
  // server never writes one, makes the record fail its hash) instead of replacing the prototype
  for (const [k, v] of Object.entries(content))
    Object.defineProperty(base, k, { value: v, writable: true, enumerable: true, configurable: true });
  const out: AuditRecord = base;
  out.sequence = row.sequence;
  out.prevHash = row.prev_hash;
  out.hash = row.hash;
  return out;
}

/**
 * Seals a record before a durable store writes it, over the state text it commits; it must say
 * which record it follows.
 */
export function sealForWrite(
  record: AuditRecord,
  stateText: string,
): { prevHash: string; hash: string; stateHash: string } {
  if (typeof record.prevHash !== 'string' || !Number.isInteger(record.sequence)) {
    throw new CalcError('INVALID_ARGUMENT', 'an audit record needs an integer sequence and a prevHash');
  }
  const stateHash = stateHashOf(stateText);
  const { prevHash, hash } = sealRecord(record as AuditRecord & { prevHash: string }, stateHash);
  return { prevHash, hash, stateHash };
}

export function blobTooLarge(bytes: number): CalcError {
  return new CalcError('BLOB_TOO_LARGE', `blob of ${bytes} bytes exceeds the ${MAX_BLOB_BYTES}-byte limit`, {
    bytes,
    limit: MAX_BLOB_BYTES,
  });
}

export function blobId(data: Buffer): string {
  return `sha256:${hash('sha256', data, 'hex')}`;
}

/** JS string order (UTF-16 code units), as the memory store sorts; SQL collations differ. */
export function sortIds(ids: string[]): string[] {
  return ids.sort();
}

/**
 * The audit seal of a model as a durable store holds it: its head, the hash of the state text it
 * stores, and its stored checkpoint checked with the store's key.
 */
export function durableAuditSeal(
  key: AuditKey,
  modelId: string,
  head: ModelHead,
  stateText: string,
  checkpointText: string | null,
  made: MadeCheckpoint | undefined,
): AuditSeal {
  const stateHash = stateHashOf(stateText);
  return {
    head,
    stateHash,
    checkpoint: checkCheckpoint(key, modelId, { ...head, stateHash }, checkpointText, made),
    keyId: key.id,
  };
}

/**
 * The history rows (calc's history.ts) of a state text written when states carried their history
 * ring, oldest first; none for any other text. Used once, by the schema step that moves the rings.
 */
export function legacyHistoryRows(stateText: string): string[] {
  let state: unknown;
  try {
    state = JSON.parse(stateText);
  } catch {
    return [];
  }
  const ring = (state as { history?: unknown } | null)?.history;
  if (!Array.isArray(ring)) return [];
  try {
    return historyRowsOf(ring as NonNullable<RuntimeState['history']>);
  } catch {
    return []; // a ring that is not one: time travel starts afresh, nothing else depends on it
  }
}
