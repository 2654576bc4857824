/**
 * The synth RNG and Java double formatting against JDK facts stored in the repository
 * (test/golden/jdk-vectors.json, produced as test/golden/README.md says). Needs neither a JDK nor
 * ../shared, so a changed bit in any draw path fails on every machine.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { javaDoubleToString } from '../../src/synth/random/java-double.js';

type Stream = 'nextLong' | 'nextInt' | 'nextDouble' | 'nextGaussian' | 'nextExponential' | 'nextIntBounded';
type First = { seed: string; mixed: string[] } & Record<Stream, (string | number)[]>;
interface Golden {
  jdk: string;
  bounds: [number, number][];
  first: First[];
  runLength: number;
  sha256: ({ seed: string } & Record<Stream, string>)[];
  doubleToString: [string, string][];
}

const GOLDEN = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'golden', 'jdk-vectors.json'), 'utf8'),
) as Golden;
const STREAMS: readonly Stream[] = [
  'nextLong',
  'nextInt',
  'nextDouble',
  'nextGaussian',
  'nextExponential',
  'nextIntBounded',
];

const bits = (d: number): bigint => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(d);
  return b.readBigInt64BE();
};
const hex = (v: bigint): string => BigInt.asUintN(64, v).toString(16).padStart(16, '0');

/** One draw of a stream as the signed 64-bit value the Java side wrote (doubles as raw bits). */
function draw(rng: L64X128MixRandom, stream: Stream, i: number): bigint {
  switch (stream) {
    case 'nextLong':
      return rng.nextLong();
    case 'nextInt':
      return BigInt(rng.nextInt());
    case 'nextDouble':
      return bits(rng.nextDouble());
    case 'nextGaussian':
      return bits(rng.nextGaussian());
    case 'nextExponential':
      return bits(rng.nextExponential());
    case 'nextIntBounded': {
      const [origin, bound] = GOLDEN.bounds[i % GOLDEN.bounds.length]!;
      return BigInt(rng.nextIntBetween(origin, bound));
    }
  }
}

const asJson = (stream: Stream, v: bigint): string | number =>
  stream === 'nextInt' || stream === 'nextIntBounded' ? Number(v) : hex(v);

describe(`L64X128MixRandom against stored JDK vectors (${GOLDEN.jdk})`, () => {
  it.each(GOLDEN.first.map((f) => [f.seed, f] as const))('seed %s: first draws of every method', (_s, f) => {
    for (const stream of STREAMS) {
      const rng = new L64X128MixRandom(BigInt(f.seed));
      const ours = f[stream].map((_v, i) => asJson(stream, draw(rng, stream, i)));
      expect(ours, stream).toEqual(f[stream]);
    }
    const rng = new L64X128MixRandom(BigInt(f.seed));
    const mixed = f.mixed.map((_v, i) =>
      hex(draw(rng, STREAMS[i % STREAMS.length]!, Math.floor(i / STREAMS.length))),
    );
    expect(mixed, 'methods interleaved on one generator').toEqual(f.mixed);
  });

  it.each(GOLDEN.sha256.map((h) => [h.seed, h] as const))(
    `seed %s: SHA-256 of ${GOLDEN.runLength} draws per method (rare ziggurat and rejection paths)`,
    (_s, h) => {
      const buf = Buffer.alloc(GOLDEN.runLength * 8);
      for (const stream of STREAMS) {
        const rng = new L64X128MixRandom(BigInt(h.seed));
        for (let i = 0; i < GOLDEN.runLength; i++)
          buf.writeBigInt64BE(BigInt.asIntN(64, draw(rng, stream, i)), i * 8);
        expect(createHash('sha256').update(buf).digest('hex'), stream).toBe(h[stream]);
      }
    },
  );
});

describe(`javaDoubleToString against stored Double.toString output (${GOLDEN.jdk})`, () => {
  it(`prints all ${GOLDEN.doubleToString.length} stored values as the JDK does`, () => {
    const wrong: string[] = [];
    for (const [h, text] of GOLDEN.doubleToString) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(`0x${h}`));
      const ours = javaDoubleToString(b.readDoubleBE());
      if (ours !== text) wrong.push(`${h}: ours ${ours}, JDK ${text}`);
    }
    expect(wrong.slice(0, 20), `${wrong.length} values differ`).toEqual([]);
  });
});
