/**
 * Replay with tables: exact when the original table is present (in the corpus or given as
 * `tables`), shape-only on stand-ins, failing with a reason when a stand-in has the wrong shape;
 * and the shared corpus on our bundled stand-ins has no failures.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFromDirectory } from '../../src/cli/synth-files.js';
import {
  formatReplayReport,
  grindText,
  replayCorpus,
  shapeDifference,
  valuePattern,
} from '../../src/synth/conformance/replay.js';
import { nodeFilePort } from '../../src/synth-io/index.js';
import { scratchDir, xmlModel } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const { dir: work, put } = scratchDir('mw-replay-tables-');

const MODEL = xmlModel(
  'Row',
  '<Append name="Row"><input name="T"/><input name="N"/></Append>' +
    '<FlatFile name="T" file="samples/codes.csv" textColumns="1"/><Poisson name="N" lambda="3"/>',
);

describe('replay classification', () => {
  // Record an output with the "original" table, as the recorder would.
  const original = '# code table\nAB-12,0042\nCD-34,0077\nEF-56,0001\n';
  put('orig/codes.csv', original);
  put('rec/samples/codes.csv', original);
  const modelPath = put('rec/m.xml', MODEL);
  const recorded = grindText(
    MODEL,
    { seed: 42n, count: 10, format: 'csv', modelPath: 'm.xml' },
    { location: modelPath, ports: { files: nodeFilePort } },
  );
  put('corpus/m.xml', MODEL);
  put('corpus/m.csv', `# seed=42 -- reproduce with: grind --seed 42 --count 10 samples/m.xml\n${recorded}`);

  it('is exact with the original table given as tables', () => {
    const cases = replayCorpus(corpusFromDirectory(join(work, 'corpus')), {
      tables: corpusFromDirectory(join(work, 'orig')),
    });
    expect(cases.map((c) => c.status)).toEqual(['passed']);
  });

  it('is shape-only on a stand-in with the same columns and patterns', () => {
    put('stand/codes.csv', 'ZZ-99,0005\nYY-98,0123\n');
    const cases = replayCorpus(corpusFromDirectory(join(work, 'corpus')), {
      standIns: corpusFromDirectory(join(work, 'stand')),
    });
    expect(cases).toEqual([{ output: 'm.csv', model: 'm.xml', status: 'shape', standIns: ['codes.csv'] }]);
    expect(formatReplayReport(cases)).toMatch(
      /SHAPE m\.xml -> m\.csv \(stand-ins: codes\.csv\)\n0 passed, 1 shape-only/,
    );
  });

  it('fails with a reason when the stand-in has another shape; skips when no table exists', () => {
    put('bad/codes.csv', 'ZZ99,5\n');
    const bad = replayCorpus(corpusFromDirectory(join(work, 'corpus')), {
      standIns: corpusFromDirectory(join(work, 'bad')),
    });
    expect(bad[0]).toMatchObject({ status: 'failed' });
    expect(bad[0]!.reason).toMatch(
      /stand-in tables \(codes\.csv\): column 0: "ZZ99" does not have the recorded pattern "a-99"/,
    );
    const none = replayCorpus(corpusFromDirectory(join(work, 'corpus')));
    expect(none[0]).toMatchObject({ status: 'skipped' });
    expect(none[0]!.reason).toMatch(/missing table: FlatFile "T": file not found: samples\/codes\.csv/);
  });

  it('compares types and fixed patterns per column', () => {
    expect(valuePattern('(555) 010-1234')).toBe('(999) 999-9999');
    expect(valuePattern('Saint Frédéric-les-Bains')).toBe('a a-a-a');
    expect(shapeDifference('dim0\n1\n', 'dim0\n1.5\n', 'csv')).toMatch(/"1" is int, recorded double/);
    expect(shapeDifference('dim0\nx\n', 'dim0\ny\nz\n', 'csv')).toMatch(/2 lines, recorded 3/);
    expect(shapeDifference('dim0,dim1\n"a, b",2\n', 'dim0,dim1\n"c, d",3\n', 'csv')).toBeUndefined();
  });
});

const SHARED = join(ROOT, '..', 'shared', 'conformance', 'synth-examples');

describe.skipIf(!existsSync(SHARED))('shared corpus on our stand-in tables', () => {
  it('has no failing case: every output is exact, shape-only, or needs a component this build lacks', () => {
    const cases = replayCorpus(corpusFromDirectory(SHARED), {
      standIns: corpusFromDirectory(join(ROOT, 'examples', 'synth', 'tables')),
    });
    console.log(formatReplayReport(cases));
    expect(cases.filter((c) => c.status === 'failed')).toEqual([]);
    // Table-driven models whose components all exist run shape-only on stand-ins.
    expect(cases.filter((c) => c.status === 'shape').map((c) => c.model)).toEqual(
      expect.arrayContaining(['pro/health/claims-from-synthea.xml', 'pro/person-name-usa-female.xml']),
    );
  });
});
