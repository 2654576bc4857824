/**
 * fit on generated tables of every awkward shape (blanks and NA, repeated and derived columns, a
 * single value, quotes and commas in text, whole numbers written as 3.0): it never throws anything
 * but a FitError, the model it writes always runs, has the table's width, and every column it
 * reports as derived is a function of its source in the output too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FitError, fitCsv } from '../../src/synth/fit/index.js';
import { generateCells } from '../../src/synth/fit/quality.js';

const cell = fc.oneof(
  fc.constantFrom('', 'NA', '?', 'null'),
  fc.integer({ min: -3, max: 9 }).map(String),
  fc.integer({ min: 0, max: 5 }).map((n) => `${n}.0`),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((v) => v.toFixed(2)),
  fc.constantFrom(
    'red',
    'green',
    'blue',
    'True',
    'False',
    'say "hi", then',
    '2024-02-29',
    '2019-03-23 20:21:09',
  ),
);

/** A column: free cells, or a function of an earlier column (a lookup the fit may find). */
const columnPlan = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'free' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('derived' as const),
      of: fc.nat(),
      labels: fc.array(cell, { minLength: 1, maxLength: 4 }),
    }),
  },
);

const table = fc
  .record({
    rows: fc.integer({ min: 2, max: 60 }),
    plans: fc.array(columnPlan, { minLength: 1, maxLength: 6 }),
    pool: fc.array(fc.array(cell, { minLength: 1, maxLength: 8 }), { minLength: 6, maxLength: 6 }),
    picks: fc.array(fc.nat(), { minLength: 400, maxLength: 400 }),
  })
  .map(({ rows, plans, pool, picks }) => {
    let k = 0;
    const pick = <T>(xs: readonly T[]): T => xs[picks[k++ % picks.length]! % xs.length]!;
    const cols: string[][] = [];
    plans.forEach((p, j) => {
      if (p.kind === 'derived' && j > 0) {
        const source = cols[p.of % j]!;
        const seen = new Map<string, string>();
        cols.push(source.map((v) => seen.get(v) ?? (seen.set(v, pick(p.labels)), seen.get(v)!)));
      } else cols.push(Array.from({ length: rows }, () => pick(pool[j]!)));
    });
    return { header: plans.map((_, j) => `c${j}`), cols, rows };
  });

const quote = (c: string): string => `"${c.replace(/"/g, '""')}"`;

describe('fit on generated tables', () => {
  it('fits or refuses with a FitError, and what it writes runs with the derived columns kept', () => {
    fc.assert(
      fc.property(table, ({ header, cols, rows }) => {
        const csv = [header, ...Array.from({ length: rows }, (_, r) => cols.map((c) => c[r]!))]
          .map((line) => line.map(quote).join(','))
          .join('\n');
        let fit;
        try {
          fit = fitCsv(csv);
        } catch (err) {
          expect(err).toBeInstanceOf(FitError);
          return;
        }
        const out = generateCells(fit.model, 5n, 80);
        for (const row of out) expect(row).toHaveLength(header.length);
        fit.report.columns.forEach((c, j) => {
          if (c.derivedFrom === undefined) return;
          const sources = c.derivedFrom.split(', ').map((name) => header.indexOf(name));
          const seen = new Map<string, string>();
          for (const row of out) {
            const key = JSON.stringify(sources.map((s) => row[s]));
            const known = seen.get(key);
            if (known === undefined) seen.set(key, row[j]!);
            else expect(row[j], `${c.name} from ${c.derivedFrom}`).toBe(known);
          }
        });
      }),
      { numRuns: 150 },
    );
  });
});
