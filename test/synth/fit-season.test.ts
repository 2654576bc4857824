/**
 * Month dependence (issue 40): with a date column, a numeric column whose level follows the
 * month keeps it in the output. The date's month joins the copula (codes ordered by the column's
 * month means) and each date is drawn within the month the copula gives (season.ts).
 */
import { describe, expect, it } from 'vitest';
import { sampleRankCorrelation } from 'simple-statistics';
import { fitCsv } from '../../src/synth/fit/index.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

const DAYS = 1461; // 2012–2015, each day once
const day = (i: number): string => new Date(Date.UTC(2012, 0, 1 + i)).toISOString().slice(0, 10);

/** Daily rows: `level(month)` plus noise at one decimal, and an unrelated column. */
function dailyCsv(level: (month: number) => number, seed: bigint): string {
  const rng = new L64X128MixRandom(seed);
  const lines = ['date,value,other'];
  for (let i = 0; i < DAYS; i++) {
    const d = day(i);
    const month = Number(d.slice(5, 7));
    const value = level(month) + 2.5 * rng.nextGaussian();
    lines.push(`${d},${value.toFixed(1)},${(50 + 10 * rng.nextGaussian()).toFixed(2)}`);
  }
  return lines.join('\n') + '\n';
}

function rows(csv: string): string[][] {
  return csv
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
}

const month = (r: readonly string[][]): number[] => r.map((x) => Number(x[0]!.slice(5, 7)));
const value = (r: readonly string[][]): number[] => r.map((x) => Number(x[1]));

/** Share of the value's variance the months explain (η²). */
function monthShare(r: readonly string[][]): number {
  const m = month(r);
  const v = value(r);
  const mean = v.reduce((s, x) => s + x, 0) / v.length;
  const sums = new Map<number, [number, number]>();
  v.forEach((x, k) => {
    const s = sums.get(m[k]!) ?? [0, 0];
    sums.set(m[k]!, [s[0] + x, s[1] + 1]);
  });
  let between = 0;
  for (const [s, c] of sums.values()) between += c * (s / c - mean) ** 2;
  return between / v.reduce((s, x) => s + (x - mean) ** 2, 0);
}

/** Three standard errors of the difference of two Spearman ρ of n pairs each. */
const noise = (rho: number, n: number): number => (3 * Math.SQRT2 * (1 - rho * rho)) / Math.sqrt(n - 3);

describe('fit: a value that follows the month of a date column', () => {
  it('keeps the month-vs-value rank correlation within sampling noise (a trend over the year)', () => {
    const csv = dailyCsv((m) => 2 * m, 31n);
    const { model, report } = fitCsv(csv);
    const sample = rows(csv);
    const out = generateCells(model, 7n, sample.length);
    const real = sampleRankCorrelation(month(sample), value(sample));
    const made = sampleRankCorrelation(month(out), value(out));
    expect(real).toBeGreaterThan(0.8);
    expect(Math.abs(made - real), `sample ρ ${real}, output ρ ${made}`).toBeLessThan(noise(real, DAYS));
    expect(report.generalised.join('\n')).toMatch(/date: its month joins the copula \(ordered by value's/);
    // the dates stay real days in the sample's years, one column, in the sample's place
    expect(out.every((r) => /^201[2-5]-\d\d-\d\d$/.test(r[0]!) && r.length === 3)).toBe(true);
  });

  it('keeps a yearly cycle: the months explain as much of the output as of the sample', () => {
    // southern-hemisphere temperatures: warm in January, cold in July
    const csv = dailyCsv((m) => 15 + 6 * Math.cos(((m - 1) / 12) * 2 * Math.PI), 32n);
    const { model } = fitCsv(csv);
    const sample = rows(csv);
    const out = generateCells(model, 7n, sample.length);
    const real = sampleRankCorrelation(month(sample), value(sample));
    const made = sampleRankCorrelation(month(out), value(out));
    expect(Math.abs(made - real), `sample ρ ${real}, output ρ ${made}`).toBeLessThan(noise(real, DAYS));
    expect(monthShare(sample)).toBeGreaterThan(0.6);
    expect(Math.abs(monthShare(out) - monthShare(sample))).toBeLessThan(0.06);
  });

  it('leaves a date alone when no column follows the month', () => {
    const { report } = fitCsv(dailyCsv(() => 10, 33n));
    const date = report.columns.find((c) => c.name === 'date')!;
    expect(date.generalised.join('\n')).not.toMatch(/month/);
  });
});
