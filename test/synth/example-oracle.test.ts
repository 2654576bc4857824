/**
 * The bundled examples against independent Java replicas (test/synth/oracle/*Oracle.java) built on
 * the JDK's own RNG: 20,000 rows for several seeds must agree value for value. Skipped, with the
 * reason printed, when no JDK 17+ is on the machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grind } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ROWS = 20_000; // keep in step with the test titles

const javaOk =
  spawnSync('javac', ['-version']).status === 0 &&
  Number(/version "(\d+)/.exec(spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr)?.[1] ?? 0) >= 17;
if (!javaOk) console.warn('[synth example oracle] SKIPPED: java/javac 17+ not found on PATH');

const CASES = [
  ['support-queue.xml', 'SupportQueueOracle'],
  ['skirmish.xml', 'SkirmishOracle'],
] as const;

describe.skipIf(!javaOk)('bundled examples against their Java replicas', { timeout: 60_000 }, () => {
  it.each(
    CASES.flatMap(([model, oracle]) => [2026n, 1n, -77n].map((seed) => [model, oracle, seed] as const)),
  )('%s agrees with %s on 20,000 rows for seed %s', (model, oracle, seed) => {
    const work = mkdtempSync(join(tmpdir(), 'synth-example-oracle-'));
    try {
      const compiled = spawnSync(
        'javac',
        ['-d', work, join(import.meta.dirname, 'oracle', `${oracle}.java`)],
        { encoding: 'utf8' },
      );
      expect(compiled.status, compiled.stderr).toBe(0);
      const java = spawnSync('java', ['-cp', work, oracle, String(seed), String(ROWS)], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      expect(java.status, java.stderr).toBe(0);
      const ours = grind(readFileSync(join(ROOT, 'examples', 'synth', model), 'utf8'), seed, ROWS).split(
        '\n',
      );
      const theirs = java.stdout.split('\n');
      expect(ours.length).toBe(theirs.length);
      for (let i = 0; i < ours.length; i++) {
        if (ours[i] === theirs[i]) continue;
        // JDK 17's Double.toString is not shortest-digit (JDK 19+ is); the values must still be equal.
        expect(ours[i]!.split(',').map(Number), `row ${i}`).toEqual(theirs[i]!.split(',').map(Number));
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
