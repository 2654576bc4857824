/**
 * fit's 10% rules pinned just either side of their thresholds (issue 40, point 4), as
 * compare-fair.test.ts pins compare's: a lookup table must cover 90% of the rows (derived.ts
 * COVERAGE), a text column of more than 50 values is categorical when values seen 5 times cover
 * 90% of its cells (columns.ts REPEAT_SHARE), and rare categories holding at most 10% of the cells
 * are spread over the others, above that merged into one `other` label (plan.ts SPREAD_LIMIT).
 */
import { describe, expect, it } from 'vitest';
import { fitCsv } from '../../src/synth/fit/index.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';

function shuffle<T>(items: T[], seed: bigint): T[] {
  const rng = new L64X128MixRandom(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.nextDouble() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * 200 rows: `grade`, a `band` that is a function of it in every row, and a `score` that follows
 * the grade (so grade joins the copula). Grades 5–9 are seen 4 times each (too rare for the
 * table) plus `extraRare` more rows of grade 10 seen once; grades 1–4 fill the rest.
 */
function gradesCsv(extraRare: number): string {
  const grades: number[] = [];
  for (let g = 5; g <= 9; g++) for (let k = 0; k < 4; k++) grades.push(g);
  for (let k = 0; k < extraRare; k++) grades.push(10);
  for (let i = 0; grades.length < 200; i++) grades.push(1 + (i % 4));
  const rng = new L64X128MixRandom(12n);
  const lines = ['grade,band,score'];
  for (const g of shuffle(grades, 13n)) {
    const band = g <= 2 ? 'low' : 'high';
    lines.push(`${g},${band},${(g * 10 + rng.nextGaussian() * 3).toFixed(2)}`);
  }
  return lines.join('\n') + '\n';
}

describe('derived columns: the lookup table covers at least 90% of the rows (COVERAGE)', () => {
  it('180 of 200 rows in keys seen 5 times or more: band is looked up from grade', () => {
    const { report } = fitCsv(gradesCsv(0));
    const band = report.columns.find((c) => c.name === 'band')!;
    expect(band.derivedFrom).toBe('grade');
  });

  it('179 of 200 rows: band is drawn on its own (the table would leave too many rows out)', () => {
    const { report } = fitCsv(gradesCsv(1));
    const band = report.columns.find((c) => c.name === 'band')!;
    expect(band.derivedFrom).toBeUndefined();
    expect(band.family).toBe('Categorical');
  });
});

/** 200 cells: 34 names seen 5 times, one seen `last` times, and the rest names seen once (over 50 distinct). */
function namesCsv(last: number): string {
  const cells: string[] = [];
  for (let k = 0; k < 34; k++) for (let r = 0; r < 5; r++) cells.push(`zone${k}`);
  for (let r = 0; r < last; r++) cells.push('zone34');
  for (let k = 0; cells.length < 200; k++) cells.push(`single${k}`);
  return ['zone', ...shuffle(cells, 5n)].join('\n') + '\n';
}

describe('text with more than 50 values: categorical when repeats cover 90% of cells (REPEAT_SHARE)', () => {
  it('values seen 5 times hold 180 of 200 cells (55 distinct): categorical', () => {
    const { report } = fitCsv(namesCsv(10));
    expect(report.columns[0]!.kind).toBe('categorical');
  });

  it('179 of 200 cells (56 distinct): free text, replaced by a placeholder', () => {
    const { report } = fitCsv(namesCsv(9));
    expect(report.columns[0]!.kind).toBe('text');
  });
});

/** 100 cells: two common labels and `rare` labels seen once each. */
function rareCsv(rare: number): string {
  const cells: string[] = [];
  for (let k = 0; k < rare; k++) cells.push(`r${k}`);
  for (let i = 0; cells.length < 100; i++) cells.push(i % 2 === 0 ? 'a' : 'b');
  return ['label', ...shuffle(cells, 9n)].join('\n') + '\n';
}

describe('rare categories: spread when they hold at most 10% of the cells (SPREAD_LIMIT)', () => {
  it('10 of 100 cells: left out, their share spread over a and b (2 categories)', () => {
    const { report } = fitCsv(rareCsv(10));
    expect(report.columns[0]!.categories).toBe(2);
    expect(report.generalised.join('\n')).toMatch(/left out, their share spread/);
  });

  it('11 of 100 cells: merged into one "other" label (3 categories)', () => {
    const { report } = fitCsv(rareCsv(11));
    expect(report.columns[0]!.categories).toBe(3);
    expect(report.generalised.join('\n')).toMatch(/merged into "other"/);
  });
});
