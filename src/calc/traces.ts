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

/**
 * Where an expression result holds a number JSON cannot (`1/0` is Infinity, `0/0` NaN in JSONata):
 * a message naming the first such place, or null. The stored value has null there, so the trace
 * says why instead of leaving a silent null.
 */
export function nonFiniteMessage(value: unknown): string | null {
  // most results are one number or a plain scalar: no walk, no allocation
  if (typeof value !== 'object' || value === null) {
    if (typeof value !== 'number' || Number.isFinite(value)) return null;
  }
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
      const what = Number.isNaN(v) ? 'NaN (0/0 or arithmetic on a non-number)' : `${v} (a division by zero?)`;
      return `the result${at === '' ? '' : ` at ${at}`} is ${what}, which JSON cannot hold: stored as null`;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`]);
    else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push([(v as Record<string, unknown>)[keys[i]!], `${at}.${keys[i]!}`]);
    }
  }
  return null;
}
