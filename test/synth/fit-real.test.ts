/** fit on real-data shapes: ties in the copula, timestamps, repeating text, empty categories. */
import { sampleRankCorrelation } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { parseModel } from '../../src/synth/index.js';
import { fitTable } from '../../src/synth/fit/index.js';
import { copulaMatrix } from '../../src/synth/fit/dependence.js';
import { latentCorrelation, rankBins, spearmanOfLatent } from '../../src/synth/fit/latent.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { cholesky } from '../../src/synth/components/samplers.js';

const col = (rows: string[][], j: number): number[] => rows.map((r) => Number(r[j]));

describe('latent correlation', () => {
  it('inverts the rank correlation of tied columns, which is weaker than the latent one', () => {
    const a = rankBins([0.5, 0.3, 0.2]);
    const b = rankBins([0.1, 0.6, 0.3]);
    for (const r of [-0.8, -0.3, 0.2, 0.6, 0.9]) {
      const rho = spearmanOfLatent(r, a, b);
      expect(Math.abs(rho)).toBeLessThan(Math.abs(r)); // ties attenuate
      expect(latentCorrelation(rho, a, b)).toBeCloseTo(r, 3);
    }
    // continuous columns: Spearman's ρ = (6/π)·asin(r/2)
    expect(latentCorrelation((6 / Math.PI) * Math.asin(0.35), 'continuous', 'continuous')).toBeCloseTo(
      0.7,
      6,
    );
    expect(spearmanOfLatent(0.7, 'continuous', 'continuous')).toBeCloseTo((6 / Math.PI) * Math.asin(0.35), 2);
  });

  it('reproduces the rank correlation of two discrete columns through the fitted copula', () => {
    const seed = 20261202n;
    const model = parseModel(`dataset.root = D
A = Categorical(weights="4, 3, 2, 1")
B = Poisson(lambda=1.5)
D = Copula(A, B, correlation="1, 0.8; 0.8, 1")
`);
    const cells = generateCells(model, seed, 4000);
    const { model: fitted, report } = fitTable(['a', 'b'], cells);
    expect(report.dependence.columns, `seed ${seed}`).toEqual(['a', 'b']);
    const out = generateCells(fitted, 5n, 4000);
    const rs = sampleRankCorrelation(col(cells, 0), col(cells, 1));
    const rg = sampleRankCorrelation(col(out, 0), col(out, 1));
    expect(Math.abs(rs - rg), `seed ${seed}: sample ${rs}, output ${rg}`).toBeLessThan(0.03);
    expect(report.dependence.matrix[0]![1]).toBeGreaterThan(rs); // the latent value is corrected upward
  });

  it('repairs a matrix that is not positive definite in the column that breaks it', () => {
    const bad = [
      [1, 0.95, -0.9],
      [0.95, 1, 0.9],
      [-0.9, 0.9, 1],
    ];
    const data = [
      [1, 0.9, -0.3],
      [0.9, 1, 0.1],
      [-0.3, 0.1, 1],
    ];
    const { matrix, blend } = copulaMatrix(bad, data);
    expect(cholesky(matrix)).not.toBeNull();
    expect(blend).toBeGreaterThan(0);
    // only the column that breaks positive definiteness gives way: the first pair is untouched
    expect(matrix[0]![1]).toBe(0.95);
    expect(matrix[2]![0]).toBeGreaterThan(-0.9);
  });
});

describe('column shapes of real samples', () => {
  const seed = 7331n;
  const rng = new L64X128MixRandom(seed);
  const zones = Array.from({ length: 80 }, (_, i) => `Zone ${i}`);
  const header = ['at', 'zone', 'pay'];
  const rows: string[][] = [];
  for (let i = 0; i < 3000; i++) {
    const day = 1 + Math.floor(rng.nextDouble() * 28);
    const h = Math.floor(rng.nextDouble() * 24);
    const m = Math.floor(rng.nextDouble() * 60);
    const at = `2019-03-${String(day).padStart(2, '0')} ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:17`;
    // 80 zones (above the 50-category limit), with a thin tail of one-off zones
    const zone = i % 200 === 0 ? `Rare ${i}` : zones[Math.floor(rng.nextDouble() * rng.nextDouble() * 80)]!;
    const pay = rng.nextDouble() < 0.02 ? '' : rng.nextDouble() < 0.7 ? 'card' : 'cash';
    rows.push([at, zone, pay]);
  }
  const { model, report } = fitTable(header, rows);
  const out = generateCells(model, 3n, 3000);

  it('types timestamps and writes bucket starts in the sample shape, never a sample timestamp', () => {
    expect(report.columns[0]!.kind, `seed ${seed}`).toBe('timestamp');
    expect(report.columns[0]!.generalised.join(' ')).toMatch(/generalised to the (hour|day)/);
    const sample = new Set(rows.map((r) => r[0]));
    for (const r of out) {
      expect(r[0]).toMatch(/^2019-03-\d\d \d\d:00:00$/);
      expect(sample.has(r[0])).toBe(false);
    }
  });

  it('keeps a repeating text column with many values as categories, rare values left out', () => {
    expect(report.columns[1]!.kind, `seed ${seed}`).toBe('categorical');
    const labels = new Set(out.map((r) => r[1]));
    expect(labels.size).toBeGreaterThan(50);
    expect([...labels].some((l) => l!.startsWith('Rare') || l === 'other')).toBe(false);
  });

  it('keeps the missing cells of a categorical column as an empty category', () => {
    expect(report.columns[2]!.generalised.join(' ')).toMatch(/missing cells kept as an empty category/);
    const blank = out.filter((r) => r[2] === '').length / out.length;
    expect(blank, `seed ${seed}`).toBeGreaterThan(0.01);
    expect(blank).toBeLessThan(0.035);
  });
});
