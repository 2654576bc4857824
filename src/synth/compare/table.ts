/** Table-wide checks: the rank-correlation matrix, duplicate rows and rows copied from the sample. */
import { sampleRankCorrelation } from 'simple-statistics';
import { type Findings, pct, round } from './findings.js';
import type { Profile } from './profile.js';
import { binomialUpper, normalTwoSided } from './stats.js';
import type { CorrelationReport, DuplicateReport, Table } from './types.js';

/** Spearman's ρ over the rows where both cells hold a number; null when too few or constant. */
function spearman(x: Float64Array, y: Float64Array): { rho: number; n: number } | null {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < x.length; i++)
    if (!Number.isNaN(x[i]!) && !Number.isNaN(y[i]!)) {
      a.push(x[i]!);
      b.push(y[i]!);
    }
  if (a.length < 10) return null;
  const rho = sampleRankCorrelation(a, b);
  return Number.isFinite(rho) ? { rho, n: a.length } : null;
}

/**
 * Compares the Spearman matrices pair by pair with Fisher's z, using Bonett and Wright's
 * variance (1 + ρ²/2)/(n − 3) for a rank correlation.
 */
export function compareCorrelations(
  names: string[],
  s: Profile[],
  g: Profile[],
  f: Findings,
): CorrelationReport {
  const k = names.length;
  const sample: (number | null)[][] = names.map(() => Array<number | null>(k).fill(null));
  const generated: (number | null)[][] = names.map(() => Array<number | null>(k).fill(null));
  let maxDifference = 0;
  for (let i = 0; i < k; i++) {
    sample[i]![i] = generated[i]![i] = 1;
    for (let j = i + 1; j < k; j++) {
      const rs = spearman(s[i]!.byRow, s[j]!.byRow);
      const rg = spearman(g[i]!.byRow, g[j]!.byRow);
      sample[i]![j] = sample[j]![i] = rs === null ? null : round(rs.rho);
      generated[i]![j] = generated[j]![i] = rg === null ? null : round(rg.rho);
      if (rs === null || rg === null) continue;
      const diff = Math.abs(rs.rho - rg.rho);
      maxDifference = Math.max(maxDifference, diff);
      const clamp = (r: number): number => Math.max(-0.9999, Math.min(0.9999, r));
      const variance = (r: number, n: number): number => (1 + (r * r) / 2) / Math.max(1, n - 3);
      const z =
        (Math.atanh(clamp(rs.rho)) - Math.atanh(clamp(rg.rho))) /
        Math.sqrt(variance(rs.rho, rs.n) + variance(rg.rho, rg.n));
      f.test(
        'correlation',
        undefined,
        normalTwoSided(z),
        diff,
        `rank correlation of ${names[i]} and ${names[j]}: sample ${round(rs.rho)}, output ${round(rg.rho)}`,
      );
    }
  }
  return { columns: names, sample, generated, maxDifference: round(maxDifference) };
}

function rowKey(row: string[]): string {
  return row.map((c) => c.trim()).join('\u0000');
}

function counts(rows: string[][]): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of rows) {
    const key = rowKey(row);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * Duplicate rows (a two-proportion z-test on the share of rows repeating an earlier one) and
 * sample rows found in the output (the same chance-of-a-split test as identifiers, on rows).
 */
export function compareRows(sample: Table, generated: Table, f: Findings): DuplicateReport {
  const [n1, n2] = [sample.rows.length, generated.rows.length];
  const cs = counts(sample.rows);
  const cg = counts(generated.rows);
  const d1 = n1 - cs.size;
  const d2 = n2 - cg.size;
  const [r1, r2] = [n1 === 0 ? 0 : d1 / n1, n2 === 0 ? 0 : d2 / n2];
  const pooled = (d1 + d2) / Math.max(1, n1 + n2);
  if (n1 > 0 && n2 > 0 && pooled > 0 && pooled < 1) {
    const z = (r1 - r2) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    f.test(
      'duplicates',
      undefined,
      normalTwoSided(z),
      Math.abs(r1 - r2),
      `duplicate rows: ${pct(r1)} of the sample, ${pct(r2)} of the output`,
    );
  }
  let inOutput = 0;
  let pairs = 0;
  let split = 0;
  for (const [key, x] of cs) {
    const y = cg.get(key) ?? 0;
    if (y > 0) inOutput += x;
    if (x + y === 2) {
      pairs++;
      if (x === 1) split++;
    }
  }
  for (const [key, y] of cg) if (y === 2 && !cs.has(key)) pairs++;
  const n = n1 + n2;
  if (split > 0 && n > 1) {
    const q = (2 * n1 * n2) / (n * (n - 1));
    f.test(
      'copied-rows',
      undefined,
      binomialUpper(split, pairs, q),
      split - pairs * q,
      `${inOutput} sample row(s) appear verbatim in the output (${round(pairs * q)} pairs expected by chance, ${split} found)`,
    );
  }
  return { sample: round(r1), generated: round(r2), sampleRowsInOutput: inOutput };
}
