// CPU time readings for the benches: the whole process, and each thread (Linux /proc).
import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds of the whole process (every thread, workers that ended included). */
export function processCpu() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** CPU seconds of a thread from its /proc stat line (utime + stime, ticks of 10 ms). */
function statCpu(path) {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of every thread of this process by thread id (Linux /proc; empty elsewhere). */
export function threadsCpu() {
  const cpu = new Map();
  try {
    for (const tid of readdirSync('/proc/self/task')) cpu.set(tid, statCpu(`/proc/self/task/${tid}/stat`));
  } catch {
    // no /proc (or a thread ended between the listing and the read): what was read is kept
  }
  return cpu;
}

/**
 * This thread's CPU time in milliseconds, from /proc/thread-self/schedstat (nanoseconds, unlike the
 * 10 ms ticks of stat); wall time where there is no /proc.
 */
export function threadCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return performance.now();
  }
}
