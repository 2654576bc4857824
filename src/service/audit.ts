/**
 * The audit trail's hash chain: each record's hash covers the previous hash and the record's own
 * canonical JSON, so an edited, reordered or deleted record breaks every hash after it.
 */
import { hash } from 'node:crypto';
import { canonicalJson, type DerivationTrace, type JsonValue, type MutationResult } from '../calc/index.js';
import { GENESIS_HASH, type AuditQuery, type AuditRecord } from '../store/store.js';

/** The hashed content: the record without prevHash/hash, null-valued fields left out. */
function hashedContent(record: AuditRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (k === 'prevHash' || k === 'hash' || v === null || v === undefined) continue;
    out[k] = v;
  }
  return out;
}

export function recordHash(prevHash: string, record: AuditRecord): string {
  // one-shot hash: half the cost of createHash().update().digest() on a record this size
  return hash('sha256', `${prevHash}\n${canonicalJson(hashedContent(record))}`, 'hex');
}

/** Builds the record of one committed cycle and chains it after `prevHash`. */
export function buildAuditRecord(input: {
  modelId: string;
  sequence: number;
  modelVersion: string;
  source: AuditRecord['source'];
  mutations: Record<string, unknown>;
  result: MutationResult;
  prevHash: string;
  now?: Date;
}): AuditRecord {
  const record: AuditRecord = {
    modelId: input.modelId,
    sequence: input.sequence,
    timestamp: (input.now ?? new Date()).toISOString(),
    modelVersion: input.modelVersion,
    source: input.source,
    mutations: input.mutations as Record<string, JsonValue>,
    derivedUpdated: input.result.derivedUpdated,
    flaggedConstraints: input.result.flaggedConstraints.map((f) => f.constraintId),
    dispatchedEffects: input.result.dispatchedEffects.map((d) => d.effectId),
    traces: input.result.traces as unknown as JsonValue[],
  };
  record.prevHash = input.prevHash;
  record.hash = recordHash(input.prevHash, record);
  return record;
}

export interface AuditVerification {
  valid: boolean;
  recordsChecked: number;
  firstBrokenSequence: number | null;
  detail: string;
}

/** Walks the chain in ascending order; the first failure wins. */
export function verifyChain(records: readonly AuditRecord[]): AuditVerification {
  let expectedPrev = GENESIS_HASH;
  let checked = 0;
  for (const [i, r] of records.entries()) {
    checked++;
    const broken = (detail: string): AuditVerification => ({
      valid: false,
      recordsChecked: checked,
      firstBrokenSequence: typeof r.sequence === 'number' ? r.sequence : i,
      detail,
    });
    if (typeof r.hash !== 'string' || typeof r.prevHash !== 'string')
      return broken('record is not hash-chained');
    if (r.prevHash !== expectedPrev || r.sequence !== i)
      return broken('prevHash does not match the preceding record (reorder or deletion)');
    if (recordHash(r.prevHash, r) !== r.hash) return broken('content hash mismatch (record was altered)');
    expectedPrev = r.hash;
  }
  return { valid: true, recordsChecked: checked, firstBrokenSequence: null, detail: 'ok' };
}

export const MAX_AUDIT_LIMIT = 10_000;

/** Filters AND-ed; newest first; `limit` capped. */
export function queryAudit(records: readonly AuditRecord[], q: AuditQuery): AuditRecord[] {
  const from = q.from ? Date.parse(q.from) : undefined;
  const to = q.to ? Date.parse(q.to) : undefined;
  const matchesPath = (r: AuditRecord): boolean => {
    const p = q.pathPrefix;
    if (!p) return true;
    return (
      Object.keys(r.mutations).some((k) => k.startsWith(p)) ||
      r.derivedUpdated.some((d) => d.startsWith(p)) ||
      r.traces.some(
        (t) =>
          typeof (t as unknown as DerivationTrace).targetPath === 'string' &&
          (t as unknown as DerivationTrace).targetPath.startsWith(p),
      )
    );
  };
  const out: AuditRecord[] = [];
  for (let i = records.length - 1; i >= 0 && out.length < Math.min(q.limit, MAX_AUDIT_LIMIT); i--) {
    const r = records[i]!;
    const t = Date.parse(r.timestamp);
    if (from !== undefined && t < from) continue;
    if (to !== undefined && t >= to) continue;
    if (!matchesPath(r)) continue;
    out.push(r);
  }
  return out;
}
