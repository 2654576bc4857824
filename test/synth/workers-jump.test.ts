/** Jump-ahead of L64X128MixRandom: a jump of n lands where n single steps land. */
import { describe, expect, it } from 'vitest';
import { StateJump, sameState } from '../../src/synth/random/jump.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

describe('StateJump', () => {
  for (const [seed, steps] of [
    [42n, 0],
    [42n, 1],
    [-7n, 2],
    [123456789n, 37],
    [1n, 1000],
    [(1n << 63n) - 1n, 65_537],
  ] as const) {
    it(`seed ${seed}: a jump of ${steps} equals ${steps} steps`, () => {
      const rng = new L64X128MixRandom(seed);
      rng.nextDouble(); // start mid-stream
      const start = rng.saveState();
      for (let i = 0; i < steps; i++) rng.step();
      const jumped = new StateJump(steps).apply(start);
      expect(Array.from(jumped)).toEqual(Array.from(rng.saveState()));
      // and the stream continues identically from the jumped state
      const other = new L64X128MixRandom(0n);
      other.restoreState(jumped);
      expect(other.nextLong()).toBe(rng.nextLong());
    });
  }

  it('tells states apart', () => {
    const rng = new L64X128MixRandom(5n);
    const a = rng.saveState();
    rng.step();
    expect(sameState(a, rng.saveState())).toBe(false);
    expect(sameState(a, new StateJump(0).apply(a))).toBe(true);
  });
});
