/**
 * fdlibm equivalence (synth spec §3.2): the recorded outputs follow Java's StrictMath (fdlibm). V8's
 * exp, log, sin, cos, sqrt, log1p and acos agree bit for bit; its pow does not (about 4% of inputs
 * differ in the last bit), so pow is reported, not asserted, until we have an fdlibm-exact pow.
 * Skipped, with the reason printed, when no JDK 17+ is on the machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

const INPUTS = 100_000;
const NAMES = ['exp', 'log', 'pow', 'sin', 'cos', 'sqrt', 'log1p', 'acos'] as const;

const javaOk =
  spawnSync('javac', ['-version']).status === 0 &&
  Number(/version "(\d+)/.exec(spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr)?.[1] ?? 0) >= 17;
if (!javaOk) console.warn('[synth math oracle] SKIPPED: java/javac 17+ not found on PATH');

describe.skipIf(!javaOk)('Math against StrictMath (fdlibm)', { timeout: 60_000 }, () => {
  it('matches exp, log, sin, cos, sqrt, log1p and acos bit for bit', () => {
    const work = mkdtempSync(join(tmpdir(), 'synth-math-oracle-'));
    try {
      const compiled = spawnSync(
        'javac',
        ['-d', work, join(import.meta.dirname, 'oracle', 'MathOracle.java')],
        {
          encoding: 'utf8',
        },
      );
      expect(compiled.status, compiled.stderr).toBe(0);
      const file = join(work, 'math.bin');
      const java = spawnSync('java', ['-cp', work, 'MathOracle', '42', String(INPUTS), file], {
        encoding: 'utf8',
      });
      expect(java.status, java.stderr).toBe(0);
      const buf = readFileSync(file);
      const rng = new L64X128MixRandom(42);
      const mismatches = Object.fromEntries(NAMES.map((n) => [n, 0]));
      for (let i = 0; i < INPUTS; i++) {
        const a = rng.nextDouble();
        const b = rng.nextDouble();
        const x = 40 * a - 20;
        const y = 1000 * b;
        const e = 8 * a - 4;
        const ours = [
          Math.exp(x),
          Math.log(y),
          Math.pow(y, e),
          Math.sin(x),
          Math.cos(x),
          Math.sqrt(y),
          Math.log1p(-a),
          Math.acos(2 * b - 1),
        ];
        ours.forEach((v, k) => {
          if (!Object.is(buf.readDoubleBE(i * 64 + k * 8), v)) mismatches[NAMES[k]!]!++;
        });
      }
      console.log(
        `[synth math oracle] ${INPUTS} inputs, last-bit differences: ${JSON.stringify(mismatches)}`,
      );
      const { pow: _pow, ...rest } = mismatches;
      expect(rest).toEqual({ exp: 0, log: 0, sin: 0, cos: 0, sqrt: 0, log1p: 0, acos: 0 });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
