/**
 * fit, real-shaped (issue 40): draws stay inside the sample's range whatever family a column ends
 * up with, and the Empirical fallback keeps the sample's resolution.
 */
import { describe, expect, it } from 'vitest';
import { compareTables } from '../../src/synth/compare/index.js';
import { fitCsv } from '../../src/synth/fit/index.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

function numbers(rows: readonly (readonly string[])[], j: number): number[] {
  return rows
    .map((r) => r[j]!)
    .filter((c) => c !== '')
    .map(Number);
}

describe('fit keeps draws inside the sample range', () => {
  // a: whole numbers 16..687 spread evenly (a Uniform fit widens its range by one spacing);
  // b: a bounded, skewed column correlated with a (a Beta fit, refitted for the copula);
  // c: a right-skewed positive column (Lognormal/Gamma, unbounded above)
  const rng = new L64X128MixRandom(40n);
  const lines = ['a,b,c'];
  for (let i = 0; i < 600; i++) {
    const u = rng.nextDouble();
    const a = 16 + Math.floor(u * 672);
    const b = 1.1 + 11 * (0.7 * u + 0.3 * rng.nextDouble()) ** 2.5;
    const c = Math.exp(3 + 0.6 * rng.nextGaussian());
    lines.push(`${a},${b.toFixed(4)},${c.toFixed(2)}`);
  }
  const csv = lines.join('\n');
  const sample = lines.slice(1).map((l) => l.split(','));

  it('every numeric column of 50,000 generated rows lies within the sample [min, max]', () => {
    const { model, report } = fitCsv(csv);
    const out = generateCells(model, 9n, 50_000);
    for (let j = 0; j < 3; j++) {
      const s = numbers(sample, j);
      const g = numbers(out, j);
      const [lo, hi] = [Math.min(...s), Math.max(...s)];
      const outside = g.filter((v) => v < lo || v > hi).length;
      expect(outside, `${report.columns[j]!.name} (${report.columns[j]!.family}) in [${lo}, ${hi}]`).toBe(0);
    }
  });

  it('truncates rather than clamps: the end values are no more frequent than their neighbours', () => {
    const { model } = fitCsv(csv);
    const out = generateCells(model, 3n, 50_000);
    const a = numbers(out, 0);
    const at = (v: number): number => a.filter((x) => x === v).length;
    // one of 672 values has about 74 draws; a clamped end would hold the whole tail
    expect(at(16)).toBeLessThan(3 * Math.max(1, at(17), at(18)));
    expect(at(687)).toBeLessThan(3 * Math.max(1, at(686), at(685)));
  });
});

describe('the Empirical fallback keeps resolution', () => {
  // three clusters of 3,000 distinct coordinates written to 6 decimals: no single family fits
  const rng = new L64X128MixRandom(3375n);
  const centres = [33.7, 40.6, 61.2];
  const values = new Set<string>();
  while (values.size < 3000)
    values.add((centres[Math.floor(rng.nextDouble() * 3)]! + 2 * rng.nextGaussian()).toFixed(6));
  const csv = ['latitude', ...values].join('\n');

  it('draws thousands of distinct values at the sample precision, none of them a sample row', () => {
    const { model, report } = fitCsv(csv);
    expect(report.columns[0]!.family).toBe('Empirical');
    const out = generateCells(model, 5n, 3000).map(([c]) => c!);
    const distinct = new Set(out);
    // 3,000 draws from 3,000 equally likely points give about 1,900 distinct values; 200 points gave 200
    expect(distinct.size).toBeGreaterThan(1500);
    expect(out.every((c) => (c.split('.')[1] ?? '').length <= 6)).toBe(true);
    const copied = out.filter((c) => values.has(c)).length;
    expect(copied / out.length).toBeLessThan(0.05);
  });
});

describe('identifiers: row indexes stay running numbers, keys are fresh', () => {
  // RowNumber 1..n, an 8-digit customer number unique per row (not a row index), a balance
  const rng = new L64X128MixRandom(414n);
  const ids = new Set<number>();
  while (ids.size < 2000) ids.add(15_565_701 + Math.floor(rng.nextDouble() * 250_000));
  const lines = ['RowNumber,CustomerId,Balance'];
  [...ids].forEach((id, i) =>
    lines.push(`${i + 1},${id},${(50_000 + 20_000 * rng.nextGaussian()).toFixed(2)}`),
  );
  const csv = lines.join('\n');

  it('never writes a real customer number; fresh ones have the same width and are distinct', () => {
    const { model, report } = fitCsv(csv);
    expect(report.columns.map((c) => c.kind)).toEqual(['identifier', 'identifier', 'continuous']);
    const out = generateCells(model, 2n, 6000);
    const keys = out.map((r) => r[1]!);
    expect(keys.filter((k) => ids.has(Number(k)))).toEqual([]);
    expect(keys.every((k) => /^\d{8}$/.test(k))).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
    // the row index is the sample's own running number
    expect(out.slice(0, 2000).map((r) => Number(r[0]))).toEqual(
      Array.from({ length: 2000 }, (_, i) => i + 1),
    );
  });

  it('compare of the fitted model against its sample finds no copied identifier and no high finding', () => {
    const { model } = fitCsv(csv);
    const sample = { header: lines[0]!.split(','), rows: lines.slice(1).map((l) => l.split(',')) };
    const output = { header: sample.header, rows: generateCells(model, 4n, 2000) };
    const report = compareTables(sample, output);
    expect(report.findings.filter((f) => f.severity === 'high').map((f) => `${f.kind}:${f.column}`)).toEqual(
      [],
    );
    expect(report.columns[1]!.treatedAs).toBe('identifier');
  });
});

describe('a sample piled at an end keeps its pile', () => {
  it('credit scores capped at 850 (3% of rows) come out at 850 about as often', () => {
    const rng = new L64X128MixRandom(850n);
    const rows = Array.from({ length: 4000 }, () =>
      String(Math.min(850, Math.round(650 + 90 * rng.nextGaussian()))),
    );
    const atCap = rows.filter((r) => r === '850').length / rows.length;
    expect(atCap).toBeGreaterThan(0.01);
    const { model } = fitCsv(['score', ...rows].join('\n'));
    const out = generateCells(model, 6n, 20_000).map(([c]) => c);
    const share = out.filter((c) => c === '850').length / out.length;
    expect(share).toBeGreaterThan(atCap * 0.7);
    expect(share).toBeLessThan(atCap * 1.3);
  });
});
