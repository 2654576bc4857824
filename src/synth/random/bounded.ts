/** Bounded integer draws exactly as the JDK's `RandomGenerator.nextInt(origin, bound)` makes them. */
import type { WordSource } from './random-source.js';

/**
 * Uniform int in [origin, bound) consuming the same draws as the JDK.
 * @throws RangeError when `origin >= bound`
 */
export function boundedNextInt(rng: WordSource, origin: number, bound: number): number {
  if (!(origin < bound)) throw new RangeError(`bound must be greater than origin (${origin} >= ${bound})`);
  let r = rng.nextInt();
  const n = (bound - origin) | 0;
  const m = (n - 1) | 0;
  if ((n & m) === 0) return ((r & m) + origin) | 0;
  if (n > 0) {
    // Rejection keeps the distribution exact: retry while u lands in the incomplete last block.
    let u = r >>> 1;
    for (;;) {
      r = u % n;
      if (((u + m - r) | 0) >= 0) break;
      u = rng.nextInt() >>> 1;
    }
    return (r + origin) | 0;
  }
  // Range wider than 2^31 - 1: draw until the value falls inside.
  while (r < origin || r >= bound) r = rng.nextInt();
  return r;
}
