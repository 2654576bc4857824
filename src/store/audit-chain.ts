/**
 * The audit trail's hash chain: each record's hash covers the previous record's hash and the
 * record's own canonical JSON (which includes the hash of the state it committed), so an edited,
 * reordered or deleted record breaks every hash after it. The stores seal records (they own the
 * chain) and checkpoint its end (audit-checkpoint.ts); the service verifies both.
 */
import { hash } from 'node:crypto';
import { recordDigest } from './record-text.js';
import type { AuditRecord } from './store.js';

/**
 * The record's hash: SHA-256 of `prevHash`, a newline and the canonical JSON of the record without
 * prevHash/hash, null-valued fields left out (record-text.ts writes that text into the hash piece by piece).
 */
export function recordHash(prevHash: string, record: AuditRecord): string {
  return recordDigest(prevHash, record);
}

/**
 * The hash of a state as a store keeps it: SHA-256 of `JSON.stringify(state)`, the very text the
 * durable stores write (so hashing it costs no second serialisation, and a reload, which reads
 * that text back, hashes the same).
 */
export function stateHashOf(stateText: string): string {
  return hash('sha256', stateText, 'hex');
}

/**
 * Fixes a record's place in the chain (in place): the hash of the state it committed (durable stores;
 * the memory store has no outside writer to guard against), then its `hash` over `prevHash` and its
 * content (which includes that state hash).
 */
export function sealRecord<T extends AuditRecord & { prevHash: string }>(
  record: T,
  stateHash?: string,
): T & { hash: string } {
  if (stateHash !== undefined) record.stateHash = stateHash;
  record.hash = recordHash(record.prevHash, record);
  return record as T & { hash: string };
}
