/**
 * Time in tests, in one place. Tests never sleep to wait for something: they await the event
 * itself, or poll the observable condition (expect.poll / vi.waitFor). What remains here are
 * bounds — a step that fails with its name instead of at the test's timeout, a watchdog that kills
 * a stuck child — and a clock tests move by hand. `grep -rn setTimeout test` should show only this
 * file and fakes that stand for a slow peer.
 */

/** Fails with `step` when `work` takes longer than `ms`, instead of at the test's timeout. */
export async function within<T>(ms: number, step: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: not done within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fire` (e.g. kill a stuck child) unless cancelled within `ms`; returns the cancel. */
export function watchdog(ms: number, fire: () => void): () => void {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
}

/** A clock that stands still until the test moves it: pass `now` where code takes a clock. */
export interface ManualClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}
