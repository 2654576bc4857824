/**
 * What the calc service tells the outside about its writes: the observer (metrics, issue 28) and
 * the dispatch hooks (the effect runner, issue 23). Injected, so the service knows no metrics
 * library and no runner.
 */
import type { DispatchedEffect } from '../calc/index.js';

/** How a write ended: committed, rolled back by a constraint, or refused for any other reason. */
export type CycleOutcome = 'committed' | 'rolled_back' | 'failed';

/**
 * Told of each write as it ends (metrics, issue 28); injected so the service knows no metrics
 * library. Calls are synchronous and must not throw.
 */
export interface CalcObserver {
  /** A write ended; `seconds` from its start (lock held) to its outcome, retries included. */
  cycle(modelId: string, outcome: CycleOutcome, seconds: number): void;
  /** One compare-and-set commit answered by the store. */
  storeCommit(seconds: number): void;
  /** Another writer got there first: the cycle runs again on fresh state. */
  retry(modelId: string): void;
}

export const NO_OBSERVER: CalcObserver = { cycle() {}, storeCommit() {}, retry() {} };

export const secondsSince = (started: number): number => (performance.now() - started) / 1000;

/**
 * Told of the effects a committed cycle dispatched (the effect runner, issue 23). Called while the
 * model lock is held: it must only schedule work, never wait on the model, and must not throw.
 */
export type DispatchHook = (modelId: string, effects: DispatchedEffect[]) => void;
