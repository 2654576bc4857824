/** Derivation traces, the bounded ring the explain tool reads, and the per-cycle history. */
import type { ReplayEntry, StoredReplayEntry } from './document.js';

export interface DerivationTrace {
  targetPath: string;
  expression: string;
  inputPaths: string[];
  result: unknown;
  constraintPassed: boolean | null;
  errorMessage: string | null;
}

/** A bounded list keeping the newest `capacity` items. */
export class Ring<T> {
  private items: T[] = [];
  constructor(readonly capacity: number) {}
  push(...values: T[]): void {
    this.pushAll(values);
  }
  /** Appends a whole batch (a loop: spreading 10^5 items into push overflows the stack). */
  pushAll(values: readonly T[]): void {
    if (values.length > this.capacity) values = values.slice(-this.capacity);
    for (const v of values) this.items.push(v);
    // trim in batches so a long run does not shift the array on every push
    if (this.items.length > this.capacity + 64) this.items = this.items.slice(-this.capacity);
  }
  toArray(): T[] {
    return this.items.length > this.capacity ? this.items.slice(-this.capacity) : this.items.slice();
  }
  clear(): void {
    this.items = [];
  }
  get size(): number {
    return Math.min(this.items.length, this.capacity);
  }
}

/** One committed cycle: when, and how to rewind the merged document to just before it. */
export interface HistoryEntry {
  timestamp: number;
  /** Merged-document changes made by the cycle. */
  changes: ReplayEntry[];
  /** Changes made after the cycle but before the next one (lazy values, create's recompute). */
  after: ReplayEntry[];
  /** The previous entry's `after` (the same array), which a stored row carries (history.ts). */
  before?: ReplayEntry[];
}

/** A history entry as JSON, as a loaded state carries it (a durable store rebuilds it from rows). */
export interface StoredHistoryEntry {
  timestamp: number;
  changes: StoredReplayEntry[];
  after: StoredReplayEntry[];
}

export const TRACE_CAPACITY = 500;
export const HISTORY_CAPACITY = 50;
