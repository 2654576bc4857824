/**
 * Whole numbers come out as the sample writes them (issue 40): a column written `2, 3.5` (R's and
 * pandas' shortest form) prints its whole values `2`, not `2.0`, and keeps its decimals at the
 * sample's precision even when most of its values are whole (boston's `zn`, sacramento's `baths`).
 * Checked on the CSV text grind writes.
 */
import { describe, expect, it } from 'vitest';
import { SynthRun, parseModel } from '../../src/synth/index.js';
import { fitCsv } from '../../src/synth/fit/index.js';
import { typeColumn } from '../../src/synth/fit/columns.js';
import { renderChunks } from '../../src/synth/output/format.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import type { SynthModel } from '../../src/synth/model/types.js';

/** The CSV grind writes for `count` rows of the model, split into cells (no header). */
function csvCells(model: SynthModel, count: number): string[][] {
  const text = [...renderChunks(new SynthRun(model, 5n), { count, format: 'csv', header: false })].join('');
  return text
    .trim()
    .split('\n')
    .map((l) => l.split(','));
}

/** 600 rows: `mixed` writes whole values plainly and half its values at one decimal; `baths` is 97% whole. */
function mixedCsv(): string {
  const rng = new L64X128MixRandom(2040n);
  const lines = ['mixed,baths,other'];
  for (let i = 0; i < 600; i++) {
    const u = rng.nextDouble();
    const mixed =
      u < 0.5
        ? String(1 + Math.floor(rng.nextDouble() * 9))
        : String(Number((rng.nextDouble() * 10).toFixed(1)));
    const baths =
      rng.nextDouble() < 0.03
        ? `${1 + Math.floor(rng.nextDouble() * 3)}.5`
        : String(1 + Math.floor(rng.nextDouble() * 3));
    lines.push(`${mixed},${baths},${(rng.nextGaussian() * 3 + 20).toFixed(2)}`);
  }
  return lines.join('\n') + '\n';
}

describe('fit: whole values as the sample writes them', () => {
  const { model, report } = fitCsv(mixedCsv());
  const rows = csvCells(model, 3000);

  it('writes the whole values of a `2, 3.5` column as `2`, never `2.0`, and keeps one decimal', () => {
    expect(report.columns[0]!.kind).toBe('continuous');
    const cells = rows.map((r) => r[0]!);
    expect(cells.filter((c) => /\.0$/.test(c))).toEqual([]);
    expect(cells.some((c) => /^\d+$/.test(c))).toBe(true);
    expect(cells.some((c) => /^\d+\.[1-9]$/.test(c))).toBe(true);
    expect(cells.every((c) => /^\d+(\.\d)?$/.test(c))).toBe(true);
  });

  it('keeps the decimals of a column that is 97% whole (sacramento baths: 1.5, 2.5)', () => {
    const cells = rows.map((r) => r[1]!);
    expect(cells.filter((c) => /\.0$/.test(c))).toEqual([]);
    const halves = cells.filter((c) => /\.5$/.test(c)).length;
    // about 3% of the sample; the family spreads them, but they are there
    expect(halves).toBeGreaterThan(0);
    expect(cells.every((c) => /^\d+(\.\d)?$/.test(c))).toBe(true);
  });

  it('leaves a column written at fixed decimals as it is (20.50 stays two decimals, no int)', () => {
    const cells = rows.map((r) => r[2]!);
    expect(report.columns[2]!.kind).toBe('continuous');
    expect(cells.every((c) => c.includes('.'))).toBe(true);
  });

  it('keeps `2.0` where the sample writes `2.0` (a fixed one-decimal writer)', () => {
    const rng = new L64X128MixRandom(77n);
    const lines = ['t'];
    for (let i = 0; i < 400; i++) lines.push((Math.round(rng.nextGaussian() * 30) / 10 + 10).toFixed(1));
    const out = csvCells(fitCsv(lines.join('\n')).model, 2000).map((r) => r[0]!);
    expect(out.some((c) => /^\d+\.0$/.test(c))).toBe(true);
    expect(out.every((c) => /^-?\d+\.\d$/.test(c))).toBe(true);
  });

  it('writes plain whole values in the copula too (a column correlated with another)', () => {
    const rng = new L64X128MixRandom(91n);
    const lines = ['a,b'];
    for (let i = 0; i < 500; i++) {
      const a = rng.nextGaussian() * 2 + 10;
      const b = a + rng.nextGaussian();
      lines.push(`${Number(a.toFixed(1))},${Number(b.toFixed(1))}`);
    }
    const { model: m, report: r } = fitCsv(lines.join('\n'));
    expect(r.dependence.columns).toEqual(['a', 'b']);
    const out = csvCells(m, 2000);
    for (const j of [0, 1]) {
      const cells = out.map((row) => row[j]!);
      expect(cells.filter((c) => /\.0$/.test(c))).toEqual([]);
      expect(cells.some((c) => /^\d+$/.test(c))).toBe(true);
    }
  });
});

describe('ToInteger mode="whole"', () => {
  it('makes whole values ints and leaves the others doubles', () => {
    const model = parseModel(
      'dataset.root = W\nA = Constant(value="2")\nB = Constant(value="3.5")\nC = Constant(value="-4")\nP = Append(A, B, C)\nW = ToInteger(P, mode="whole")\n',
    );
    expect(csvCells(model, 1)).toEqual([['2', '3.5', '-4']]);
  });
});

describe('precision of a column written in the shortest form', () => {
  const typed = (cells: string[]) => typeColumn('x', 0, cells, { maxCategories: 50 });

  it('leaves plain whole values out: 95 whole cells and 5 at one decimal is one decimal', () => {
    const cells = Array.from({ length: 100 }, (_, i) => (i % 20 === 0 ? `${i}.5` : String(i * 7)));
    expect(typed(cells)).toMatchObject({ kind: 'continuous', decimals: 1, plainWhole: true });
  });

  it('takes the median of the other cells, not the longest (float noise sets nothing)', () => {
    // shortest-form doubles: 2 to 9 decimals, median 5 (life-expectancy's GDP)
    const cells = Array.from({ length: 99 }, (_, i) =>
      (i + 1 + (i % 8 === 7 ? 0.5 : 0.123456789)).toFixed(2 + (i % 8)),
    );
    const t = typed(cells);
    const places = cells.map((c) => c.split('.')[1]!.length).sort((a, b) => a - b);
    expect(t.decimals).toBe(places[49]);
  });

  it('writes 2.0 when the sample does: no plain whole value', () => {
    expect(typed(['2.0', '3.5', '4.0', '1.5']).plainWhole).toBeUndefined();
  });
});
