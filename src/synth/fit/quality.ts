/**
 * How close a fitted model's output is to its sample: per-column two-sample KS distances (numeric
 * columns) or total variation distance (other columns), and the largest difference between the
 * two Spearman correlation matrices. Used by the fit tests and benches; `compare` (issue 20) is
 * the user-facing judge.
 */
import { sampleRankCorrelation } from 'simple-statistics';
import { SynthRun } from '../engine/run.js';
import type { SynthModel } from '../model/types.js';
import { isText } from '../engine/row.js';
import { valueText } from '../output/format.js';

/** `count` rows of the model as CSV cells (seeded, in process). */
export function generateCells(model: SynthModel, seed: bigint, count: number): string[][] {
  const run = new SynthRun(model, seed);
  const out: string[][] = [];
  for (let i = 0; i < count; i++) {
    const row = run.next();
    const cells: string[] = [];
    for (let j = 0; j < run.dimension; j++)
      cells.push(isText(row.kinds[j]!) ? (row.strs[j] ?? '') : valueText(row.nums[j]!, row.kinds[j]!));
    out.push(cells);
  }
  return out;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function numericColumn(rows: readonly (readonly string[])[], j: number): number[] | undefined {
  const out: number[] = [];
  for (const r of rows) {
    const c = (r[j] ?? '').trim();
    if (c === '') continue;
    if (!NUMBER.test(c)) return undefined;
    out.push(Number(c));
  }
  return out;
}

/** Two-sample KS distance: the largest gap between the two empirical CDFs, ties handled per value. */
export function ksDistance(sample: readonly number[], generated: readonly number[]): number {
  const a = Float64Array.from(sample).sort();
  const b = Float64Array.from(generated).sort();
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < a.length || j < b.length) {
    const v = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i]! : b[j]!;
    while (i < a.length && a[i] === v) i++;
    while (j < b.length && b[j] === v) j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}

function tvd(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, [number, number]>();
  for (const c of a) (counts.get(c) ?? counts.set(c, [0, 0]).get(c)!)[0]++;
  for (const c of b) (counts.get(c) ?? counts.set(c, [0, 0]).get(c)!)[1]++;
  let d = 0;
  for (const [x, y] of counts.values()) d += Math.abs(x / a.length - y / b.length);
  return d / 2;
}

export interface Quality {
  /** Per column: KS distance (numeric) or total variation distance of the cells (other). */
  columns: { name: string; measure: 'ks' | 'tvd'; distance: number }[];
  /** Largest |Δρ| between the Spearman matrices of the numeric columns. */
  correlationError: number;
}

export function quality(
  header: readonly string[],
  sample: readonly (readonly string[])[],
  generated: readonly (readonly string[])[],
): Quality {
  const numeric: { s: number[]; g: number[]; j: number }[] = [];
  const columns = header.map((name, j) => {
    const s = numericColumn(sample, j);
    const g = numericColumn(generated, j);
    if (s && g && s.length > 1 && g.length > 1) {
      if (s.length === sample.length && g.length === generated.length) numeric.push({ s, g, j });
      return { name, measure: 'ks' as const, distance: ksDistance(s, g) };
    }
    return {
      name,
      measure: 'tvd' as const,
      distance: tvd(
        sample.map((r) => r[j] ?? ''),
        generated.map((r) => r[j] ?? ''),
      ),
    };
  });
  let correlationError = 0;
  for (let a = 0; a < numeric.length; a++)
    for (let b = 0; b < a; b++) {
      const rs = sampleRankCorrelation(numeric[a]!.s, numeric[b]!.s);
      const rg = sampleRankCorrelation(numeric[a]!.g, numeric[b]!.g);
      if (Number.isFinite(rs) && Number.isFinite(rg))
        correlationError = Math.max(correlationError, Math.abs(rs - rg));
    }
  return { columns, correlationError };
}
