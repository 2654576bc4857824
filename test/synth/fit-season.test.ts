/**
 * Calendar dependence (issue 40): with a date column, a numeric column whose level follows the
 * month, the weekday or both keeps it in the output. The date's calendar cell joins the copula
 * (codes ordered by the column's cell means) and each date is drawn within the cell the copula
 * gives (season.ts).
 */
import { describe, expect, it } from 'vitest';
import { sampleRankCorrelation } from 'simple-statistics';
import { fitCsv } from '../../src/synth/fit/index.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

const DAYS = 1461; // 2012–2015, each day once
const day = (i: number): string => new Date(Date.UTC(2012, 0, 1 + i)).toISOString().slice(0, 10);

/** ISO weekday of a `yyyy-mm-dd` day (1 = Monday). */
const weekdayOf = (d: string): number => ((new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** Daily rows: `level(month, weekday)` plus noise at one decimal, and an unrelated column. */
function dailyCsv(
  level: (month: number, weekday: number) => number,
  seed: bigint,
  days = DAYS,
  stride = 1,
): string {
  const rng = new L64X128MixRandom(seed);
  const lines = ['date,value,other'];
  for (let i = 0; i < days; i++) {
    const d = day(i * stride);
    const month = Number(d.slice(5, 7));
    const value = level(month, weekdayOf(d)) + 2.5 * rng.nextGaussian();
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

const weekday = (r: readonly string[][]): number[] => r.map((x) => weekdayOf(x[0]!));

/** Share of the value's variance the months (or another grouping) explain (η²). */
function monthShare(r: readonly string[][], by: (r: readonly string[][]) => number[] = month): number {
  const m = by(r);
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

  it('does not take chance for a season: twelve months over 100 unrelated rows', () => {
    // η² of twelve groups over 100 rows is about 0.11 by chance alone; the adjusted share is not.
    // Every 15th day: the rows cover every month and every weekday.
    for (const seed of [41n, 42n, 43n, 44n, 45n]) {
      const { report } = fitCsv(dailyCsv(() => 10, seed, 100, 15));
      const date = report.columns.find((c) => c.name === 'date')!;
      expect(date.generalised.join('\n'), `seed ${seed}`).not.toMatch(/joins? the copula/);
    }
  });
});

describe('fit: a value that follows the weekday of a date column', () => {
  it('keeps a weekend dip: the weekdays explain as much of the output as of the sample', () => {
    // daily sales: 40 on weekdays, 20 on Saturdays and Sundays
    const csv = dailyCsv((_, w) => (w >= 6 ? 20 : 40), 34n);
    const { model, report } = fitCsv(csv);
    const sample = rows(csv);
    const out = generateCells(model, 7n, sample.length);
    expect(report.generalised.join('\n')).toMatch(/date: its weekday joins the copula \(ordered by value's/);
    const real = monthShare(sample, weekday);
    expect(real).toBeGreaterThan(0.8);
    expect(Math.abs(monthShare(out, weekday) - real)).toBeLessThan(0.06);
    // a weekend day in the output has a weekend level, as in the sample
    const weekendMean = (r: readonly string[][]): number => {
      const v = r.filter((x) => weekdayOf(x[0]!) >= 6).map((x) => Number(x[1]));
      return v.reduce((a, b) => a + b, 0) / v.length;
    };
    expect(Math.abs(weekendMean(out) - weekendMean(sample))).toBeLessThan(1.5);
    expect(out.every((r) => /^201[2-5]-\d\d-\d\d$/.test(r[0]!))).toBe(true);
  });

  it('keeps both a yearly cycle and a weekend dip', () => {
    const csv = dailyCsv((m, w) => 30 + 8 * Math.cos(((m - 1) / 12) * 2 * Math.PI) - (w >= 6 ? 10 : 0), 35n);
    const { model, report } = fitCsv(csv);
    const sample = rows(csv);
    const out = generateCells(model, 7n, sample.length);
    expect(report.generalised.join('\n')).toMatch(/date: its month and weekday join the copula/);
    for (const by of [month, weekday]) {
      const real = monthShare(sample, by);
      expect(real).toBeGreaterThan(0.25);
      expect(Math.abs(monthShare(out, by) - real), `${by === month ? 'month' : 'weekday'}`).toBeLessThan(
        0.08,
      );
    }
  });

  it('leaves a lattice column on its lattice: no mean is added to Fahrenheit degrees written in Celsius', () => {
    // whole Fahrenheit degrees following the month, written in Celsius tenths (as weather tables are):
    // the values sit on a lattice a shifted draw would leave, spreading each of its spikes
    const rng = new L64X128MixRandom(36n);
    const lines = ['date,temp'];
    for (let i = 0; i < DAYS; i++) {
      const d = day(i);
      const f = Math.round(
        50 + 20 * Math.cos(((Number(d.slice(5, 7)) - 7) / 12) * 2 * Math.PI) + 6 * rng.nextGaussian(),
      );
      lines.push(`${d},${(((f - 32) * 5) / 9).toFixed(1)}`);
    }
    const csv = lines.join('\n') + '\n';
    const { model, report } = fitCsv(csv);
    const sample = rows(csv);
    const seen = new Set(sample.map((r) => Number(r[1])));
    const out = generateCells(model, 7n, sample.length);
    const off = out.filter((r) => !seen.has(Number(r[1]))).length;
    expect(off / out.length, `${off} of ${out.length} values off the sample's lattice`).toBeLessThan(0.02);
    expect(report.generalised.join('\n')).toMatch(/its month joins the copula/);
  });
});
