/**
 * Audit records: built here for each committed change (the store seals them into its hash chain
 * and checkpoints the chain's end), verified and queried here.
 */
import {
  CalcError,
  type DerivationTrace,
  type JsonObject,
  type JsonValue,
  type MutationResult,
} from '../calc/index.js';
import { recordHash } from '../store/audit-chain.js';
import type { CheckpointProblem } from '../store/audit-checkpoint.js';
import {
  GENESIS_HASH,
  type AuditQuery,
  type AuditRecord,
  type AuditSeal,
  type Store,
} from '../store/store.js';

export { recordHash };

/**
 * The audit trail's clock and its text: `new Date(ms).toISOString()`, reusing the text up to the
 * seconds within one second. Each service owns one (the reused text is its own, not the process's).
 */
export class AuditTimestamps {
  private secondStart = Number.NaN;
  private secondText = '';

  constructor(private readonly now: () => number = Date.now) {}

  /** The text of `ms`. */
  format(ms: number): string {
    const millis = ((ms % 1000) + 1000) % 1000;
    const start = ms - millis;
    if (start !== this.secondStart) {
      this.secondStart = start;
      this.secondText = new Date(start).toISOString().slice(0, -4); // drops "mmmZ", keeps the dot
    }
    return `${this.secondText}${String(millis).padStart(3, '0')}Z`;
  }

  /** The text of the clock's present moment. */
  current(): string {
    return this.format(this.now());
  }
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
  /** The service's timestamps (its clock); a fresh one on Date.now when absent. */
  timestamps?: AuditTimestamps;
  /** What caused the change (a link's source model and effect, an approval); see AuditRecord.origin. */
  origin?: JsonObject;
}): AuditRecord {
  const timestamps = input.timestamps ?? new AuditTimestamps();
  const record: AuditRecord = {
    modelId: input.modelId,
    sequence: input.sequence,
    timestamp: input.now ? timestamps.format(input.now.getTime()) : timestamps.current(),
    modelVersion: input.modelVersion,
    source: input.source,
    mutations: input.mutations as Record<string, JsonValue>,
    derivedUpdated: input.result.derivedUpdated,
    flaggedConstraints: input.result.flaggedConstraints.map((f) => f.constraintId),
    dispatchedEffects: input.result.dispatchedEffects.map((d) => d.effectId),
    traces: input.result.traces as unknown as JsonValue[],
  };
  if (input.origin !== undefined) record.origin = input.origin;
  record.prevHash = input.prevHash;
  return record;
}

/**
 * Builds the record of a restore or an evolution: the state (and spec) replaced as a whole, no
 * writes listed. Every committed change of state has a record, so the newest record's stateHash is
 * always the stored state's.
 */
export function buildReplaceRecord(input: {
  modelId: string;
  sequence: number;
  modelVersion: string;
  source: 'restore' | 'evolution' | 'approval';
  prevHash: string;
  origin?: JsonObject;
  now?: Date;
  timestamps?: AuditTimestamps;
}): AuditRecord {
  const nothingWritten: MutationResult = {
    success: true,
    mutatedPaths: [],
    derivedUpdated: [],
    metaUpdated: [],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: [],
  };
  return buildAuditRecord({ ...input, mutations: {}, result: nothingWritten });
}

export interface AuditVerification {
  valid: boolean;
  recordsChecked: number;
  firstBrokenSequence: number | null;
  detail: string;
  /**
   * The id of the audit key the checkpoint was checked with (derived from the key, never the key):
   * the current key, or a retired one for a checkpoint made before a rotation. Absent for a store
   * that keeps no checkpoints (memory).
   */
  keyId?: string;
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

const BREAK_CAUSE: Record<CheckpointProblem, string> = {
  missing: 'its audit checkpoint was missing',
  unreadable: 'its audit checkpoint was unreadable',
  'other-key': 'its audit checkpoint was made with another audit key',
  forged: 'its audit checkpoint had been edited',
  trail: 'its trail had been rewritten',
  state: 'its state had been edited',
};

/**
 * The whole verdict on a trail read with its seal (`Store.auditSeal`, read first): the hash chain,
 * its length and end against the model's head, the stored state against the newest record's
 * stateHash, then the keyed checkpoint. The first failure wins.
 */
export function verifyTrail(records: readonly AuditRecord[], seal: AuditSeal): AuditVerification {
  const verdict = trailVerdict(records, seal);
  const check = seal.checkpoint;
  // a checkpoint of this store's keys names the key that checked it; otherwise the current key did
  const keyId = 'checkpoint' in check ? check.checkpoint.keyId : seal.keyId;
  return keyId === undefined ? verdict : { ...verdict, keyId };
}

function trailVerdict(records: readonly AuditRecord[], seal: AuditSeal): AuditVerification {
  const chain = verifyChain(records);
  if (!chain.valid) return chain;
  const { head } = seal;
  const committed = head.nextSequence;
  const broken = (firstBrokenSequence: number | null, detail: string): AuditVerification => ({
    valid: false,
    recordsChecked: records.length,
    firstBrokenSequence,
    detail,
  });
  // a trail cut or extended at its end still chains; the model's head says where it ends
  if (records.length < committed)
    return broken(
      records.length,
      `the trail ends at sequence ${records.length - 1} but the model has committed ${committed} cycles (records deleted from the end)`,
    );
  if (records.length > committed)
    return broken(
      committed,
      `the trail runs to sequence ${records.length - 1} but the model has committed ${committed} cycles (records added at the end)`,
    );
  const newest = records[records.length - 1];
  if ((newest?.hash ?? GENESIS_HASH) !== head.lastHash)
    return broken(
      records.length - 1,
      'the newest record is not the one the model committed (replaced at the end)',
    );
  if (newest?.stateHash !== undefined && seal.stateHash !== undefined && newest.stateHash !== seal.stateHash)
    return broken(
      null,
      `the stored state is not the state record ${newest.sequence} committed: it was edited outside the server`,
    );
  const check = seal.checkpoint;
  switch (check.status) {
    case 'not-kept':
      return chain;
    case 'missing':
      return broken(null, 'the model has no audit checkpoint: it was removed outside the server');
    case 'unreadable':
      return broken(null, "the model's audit checkpoint is unreadable: it was edited outside the server");
    case 'other-key':
      return broken(
        null,
        `the model's audit checkpoint was made with audit key ${check.keyId}, not this server's key ${seal.keyId}: the server runs with the wrong key, or the checkpoint was replaced`,
      );
    case 'forged':
      return broken(
        null,
        "the model's audit checkpoint does not verify with this server's audit key: it was edited outside the server",
      );
    case 'trail':
      return broken(
        null,
        `the trail does not end where the audit checkpoint says (${check.checkpoint.nextSequence} records): records were rewritten, removed or added and the hashes recomputed without the audit key`,
      );
    case 'state':
      return broken(
        null,
        'the stored state is not the state the audit checkpoint covers: it was edited outside the server',
      );
    case 'valid': {
      const b = check.checkpoint.broken;
      if (b) {
        return broken(
          b.sequence,
          `cycle ${b.sequence} was committed on a model changed outside the server (${BREAK_CAUSE[b.reason]}): the trail cannot be vouched for from there on`,
        );
      }
      return chain;
    }
  }
}

/** How often a trail is read again when cycles keep committing while it is read. */
const VERIFY_READS = 4;

/**
 * Reads the seal, then the trail, and verifies them. A cycle committed between the two reads makes
 * the trail longer than the seal's head: both are read again rather than called tampered.
 * @throws CalcError MODEL_NOT_FOUND
 */
export async function verifyStoredTrail(store: Store, id: string): Promise<AuditVerification> {
  for (let read = 1; ; read++) {
    const seal = await store.auditSeal(id);
    if (!seal) throw new CalcError('MODEL_NOT_FOUND', `Model not found: ${id}`, { id });
    const records = await store.auditRecords(id);
    if (records.length > seal.head.nextSequence && read < VERIFY_READS) continue;
    return verifyTrail(records, seal);
  }
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
