/**
 * The RNG against its oracle: the JDK 17 `L64X128MixRandom` itself. A tiny Java program writes
 * 10^6 draws per stream and seed; ours must match bit for bit. Skipped, with the reason printed,
 * when no JDK is on the machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { EXPONENTIAL_TABLES, NORMAL_TABLES } from '../../src/synth/random/ziggurat-tables.js';

const ORACLE_DIR = join(import.meta.dirname, 'oracle');
const DRAWS = 1_000_000;
const SEEDS = [42n, 7n, 1n, -3n, 0x123456789abcdefn];
// Must equal RandomStreams.BOUNDS.
const BOUNDS: readonly (readonly [number, number])[] = [
  [1, 7],
  [0, 256],
  [0, 1000],
  [-50, 50],
  [0, 1_000_000_007],
  [-2147483648 + 5, 2147483647 - 7],
  [0, 60],
  [200, 1000],
];

function jdkVersion(): string | null {
  const run = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const javac = spawnSync('javac', ['-version'], { encoding: 'utf8' });
  if (run.status !== 0 || javac.status !== 0) return null;
  return /version "(\d+)/.exec(run.stderr)?.[1] ?? null;
}

const version = jdkVersion();
const skipReason =
  version === null
    ? 'java/javac not found on PATH'
    : Number(version) < 17
      ? `JDK ${version} is older than 17 (no L64X128MixRandom)`
      : null;
if (skipReason !== null) console.warn(`[synth rng oracle] SKIPPED: ${skipReason}`);

type Writer = (rng: L64X128MixRandom, buf: Buffer, i: number) => void;

const STREAMS: Record<string, Writer> = {
  long: (rng, buf, i) => {
    rng.step();
    buf.writeInt32BE(rng.hi, i * 8);
    buf.writeInt32BE(rng.lo, i * 8 + 4);
  },
  double: (rng, buf, i) => buf.writeDoubleBE(rng.nextDouble(), i * 8),
  int: (rng, buf, i) => {
    const [origin, bound] = BOUNDS[i % BOUNDS.length]!;
    buf.writeBigInt64BE(BigInt(rng.nextIntBetween(origin, bound)), i * 8);
  },
  gaussian: (rng, buf, i) => buf.writeDoubleBE(rng.nextGaussian(), i * 8),
  exponential: (rng, buf, i) => buf.writeDoubleBE(rng.nextExponential(), i * 8),
};

function firstDifference(a: Buffer, b: Buffer): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 8)
    if (a.compare(b, i, i + 8, i, i + 8) !== 0) return i / 8;
  return -1;
}

describe.skipIf(skipReason !== null)('L64X128MixRandom against the JDK', () => {
  let work = '';

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'synth-oracle-'));
    const javac = spawnSync(
      'javac',
      ['-d', work, join(ORACLE_DIR, 'RandomStreams.java'), join(ORACLE_DIR, 'ZigguratTablesDump.java')],
      { encoding: 'utf8' },
    );
    expect(javac.status, javac.stderr).toBe(0);
  });

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('embeds the JDK ziggurat tables bit for bit', () => {
    const dump = spawnSync(
      'java',
      ['--add-opens', 'java.base/jdk.internal.util.random=ALL-UNNAMED', '-cp', work, 'ZigguratTablesDump'],
      { encoding: 'utf8' },
    );
    expect(dump.status, dump.stderr).toBe(0);
    const jdk = new Map(
      dump.stdout
        .trim()
        .split('\n')
        .map((line) => {
          const [name, ...values] = line.split(' ');
          return [name!, values.map((v) => (v[0] === 'i' ? v.slice(1) : v.slice(1).padStart(16, '0')))];
        }),
    );
    for (const [prefix, t] of [
      ['exponential', EXPONENTIAL_TABLES],
      ['normal', NORMAL_TABLES],
    ] as const) {
      expect(t.x, `${prefix}X`).toEqual(jdk.get(`${prefix}X`));
      expect(t.y, `${prefix}Y`).toEqual(jdk.get(`${prefix}Y`));
      expect(t.aliasThreshold, `${prefix}AliasThreshold`).toEqual(jdk.get(`${prefix}AliasThreshold`));
      expect(t.aliasMap.map(String), `${prefix}AliasMap`).toEqual(jdk.get(`${prefix}AliasMap`));
      expect([t.x0], `${prefix}X0`).toEqual(jdk.get(`${prefix}X0`));
      expect([t.convexMargin], `${prefix}ConvexMargin`).toEqual(jdk.get(`${prefix}ConvexMargin`));
      expect(String(t.numberOfLayers)).toBe(jdk.get(`${prefix}NumberOfLayers`)?.[0]);
    }
    expect([NORMAL_TABLES.concaveMargin]).toEqual(jdk.get('normalConcaveMargin'));
    expect(String(NORMAL_TABLES.inflectionIndex)).toBe(jdk.get('normalInflectionIndex')?.[0]);
  });

  it.each(SEEDS.map((s) => [String(s), s] as const))(
    'matches 10^6 draws of every stream for seed %s',
    (_label, seed) => {
      const prefix = join(work, `s${seed}-`);
      const java = spawnSync('java', ['-cp', work, 'RandomStreams', String(seed), String(DRAWS), prefix], {
        encoding: 'utf8',
      });
      expect(java.status, java.stderr).toBe(0);
      for (const [name, write] of Object.entries(STREAMS)) {
        const expected = readFileSync(`${prefix}${name}.bin`);
        expect(expected.length).toBe(DRAWS * 8);
        const ours = Buffer.alloc(DRAWS * 8);
        const rng = new L64X128MixRandom(seed);
        for (let i = 0; i < DRAWS; i++) write(rng, ours, i);
        expect(firstDifference(ours, expected), `${name} stream, first differing draw`).toBe(-1);
      }
      console.log(
        `[synth rng oracle] seed ${seed}: ${Object.keys(STREAMS).length} x ${DRAWS} draws identical`,
      );
    },
    60_000,
  );
});
