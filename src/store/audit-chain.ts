/**
 * The audit trail's hash chain: each record's hash covers the previous record's hash and the
 * record's own canonical JSON, so an edited, reordered or deleted record breaks every hash after
 * it. The stores seal records (they own the chain); the service verifies it.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../calc/index.js';
import type { AuditRecord } from './store.js';

/**
 * The hashed content: the record without prevHash/hash, null-valued fields left out; keys inserted
 * in sorted order so canonicalJson need not copy it again.
 */
function hashedContent(record: AuditRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(record).sort()) {
    const v = (record as unknown as Record<string, unknown>)[k];
    if (k === 'prevHash' || k === 'hash' || v === null || v === undefined) continue;
    out[k] = v;
  }
  return out;
}

export function recordHash(prevHash: string, record: AuditRecord): string {
  // one-shot hash: half the cost of createHash().update().digest() on a record this size
  return hash('sha256', `${prevHash}\n${canonicalJson(hashedContent(record))}`, 'hex');
}

/** Fixes a record's place in the chain: its `hash` over `prevHash` and its content (in place). */
export function sealRecord<T extends AuditRecord & { prevHash: string }>(record: T): T & { hash: string } {
  record.hash = recordHash(record.prevHash, record);
  return record as T & { hash: string };
}
