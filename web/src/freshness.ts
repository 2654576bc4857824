/**
 * How current a stored model's card is. The model may change after the card opened (the agent's
 * next mutate, another person's edit), so the card reads it back when it opens, when it is shown
 * or focused again, and every REFRESH_MS while it is visible; it says whether the last read worked.
 * A stateless card is computed from its own inputs and is never out of date.
 */
import { useEffect, useRef, useState } from 'react';

export const REFRESH_MS = 10_000;

export interface Freshness {
  /** live: the last read worked; stale: it failed (the card shows what it read before). */
  status: 'checking' | 'live' | 'stale';
  /** When the card last read the model successfully (epoch ms). */
  readAt?: number;
}

/**
 * Reads the model back through `read` (true when the answer was applied) while `enabled`; skips a
 * turn while `paused` (an edit is on its way, and its answer brings the model back anyway).
 */
export function useFreshness(enabled: boolean, paused: boolean, read: () => Promise<boolean>): Freshness {
  const [freshness, setFreshness] = useState<Freshness>({ status: 'checking' });
  const state = useRef({ paused, read, inFlight: false });
  state.current.paused = paused;
  state.current.read = read;

  useEffect(() => {
    if (!enabled) return;
    // the timer skips a card nobody sees; opening, focus and being shown again always read
    const check = (fromTimer = false): void => {
      const s = state.current;
      if (s.paused || s.inFlight || (fromTimer && document.visibilityState === 'hidden')) return;
      s.inFlight = true;
      void s
        .read()
        .catch(() => false)
        .then((ok) =>
          setFreshness((old) => (ok ? { status: 'live', readAt: Date.now() } : { ...old, status: 'stale' })),
        )
        .finally(() => {
          s.inFlight = false;
        });
    };
    const onFocus = (): void => check();
    check();
    const timer = setInterval(() => check(true), REFRESH_MS);
    const onVisible = (): void => {
      if (document.visibilityState === 'visible') check();
    };
    window.addEventListener('focus', onFocus);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      window.removeEventListener('focus', onFocus);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [enabled]);
  return freshness;
}
