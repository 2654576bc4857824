/**
 * A bounded queue with one worker: jobs run strictly one after another, and a job offered while
 * `maxPending` are already waiting is refused at once (BUSY) rather than queued without limit.
 */
import { SynthServiceError } from './synth-errors.js';

export class WorkQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private running = false;

  constructor(readonly maxPending: number) {}

  /** Runs `job` after every job offered before it. @throws SynthServiceError BUSY when full */
  run<T>(job: () => Promise<T>): Promise<T> {
    if (this.waiting >= this.maxPending)
      throw new SynthServiceError(
        'BUSY',
        `the generation queue is full (${this.maxPending} waiting); retry shortly`,
        { maxPending: this.maxPending },
      );
    this.waiting++;
    const result = this.tail.then(async () => {
      this.waiting--;
      this.running = true;
      try {
        return await job();
      } finally {
        this.running = false;
      }
    });
    this.tail = result.catch(() => {});
    return result;
  }

  /** Jobs waiting plus the one running. */
  get depth(): number {
    return this.waiting + (this.running ? 1 : 0);
  }

  /** Resolves once every job offered so far has settled. */
  async idle(): Promise<void> {
    await this.tail;
  }
}
