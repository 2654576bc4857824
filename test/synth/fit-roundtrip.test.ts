/**
 * Round trip: draw 10^4 rows from a catalogue model with known parameters (the engine, seeded),
 * fit them, and expect the family and its parameters back; the fitted model's own output must
 * then match the sample (two-sample KS).
 */
import { describe, expect, it } from 'vitest';
import { parseModel } from '../../src/synth/index.js';
import { fitTable } from '../../src/synth/fit/index.js';
import { generateCells, ksDistance, quality } from '../../src/synth/fit/quality.js';

const ROWS = 10_000;

interface Case {
  text: string;
  family: string;
  params: Record<string, number>;
}

const CASES: Case[] = [
  { text: 'Normal(mean=10, sigma=2)', family: 'Normal', params: { mean: 10, sigma: 2 } },
  { text: 'Lognormal(mu=1, sigma=0.5)', family: 'Lognormal', params: { mu: 1, sigma: 0.5 } },
  { text: 'Gamma(shape=3, scale=2)', family: 'Gamma', params: { shape: 3, scale: 2 } },
  { text: 'Weibull(shape=1.5, scale=4)', family: 'Weibull', params: { shape: 1.5, scale: 4 } },
  { text: 'Exponential(lambda=0.5)', family: 'Exponential', params: { lambda: 0.5 } },
  { text: 'Poisson(lambda=4)', family: 'Poisson', params: { lambda: 4 } },
  { text: 'NegativeBinomial(r=3, p=0.4)', family: 'NegativeBinomial', params: { r: 3, p: 0.4 } },
  { text: 'Geometric(p=0.3)', family: 'Geometric', params: { p: 0.3 } },
];

function sampleOf(generator: string, seed: bigint): string[][] {
  const model = parseModel(`dataset.root = X\nX = ${generator}\n`);
  return generateCells(model, seed, ROWS);
}

describe('fit round trip (10^4 rows per case)', () => {
  for (const c of CASES)
    for (const seed of [11n, 29n]) {
      it(`recovers ${c.text} (seed ${seed})`, () => {
        const rows = sampleOf(c.text, seed);
        const { model, report } = fitTable(['x'], rows);
        const col = report.columns[0]!;
        const why = `seed ${seed}: ${JSON.stringify(col)}`;
        expect(col.family, why).toBe(c.family);
        for (const [k, v] of Object.entries(c.params))
          expect(Math.abs(col.params![k]! - v) / v, `${k} ${why}`).toBeLessThan(0.06);
        const regenerated = generateCells(model, seed + 1000n, ROWS);
        const d = ksDistance(
          rows.map((r) => Number(r[0])),
          regenerated.map((r) => Number(r[0])),
        );
        // two-sample KS, 10^4 vs 10^4: 1.95·sqrt(2/10^4) ≈ 0.028 is the 0.1% critical value
        expect(d, why).toBeLessThan(0.028);
      });
    }

  it('recovers a Gaussian copula correlation between two columns', () => {
    const model = parseModel(
      [
        'dataset.root = C',
        'A = Normal(mean=0, sigma=1)',
        'B = Weibull(shape=2, scale=1)',
        'C = Copula(A, B, correlation="1, 0.6; 0.6, 1")',
      ].join('\n'),
    );
    const rows = generateCells(model, 5n, ROWS);
    const { model: fitted, report } = fitTable(['a', 'b'], rows);
    expect(report.dependence.columns).toEqual(['a', 'b']);
    expect(report.columns.map((c) => c.family)).toEqual(['Normal', 'Weibull']);
    expect(Math.abs(report.dependence.matrix[0]![1]! - 0.6)).toBeLessThan(0.03);
    const q = quality(['a', 'b'], rows, generateCells(fitted, 6n, ROWS));
    expect(q.correlationError).toBeLessThan(0.03);
    for (const c of q.columns) expect(c.distance, c.name).toBeLessThan(0.028);
  });
});
