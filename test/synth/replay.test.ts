/**
 * Conformance replay: our own bundled examples always; the shared corpus (../shared) when it is
 * present, skipped with a printed reason otherwise.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFromDirectory } from '../../src/cli/synth-files.js';
import {
  checkAnalysis,
  formatReplayReport,
  parseRecipe,
  replayCorpus,
  type ReplayCase,
} from '../../src/synth/conformance/replay.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SHARED = join(ROOT, '..', 'shared', 'conformance', 'synth-examples');
const sharedPresent = existsSync(SHARED);
if (!sharedPresent) console.warn(`[synth replay] SKIPPED shared corpus: ${SHARED} not found`);

/**
 * What the shared corpus replays to, exactly: an exact replay turning into a skip (or a shape-only
 * match) must fail, not pass quietly. The skips are Pro models whose tables the corpus lacks.
 */
const SHARED_FREE = { passed: 20, shape: 0, failed: 0, skipped: 26 };
const SHARED_FULL = { passed: 34, shape: 0, failed: 0, skipped: 12 };

function tally(cases: readonly ReplayCase[]): Record<ReplayCase['status'], number> {
  const t = { passed: 0, shape: 0, failed: 0, skipped: 0 };
  for (const c of cases) t[c.status]++;
  return t;
}

describe('replay', () => {
  it('reads recorder comment lines', () => {
    expect(
      parseRecipe('# seed=42 -- reproduce with: grind --seed 42 --count 10 samples/pro/phone.xml'),
    ).toEqual({
      seed: 42n,
      count: 10,
      format: 'csv',
      modelPath: 'samples/pro/phone.xml',
    });
    expect(
      parseRecipe('# seed=42 -- reproduce with: grind --count 10 a.xml (run from this directory)')?.modelPath,
    ).toBe('a.xml');
    expect(parseRecipe('# seed=1 -- reproduce with: grind --count 1 --format raw x.xml')?.format).toBe('raw');
    expect(parseRecipe('dim0,dim1')).toBeUndefined();
  });

  it('checks embedded analysis.* blocks against our complexity figures', () => {
    const model = (score: number): string =>
      `<dataset analysis.node_count="3" analysis.min_depth="2" analysis.score="${score}"><root node="M"/><nodes>` +
      '<Mix name="M"><input name="A"/><input name="B"/></Mix><Uniform name="A"/><Uniform name="B"/></nodes></dataset>';
    expect(checkAnalysis('m.xml', model(30))).toEqual({
      output: 'analysis.*',
      model: 'm.xml',
      status: 'passed',
    });
    expect(checkAnalysis('m.xml', model(31))).toMatchObject({
      status: 'failed',
      reason: 'analysis.score: recorded "31", ours "30"',
    });
    expect(
      checkAnalysis('m.xml', '<dataset><root node="U"/><nodes><Uniform name="U"/></nodes></dataset>'),
    ).toBeUndefined();
  });

  it('replays the bundled examples byte for byte (XML, JSON and .sgm)', () => {
    const cases = replayCorpus(corpusFromDirectory(join(ROOT, 'examples', 'synth')));
    console.log(formatReplayReport(cases));
    expect(cases.filter((c) => c.status !== 'passed')).toEqual([]);
    // every bundled model replays its recorded CSV exactly: 2 recordings x 3 model formats
    expect(cases.map((c) => `${c.model} -> ${c.output}`).sort()).toEqual(
      ['skirmish', 'support-queue'].flatMap((m) =>
        ['json', 'sgm', 'xml'].map((f) => `${m}.${f} -> ${m}.csv`),
      ),
    );
  });

  it.skipIf(!sharedPresent)('replays every Free example of ../shared byte for byte', () => {
    const cases = replayCorpus(corpusFromDirectory(SHARED), { edition: 'free' });
    console.log(formatReplayReport(cases));
    expect(cases.filter((c) => c.status === 'failed')).toEqual([]);
    expect(tally(cases)).toEqual(SHARED_FREE);
  });
  it.skipIf(!sharedPresent)(
    'replays every runnable example of ../shared byte for byte (Free and table-free Pro)',
    () => {
      const cases = replayCorpus(corpusFromDirectory(SHARED));
      console.log(formatReplayReport(cases));
      expect(cases.filter((c) => c.status === 'failed')).toEqual([]);
      expect(tally(cases)).toEqual(SHARED_FULL);
    },
  );
});
