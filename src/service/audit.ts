/**
 * Audit records: built here for each committed cycle (the store seals them into its hash chain),
 * verified and queried here.
 */
import { type DerivationTrace, type JsonValue, type MutationResult } from '../calc/index.js';
import { recordHash } from '../store/audit-chain.js';
import { GENESIS_HASH, type AuditQuery, type AuditRecord } from '../store/store.js';

export { recordHash };

let secondStart = Number.NaN;
let secondText = '';

/** `new Date(ms).toISOString()`, reusing the text up to the seconds within one second. */
export function isoTimestamp(ms: number): string {
  const millis = ((ms % 1000) + 1000) % 1000;
  const start = ms - millis;
  if (start !== secondStart) {
    secondStart = start;
    secondText = new Date(start).toISOString().slice(0, -4); // drops "mmmZ", keeps the dot
  }
  return `${secondText}${String(millis).padStart(3, '0')}Z`;
}

/**
 * Builds the record of one committed cycle, to follow the record whose hash is `prevHash`. Its own
 * hash is the store's to set (`Store.commitCycle`).
 */
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
    timestamp: isoTimestamp(input.now?.getTime() ?? Date.now()),
    modelVersion: input.modelVersion,
    source: input.source,
    mutations: input.mutations as Record<string, JsonValue>,
    derivedUpdated: input.result.derivedUpdated,
    flaggedConstraints: input.result.flaggedConstraints.map((f) => f.constraintId),
    dispatchedEffects: input.result.dispatchedEffects.map((d) => d.effectId),
    traces: input.result.traces as unknown as JsonValue[],
  };
  record.prevHash = input.prevHash;
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
