/**
 * One-decimal values on a lattice (issue 40, held-out weather.csv): temperatures measured in whole
 * Fahrenheit degrees and written in Celsius at one decimal use one tenth in 5.5 (2.8, 3.3, 3.9, …).
 * A family rounded to tenths spread each value's share over the tenths in between, and compare
 * called 19 of them high spikes. The fit now keeps such a column's values (an Empirical); a
 * one-decimal column that fills its tenths keeps its fitted family.
 */
import { describe, expect, it } from 'vitest';
import { compareTables, outputTable, parseSampleCsv } from '../../src/synth/compare/index.js';
import { SynthRun } from '../../src/synth/index.js';
import { fitCsv } from '../../src/synth/fit/index.js';
import { isLattice, LATTICE_MAX_VALUES } from '../../src/synth/fit/marginal.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

const celsius = (f: number): string => String(Number((((f - 32) * 5) / 9).toFixed(1)));

/** 3000 days: lows and highs in whole °F written in °C at one decimal, and a one-decimal humidity. */
function weatherCsv(): string {
  const rng = new L64X128MixRandom(2922n);
  const lines = ['temp_min,temp_max,humidity'];
  for (let i = 0; i < 3000; i++) {
    const low = Math.round(45 + 9 * rng.nextGaussian());
    const high = low + Math.round(12 + 4 * rng.nextGaussian());
    lines.push(`${celsius(low)},${celsius(high)},${(60 + 8 * rng.nextGaussian()).toFixed(1)}`);
  }
  return lines.join('\n') + '\n';
}

describe('fit: one-decimal values on a lattice', () => {
  const csv = weatherCsv();
  const { model, report } = fitCsv(csv);

  it('keeps the lattice columns’ values and fits a family to the column that fills its tenths', () => {
    const family = Object.fromEntries(report.columns.map((c) => [c.name, c.family]));
    expect(family.temp_min).toBe('Empirical');
    expect(family.temp_max).toBe('Empirical');
    expect(family.humidity).not.toBe('Empirical');
    expect(report.generalised.join('\n')).toMatch(/temp_min: values on a lattice/);
  });

  it('compare finds no spike and no high finding in the output (as many rows, seed 7)', () => {
    const sample = parseSampleCsv(csv, 'yes');
    const output = outputTable(new SynthRun(model, 7n), sample.rows.length);
    const report = compareTables(sample, output);
    const spikes = report.findings.filter((f) => f.kind === 'spike' && f.severity !== 'low');
    expect(spikes.map((f) => f.message)).toEqual([]);
    expect(report.highCount).toBe(0);
  });

  it('isLattice: a share of the grid and repeated values, either side of each threshold', () => {
    // 10 values spaced 0.5 apart at precision 0.1: 10 of 46 grid points, each seen 10 times
    const spaced: [number, number][] = Array.from({ length: 10 }, (_, i) => [i * 0.5, 10]);
    expect(isLattice(spaced, 100, 0.1, 5)).toBe(true);
    // spaced 0.2: 10 of 19 points (above half) is no lattice
    expect(
      isLattice(
        spaced.map(([v, c]) => [v * 0.4, c]),
        100,
        0.1,
        5,
      ),
    ).toBe(false);
    // 9 values seen 10 times and 10 seen once: repeats hold 90 of 100 cells (a lattice), 89 not
    const rare: [number, number][] = Array.from({ length: 10 }, (_, i) => [100 + i, 1]);
    expect(isLattice([...spaced.slice(0, 9), ...rare], 100, 0.1, 5)).toBe(true);
    const fewer: [number, number][] = [
      ...spaced.slice(0, 8),
      [4, 9],
      ...rare.map(([v]) => [v, 1] as [number, number]),
    ];
    expect(isLattice(fewer, 99, 0.1, 5)).toBe(false);
  });

  it('isLattice: at most LATTICE_MAX_VALUES distinct values (a wider one would list them all)', () => {
    // values half a unit apart at precision 0.1, each seen 10 times: a lattice at the bound, none one value past it
    const of = (k: number): [number, number][] => Array.from({ length: k }, (_, i) => [i * 0.5, 10]);
    expect(isLattice(of(LATTICE_MAX_VALUES), LATTICE_MAX_VALUES * 10, 0.1, 5)).toBe(true);
    expect(isLattice(of(LATTICE_MAX_VALUES + 1), (LATTICE_MAX_VALUES + 1) * 10, 0.1, 5)).toBe(false);
  });
});
