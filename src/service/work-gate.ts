/**
 * A bound on heavy operations running at once (issue 47): `running` jobs at a time, up to `queue`
 * more waiting in order, and anything past that refused at once as BUSY with a hint of when to
 * retry, instead of every job slowing every other down until all of them hit their time limits.
 * A caller that cancels while it waits leaves the queue; progress and cancellation of a running
 * job are the job's own.
 */

export interface GateLimits {
  /** Jobs running at once. */
  running: number;
  /** Jobs waiting for a free slot; one more is refused. */
  queue: number;
}

/** The settings of one gate: their names (for messages and the environment) and defaults. */
export interface GateSettings {
  runningEnv: string;
  queueEnv: string;
  defaults: GateLimits;
}

/** The limits of a gate from the environment. @throws Error naming a bad setting */
export function gateLimitsFromEnv(settings: GateSettings, env: NodeJS.ProcessEnv = process.env): GateLimits {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const text = env[name]?.trim();
    if (!text) return fallback;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max)
      throw new Error(`${name} must be a whole number from ${min} to ${max} (got '${text}')`);
    return n;
  };
  return {
    running: read(settings.runningEnv, settings.defaults.running, 1, 256),
    queue: read(settings.queueEnv, settings.defaults.queue, 0, 10_000),
  };
}

/** Builds the caller's BUSY error (CalcError or SynthServiceError) from a message and the hint. */
export type BusyError = (message: string, details: { retryAfterSeconds: number }) => Error;

interface Waiter {
  start: () => void;
}

export class WorkGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** A moving average of how long a job took, for the retry hint (1 s until one has finished). */
  private averageMs = 1000;

  constructor(
    private readonly what: string,
    readonly limits: GateLimits,
    private readonly settings: GateSettings,
    private readonly busy: BusyError,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Jobs running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Seconds after which a refused caller may find a free slot: the queue ahead, at the average pace. */
  retryAfterSeconds(): number {
    const ahead = this.waiting.length + 1;
    const seconds = Math.ceil((this.averageMs * ahead) / this.limits.running / 1000);
    return Math.min(600, Math.max(1, seconds));
  }

  /**
   * Runs `job` once a slot is free.
   * @throws the BUSY error when `running` jobs run and `queue` wait; the signal's reason when the
   *   caller cancels while waiting
   */
  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.limits.running) {
      if (this.waiting.length >= this.limits.queue) {
        const retryAfterSeconds = this.retryAfterSeconds();
        throw this.busy(
          `${this.running} ${this.what} running and ${this.waiting.length} waiting, the most this server takes (${this.settings.runningEnv}=${this.limits.running}, ${this.settings.queueEnv}=${this.limits.queue}); retry in about ${retryAfterSeconds} s`,
          { retryAfterSeconds },
        );
      }
      await this.waitForSlot(signal);
    } else this.running++;
    const started = this.now();
    try {
      return await job();
    } finally {
      this.averageMs = 0.7 * this.averageMs + 0.3 * (this.now() - started);
      const next = this.waiting.shift();
      if (next)
        next.start(); // the slot passes on: `running` stays
      else this.running--;
    }
  }

  private waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        const reason: unknown = signal!.reason;
        reject(reason instanceof Error ? reason : new Error('cancelled while waiting for a slot'));
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
