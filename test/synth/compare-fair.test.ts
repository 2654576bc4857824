/**
 * compare, fair (issue 40): a Sequence id and a daily date column are not copied identifiers, the
 * missing-value vocabulary is fit's, `ignore` leaves columns out, and every severity rule (the
 * Bonferroni factor, the p thresholds, the floors) is pinned just either side of its threshold.
 */
import { describe, expect, it } from 'vitest';
import {
  CompareError,
  compareTables,
  outputTable,
  type CompareReport,
  type Table,
} from '../../src/synth/compare/index.js';
import { FLOORS, Findings } from '../../src/synth/compare/findings.js';
import { SynthRun, parseModel } from '../../src/synth/index.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

const SEQUENCE_MODEL = `dataset.root = Rows
dataset.seed = 1

Rows = Append(Id, Amount)
Id = ToInteger(Counter)
Counter = Sequence(start=1, step=1)
Amount = Normal(mean=100, sigma=15)
`;

function draw(seed: bigint, count: number): Table {
  return outputTable(new SynthRun(parseModel(SEQUENCE_MODEL), seed), count);
}

function found(report: CompareReport, kind: string): string[] {
  return report.findings.filter((f) => f.kind === kind).map((f) => `${f.severity}:${f.column ?? '*'}`);
}

describe('compare is fair to honest output', () => {
  it('a model with a Sequence id compared with its own output (another seed) has no high finding', () => {
    for (const seed of [2n, 3n, 4n]) {
      const report = compareTables(draw(seed, 2000), draw(seed + 100n, 2000));
      expect(found(report, 'identifier'), `seed ${seed}`).toEqual([]);
      expect(report.highCount, `seed ${seed}`).toBe(0);
    }
  });

  it('a daily date column (each day once) is not called copied identifiers', () => {
    const rng = new L64X128MixRandom(1461n);
    const day = (i: number): string => new Date(Date.UTC(2012, 0, 1 + i)).toISOString().slice(0, 10);
    const sample: Table = { header: ['date', 'temp'], rows: [] };
    const output: Table = { header: ['date', 'temp'], rows: [] };
    for (let i = 0; i < 1461; i++) {
      sample.rows.push([day(i), (10 + 5 * rng.nextGaussian()).toFixed(1)]);
      // an independent draw of days over the same four years: many coincide by chance
      output.rows.push([day(Math.floor(rng.nextDouble() * 1461)), (10 + 5 * rng.nextGaussian()).toFixed(1)]);
    }
    const report = compareTables(sample, output);
    expect(found(report, 'identifier')).toEqual([]);
    expect(report.highCount).toBe(0);
  });

  it('reads NA, null, N/A and - as missing, as fit does (not as text)', () => {
    const rng = new L64X128MixRandom(77n);
    const spellings = ['NA', 'null', 'N/A', '-', 'NaN'];
    const sample: Table = { header: ['x'], rows: [] };
    const output: Table = { header: ['x'], rows: [] };
    for (let i = 0; i < 1000; i++) {
      const gone = i % 5 === 0;
      sample.rows.push([
        gone ? spellings[(i / 5) % spellings.length]! : (50 + 9 * rng.nextGaussian()).toFixed(2),
      ]);
      output.rows.push([rng.nextDouble() < 0.2 ? '' : (50 + 9 * rng.nextGaussian()).toFixed(2)]);
    }
    const report = compareTables(sample, output);
    expect(found(report, 'type')).toEqual([]);
    expect(report.columns[0]!.sample.kinds.text).toBe(0);
    expect(report.columns[0]!.sample.kinds.empty).toBe(200);
  });

  it('ignore leaves a column out of every test; an unknown name is COMPARE_INPUT', () => {
    const sample = draw(5n, 500);
    const output = draw(6n, 500);
    // the output's amount is garbage text: only ignoring it makes the report clean
    output.rows = output.rows.map((r) => [r[0]!, 'x']);
    expect(compareTables(sample, output).highCount).toBeGreaterThan(0);
    const report = compareTables(sample, output, { ignore: ['dim1'] });
    expect(report.columns.map((c) => c.name)).toEqual(['dim0']);
    expect(report.ignored).toEqual(['dim1']);
    expect(report.highCount).toBe(0);
    expect(() => compareTables(sample, output, { ignore: ['nope'] })).toThrow(CompareError);
  });
});

describe('severity rules, pinned either side of each threshold', () => {
  const thresholds = { highP: 1e-6, mediumP: 1e-3, lowP: 1e-2 };
  /** One tested finding among `tests` tests (the others not significant), judged. */
  function judge(p: number, effect: number, tests: number, kind: 'distribution' = 'distribution') {
    const f = new Findings();
    f.test(kind, 'x', p, effect, 'm');
    for (let i = 1; i < tests; i++) f.test(kind, `other${i}`, 0.5, 0, 'm');
    return f.judge(thresholds).map((x) => x.severity);
  }

  it('Bonferroni: the p-value is multiplied by the number of tests in the report', () => {
    // 10 tests: a raw p of 0.99e-7 is 0.99e-6 (high), 1.01e-7 is 1.01e-6 (medium)
    expect(judge(0.99e-7, 1, 10)).toEqual(['high']);
    expect(judge(1.01e-7, 1, 10)).toEqual(['medium']);
    // the same raw p alone is high
    expect(judge(1.01e-7, 1, 1)).toEqual(['high']);
  });

  it('the medium and low thresholds (adjusted p 1e-3 and 1e-2)', () => {
    expect(judge(0.99e-4, 1, 10)).toEqual(['medium']);
    expect(judge(1.01e-4, 1, 10)).toEqual(['low']);
    expect(judge(0.99e-3, 1, 10)).toEqual(['low']);
    expect(judge(1.01e-3, 1, 10)).toEqual([]);
  });

  it('the floors: a significant effect under its kind’s floor drops a severity', () => {
    const [high, medium] = FLOORS.distribution;
    expect([high, medium]).toEqual([0.05, 0.02]);
    expect(judge(1e-12, 0.0501, 1)).toEqual(['high']);
    expect(judge(1e-12, 0.0499, 1)).toEqual(['medium']);
    expect(judge(1e-12, 0.0201, 1)).toEqual(['medium']);
    expect(judge(1e-12, 0.0199, 1)).toEqual(['low']);
  });

  it('every kind has the floors docs/compare.md lists', () => {
    expect(FLOORS).toEqual({
      shape: [0, 0],
      type: [0.05, 0.02],
      precision: [0, 0],
      'date-format': [0, 0],
      distribution: [0.05, 0.02],
      tail: [0.15, 0.1],
      spike: [0.01, 0.005],
      coverage: [0.005, 0.001],
      identifier: [3, 1],
      correlation: [0.1, 0.05],
      duplicates: [0.02, 0.01],
      'copied-rows': [3, 1],
    });
  });
});
