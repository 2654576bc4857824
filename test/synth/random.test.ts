/** Golden vectors from the synth spec (§3.1), checked without a JDK, plus bounded-int edge cases. */
import { describe, expect, it } from 'vitest';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

const GOLDEN = [
  {
    seed: 42,
    longs: ['b2482ded0ba7ac12', 'abc6a30a803e9910', 'b52050e95869e138'],
    doubles: [
      0.6964138702129775, 0.6709997082364175, 0.7075243539515337, 0.8153563844802718, 0.5319106648945587,
      0.11074329908297398,
    ],
    gaussians: [
      -1.5950614208557887, -1.759472912314983, -1.2230970361954625, -0.24822365973111038, -1.3676831152252562,
      0.3414405565209105,
    ],
  },
  {
    seed: 7,
    longs: ['7639b5d9f4434298', '50296648df4864e5', '3af2b3646760bd80'],
    doubles: [
      0.46181809016367215, 0.3131317069922104, 0.23026581956162573, 0.36495025877290543, 0.7826034831164338,
      0.8980684733949434,
    ],
    gaussians: [
      1.2630507307055947, 0.47556442735381205, 0.7037189926848315, 0.6508011252291178, -0.4568325892828306,
      -0.3310463112218283,
    ],
  },
  {
    seed: 1,
    longs: ['e79751724d8031be', '183a3c7e4a6d3477', '0b800efa2b2de6aa'],
    doubles: [
      0.9046526817378442, 0.09463861544866314, 0.04492276771195902, 0.338641693669289, 0.715986087684651,
      0.30157880816750815,
    ],
    gaussians: [
      -0.2104599024381063, 0.3008215546680552, 0.11192945112051973, 0.8250401943556723, -0.4621844648930249,
      0.4715016543510231,
    ],
  },
];

describe('L64X128MixRandom golden vectors', () => {
  it.each(GOLDEN)('seed $seed: nextLong, nextDouble, nextGaussian', ({ seed, longs, doubles, gaussians }) => {
    const a = new L64X128MixRandom(seed);
    expect(longs.map(() => BigInt.asUintN(64, a.nextLong()).toString(16).padStart(16, '0'))).toEqual(longs);
    const b = new L64X128MixRandom(seed);
    expect(doubles.map(() => b.nextDouble())).toEqual(doubles);
    const c = new L64X128MixRandom(seed);
    expect(gaussians.map(() => c.nextGaussian())).toEqual(gaussians);
  });

  it('treats a negative seed as its two-s complement pattern', () => {
    const a = new L64X128MixRandom(-1);
    const b = new L64X128MixRandom(0xffffffffffffffffn);
    expect([a.nextLong(), a.nextLong()]).toEqual([b.nextLong(), b.nextLong()]);
  });
});

describe('bounded nextInt', () => {
  it('stays inside [origin, bound) for small, power-of-two and wide ranges', () => {
    const rng = new L64X128MixRandom(5);
    for (const [lo, hi] of [
      [1, 7],
      [0, 256],
      [-2147483648, 2147483647],
      [-10, -9],
    ] as const) {
      for (let i = 0; i < 2000; i++) {
        const v = rng.nextIntBetween(lo, hi);
        expect(v >= lo && v < hi && Number.isInteger(v)).toBe(true);
      }
    }
  });

  it('rejects an empty range', () => {
    expect(() => new L64X128MixRandom(1).nextIntBetween(3, 3)).toThrow(RangeError);
  });
});
