/**
 * Sampling for the `llm` effect under MCP 2026-07-28, where a server can no longer send a request
 * to its client: a completion the executor needs is parked here, and the next tool call of a
 * client that samples carries it out as an `input_required` result (a multi-round trip); the
 * client's answer, sent with its retry of that call, settles the parked request. Engine-neutral:
 * requests and answers are plain JSON (the MCP surface shapes them).
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../calc/index.js';

/** How long a 2026-07-28 client that samples counts as present after its last request. */
const PRESENCE_MS = 10 * 60_000;
/** Parked requests kept at most; older ones are refused (their effects end blocked). */
const MAX_PARKED = 256;

/** A parked completion request: its key (the `inputRequests` key) and `sampling/createMessage` params. */
export interface ParkedSampling {
  key: string;
  params: JsonObject;
}

interface Waiting extends ParkedSampling {
  /** Handed to a client already (not offered twice; its answer may still come). */
  handedOut: boolean;
  settle: (answer: unknown) => void;
  fail: (error: Error) => void;
}

export class SamplingQueue {
  private lastSeen = Number.NEGATIVE_INFINITY;
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A 2026-07-28 client that samples has just made a request. */
  seen(): void {
    this.lastSeen = this.now();
  }

  /** Whether a client that samples in band is about (one made a request within ten minutes). */
  get available(): boolean {
    return this.now() - this.lastSeen <= PRESENCE_MS;
  }

  /**
   * Parks a completion request until a client answers it, `timeoutMs` passes or `signal` aborts.
   * Resolves with the client's bare `sampling/createMessage` result (unchecked: the caller reads it).
   */
  ask(params: JsonObject, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    if (this.waiting.size >= MAX_PARKED)
      return Promise.reject(new Error('too many completions are already waiting for a client'));
    return new Promise((resolve, reject) => {
      const key = `llm-${randomUUID()}`;
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(key);
      };
      const onAbort = (): void => {
        done();
        reject(new Error('the run was stopped'));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no client answered within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(key, {
        key,
        params,
        handedOut: false,
        settle: (answer) => {
          done();
          resolve(answer);
        },
        fail: (error) => {
          done();
          reject(error);
        },
      });
      for (const listener of this.listeners) listener();
    });
  }

  /** The parked requests no client has been handed yet, now marked handed out. */
  take(): ParkedSampling[] {
    const out: ParkedSampling[] = [];
    for (const w of this.waiting.values())
      if (!w.handedOut) {
        w.handedOut = true;
        out.push({ key: w.key, params: w.params });
      }
    return out;
  }

  /**
   * Waits up to `ms` for at least `count` requests not yet handed out (the llm runs a write has
   * just dispatched park a moment later); resolves with how many there are then.
   */
  async parked(count: number, ms: number): Promise<number> {
    const ready = (): number => [...this.waiting.values()].filter((w) => !w.handedOut).length;
    if (ready() >= count) return ready();
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (ready() < count) return;
        finish();
      };
      const finish = (): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      timer.unref();
      this.listeners.add(check);
    });
    return ready();
  }

  /**
   * Settles the parked request `key` with the client's answer; false when this process holds no
   * such request (answered already, timed out, or parked by another process).
   */
  answer(key: string, answer: unknown): boolean {
    const w = this.waiting.get(key);
    if (!w) return false;
    w.settle(answer);
    return true;
  }

  /** Ends the parked request `key` with the client's refusal. */
  refuse(key: string, reason: string): boolean {
    const w = this.waiting.get(key);
    if (!w) return false;
    w.fail(new Error(reason));
    return true;
  }
}
