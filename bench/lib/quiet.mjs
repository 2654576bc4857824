// Waiting for a shared box's cores to be idle before a timed run (the benches of synth workers).
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** Idle cores over the last half second, from /proc/stat (undefined without it). */
export function idleCores() {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), idle: f[3] + f[4] };
  };
  try {
    const a = read();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    const b = read();
    return ((b.idle - a.idle) / Math.max(1, b.total - a.total)) * availableParallelism();
  } catch {
    return undefined;
  }
}

/** Runs that had to start on a busy box (after waiting), for the benches to print. */
export const quiet = { busyStarts: 0 };

/** Seconds to wait for idle cores before a run (BENCH_QUIET_WAIT; 0 never waits). */
export const WAIT = Number(process.env.BENCH_QUIET_WAIT ?? 20);

/**
 * Waits up to 20 s (BENCH_QUIET_WAIT) for the other processes of a shared box to leave the cores free, so that a run
 * is not timed while someone else's burst takes a core (it changes when a run starts, not what is
 * timed); counts the runs that had to start on a busy box anyway.
 */
export function awaitQuiet() {
  for (const until = Date.now() + WAIT * 1000; Date.now() < until;) {
    const idle = idleCores();
    if (idle === undefined || idle >= availableParallelism() - 0.2) return;
  }
  if (WAIT > 0) quiet.busyStarts++;
}
