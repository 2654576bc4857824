/**
 * Per-model serialisation: calls on one model run one at a time in arrival order; different
 * models run independently. A bounded queue turns overload into a clear refusal (BUSY), not an
 * unbounded backlog.
 */
import { CalcError } from '../calc/index.js';

export const MUTATION_QUEUE_SIZE = 10;

export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly pending = new Map<string, number>();

  constructor(private readonly capacity = MUTATION_QUEUE_SIZE) {}

  /**
   * Runs `task` after every earlier task for `key` has settled.
   * @throws CalcError (BUSY) when `capacity` tasks are already waiting or running for the key
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const waiting = this.pending.get(key) ?? 0;
    if (waiting >= this.capacity) {
      return Promise.reject(
        new CalcError('BUSY', `model '${key}' has ${waiting} operations queued; retry shortly`),
      );
    }
    this.pending.set(key, waiting + 1);
    const previous = this.tails.get(key);
    // nothing queued: start at once rather than a turn of the microtask queue later
    const result = previous ? previous.then(task, task) : start(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      const left = (this.pending.get(key) ?? 1) - 1;
      if (left === 0) {
        this.pending.delete(key);
        if (this.tails.get(key) === tail) this.tails.delete(key);
      } else this.pending.set(key, left);
    });
    return result;
  }
}

function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
