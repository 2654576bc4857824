/**
 * A bounded queue with one worker: jobs run strictly one after another, and a job offered while
 * `maxPending` are already waiting behind the running one is refused at once (BUSY) rather than
 * queued without limit.
 */
import { SynthServiceError } from './synth-errors.js';

export class WorkQueue {
  private readonly pending: (() => void)[] = [];
  private active = false;
  private idleWaiters: (() => void)[] = [];

  constructor(readonly maxPending: number) {}

  /** Runs `job` after every job offered before it. @throws SynthServiceError BUSY when full */
  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active && this.pending.length >= this.maxPending)
      throw new SynthServiceError(
        'BUSY',
        `the generation queue is full (${this.maxPending} waiting); retry shortly`,
        { maxPending: this.maxPending },
      );
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        this.active = true;
        job()
          .then(resolve, reject)
          .finally(() => this.next());
      };
      if (this.active) this.pending.push(start);
      else start();
    });
  }

  private next(): void {
    this.active = false;
    const start = this.pending.shift();
    if (start) start();
    else {
      for (const wake of this.idleWaiters) wake();
      this.idleWaiters = [];
    }
  }

  /** Jobs waiting plus the one running. */
  get depth(): number {
    return this.pending.length + (this.active ? 1 : 0);
  }

  /** Resolves once no job is running or waiting. */
  idle(): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
