/**
 * fit's privacy figure (issue 40): generated rows equal to a sample row and the nearest-neighbour
 * distance ratio. The arithmetic is pinned on tables small enough to check by hand; the fit
 * reports it on the model's own output (as large as the sample, the model's seed).
 */
import { describe, expect, it } from 'vitest';
import { fitCsv } from '../../src/synth/fit/index.js';
import { NEAREST_ROWS, privacyFigure } from '../../src/synth/fit/privacy.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

describe('privacyFigure: the arithmetic', () => {
  it('counts generated rows equal to a sample row, missing spellings and number forms alike', () => {
    const header = ['a', 'b'];
    const sample = [
      ['1', 'x'],
      ['2', 'NA'],
      ['3', 'y'],
    ];
    // 1.0 is 1; '' and 'NA' are both missing; ['4', 'x'] and ['2', 'x'] are no sample row
    const generated = [
      ['1.0', 'x'],
      ['2', ''],
      ['4', 'x'],
      ['2', 'x'],
    ];
    const p = privacyFigure(header, sample, generated, [0, 1], '1');
    expect(p.copies).toBe(2);
    expect(p.copyShare).toBe(0.5);
    expect(p.columns).toEqual(['a', 'b']);
    expect(p.generatedRows).toBe(4);
  });

  it('divides the generated rows’ median nearest distance by the sample’s own (closed form)', () => {
    // one numeric column 0, 2, 4: mean 2, sd 2 (n − 1), so standardized −1, 0, 1. Each sample
    // row's nearest other row is 1 away: median 1. Generated 0.5, 3, 4 standardize to −0.75,
    // 0.5, 1: nearest distances 0.25, 0.5, 0: median 0.25. Ratio 0.25.
    const p = privacyFigure(['v'], [['0'], ['2'], ['4']], [['0.5'], ['3'], ['4']], [0], '1');
    expect(p.sampleMedian).toBeCloseTo(1, 12);
    expect(p.generatedMedian).toBeCloseTo(0.25, 12);
    expect(p.distanceRatio).toBeCloseTo(0.25, 12);
    expect(p.copies).toBe(1);
    expect(p.distanceRows).toEqual({ sample: 3, generated: 3 });
  });

  it('adds a category mismatch as 1 and a missing cell against a value as 1', () => {
    // column v standardized as above (0, 2, 4 → −1, 0, 1); column c text.
    // sample rows: (−1, p), (0, q), (1, p). Nearest others: row 0 → row 1: 1 + 1 = 2, → row 2:
    // 4 + 0 = 4, so √2; row 1 → row 0 or 2: √2; row 2 → row 1: √2. Median √2.
    // generated (0, p): to row 0 √(1 + 0) = 1, row 1 √(0 + 1) = 1: nearest 1.
    // generated (missing, q): to row 1: 1 (missing vs value) + 0 = 1: nearest 1.
    // generated (4 → 1, r): to row 2: 0 + 1: nearest 1. Median 1; ratio 1/√2.
    const sample = [
      ['0', 'p'],
      ['2', 'q'],
      ['4', 'p'],
    ];
    const generated = [
      ['2', 'p'],
      ['', 'q'],
      ['4', 'r'],
    ];
    const p = privacyFigure(['v', 'c'], sample, generated, [0, 1], '1');
    expect(p.sampleMedian).toBeCloseTo(Math.SQRT2, 12);
    expect(p.generatedMedian).toBeCloseTo(1, 12);
    expect(p.distanceRatio).toBeCloseTo(Math.SQRT1_2, 12);
    expect(p.copies).toBe(0);
  });

  it('has no ratio when most sample rows repeat another (the median within the sample is 0)', () => {
    const sample = [['a'], ['a'], ['b'], ['b'], ['c']];
    const p = privacyFigure(['k'], sample, [['a'], ['z']], [0], '1');
    expect(p.sampleMedian).toBe(0);
    expect(p.distanceRatio).toBeNull();
    expect(p.copies).toBe(1);
  });

  it(`reads at most ${NEAREST_ROWS} rows of each side for the distances`, () => {
    const rows = Array.from({ length: NEAREST_ROWS + 500 }, (_, i) => [String(i)]);
    const p = privacyFigure(['v'], rows, rows.slice(0, 10), [0], '1');
    expect(p.distanceRows).toEqual({ sample: NEAREST_ROWS, generated: 10 });
  });
});

/** Three labelled columns with few combinations: any model of them repeats sample rows. */
function frequencyCsv(rows: number): string {
  const rng = new L64X128MixRandom(404n);
  const lines = ['colour,size,shape'];
  for (let i = 0; i < rows; i++) {
    const colour = ['red', 'green', 'blue'][Math.floor(rng.nextDouble() * 3)]!;
    const size = ['S', 'M', 'L'][Math.floor(rng.nextDouble() * 3)]!;
    const shape = rng.nextDouble() < 0.5 ? 'round' : 'square';
    lines.push(`${colour},${size},${shape}`);
  }
  return lines.join('\n') + '\n';
}

/** Three continuous columns at four decimals: an honest model repeats none of its rows. */
function continuousCsv(rows: number): string {
  const rng = new L64X128MixRandom(405n);
  const lines = ['x,y,z'];
  for (let i = 0; i < rows; i++) {
    const x = 10 + rng.nextGaussian();
    const y = x + rng.nextGaussian();
    const z = Math.exp(rng.nextGaussian() * 0.3);
    lines.push(`${x.toFixed(4)},${y.toFixed(4)},${z.toFixed(4)}`);
  }
  return lines.join('\n') + '\n';
}

describe('the fit report’s privacy figure', () => {
  it('reports near every row copied for a frequency table of three labelled columns', () => {
    const { report } = fitCsv(frequencyCsv(300));
    const p = report.privacy;
    expect(p.generatedRows).toBe(300);
    expect(p.seed).toBe('1');
    // 18 combinations, each seen about 17 times: every generated row is one of them
    expect(p.copies).toBe(300);
    expect(p.copyShare).toBe(1);
    expect(p.distanceRatio).toBeNull();
  });

  it('reports no copy and a ratio near 1 for continuous columns at four decimals', () => {
    const { report } = fitCsv(continuousCsv(400));
    const p = report.privacy;
    expect(p.copies).toBe(0);
    expect(p.distanceRatio).not.toBeNull();
    // the output is as far from the sample as the sample's rows are from each other
    expect(p.distanceRatio!).toBeGreaterThan(0.7);
    expect(p.distanceRatio!).toBeLessThan(1.5);
  });

  it('is computed on the output the model gives with its own seed, as many rows as the sample', () => {
    const csv = continuousCsv(200);
    const { model, report } = fitCsv(csv, { seed: 9 });
    const rows = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const again = privacyFigure(['x', 'y', 'z'], rows, generateCells(model, 9n, 200), [0, 1, 2], '9');
    expect(report.privacy).toEqual(again);
  });

  it('leaves identifier and free-text columns out (they are generated fresh)', () => {
    const lines = ['id,colour'];
    for (let i = 0; i < 100; i++) lines.push(`${7000 + i * 3},${i % 2 === 0 ? 'red' : 'blue'}`);
    const { report } = fitCsv(lines.join('\n'));
    expect(report.columns[0]!.kind).toBe('identifier');
    expect(report.privacy.columns).toEqual(['colour']);
    expect(report.privacy.copies).toBe(100);
  });
});

describe('the CLI’s privacy line', () => {
  it('says the copies, their share and the ratio with its two medians', async () => {
    const { privacyLine } = await import('../../src/cli/synth-fit-command.js');
    const p = privacyFigure(['v'], [['0'], ['2'], ['4']], [['0.5'], ['3'], ['4']], [0], '1');
    expect(privacyLine(p)).toBe(
      'privacy: 1 of 3 generated rows (33.3%) equal a sample row; nearest-neighbour distance ratio 0.25 (median 0.250 to the sample, 1.000 within it; 3 × 3 rows)',
    );
    const none = privacyFigure(['k'], [['a'], ['a'], ['b']], [['a']], [0], '1');
    expect(privacyLine(none)).toContain('no nearest-neighbour ratio');
  });
});
