/** One table's column read once: kinds, numbers, counts of values, formats. */
import { quantileSorted } from 'simple-statistics';
import type { ColumnSummary } from './types.js';
import { type ValueKind, dateShape, dateValue, decimalsOf, kindOf } from './values.js';

const KINDS: readonly ValueKind[] = ['empty', 'number', 'date', 'boolean', 'text'];

export interface Profile {
  count: number;
  kinds: Map<ValueKind, number>;
  /** Value → count; numbers keyed by their numeric value, so `1` and `1.0` are one value. */
  values: Map<string, number>;
  /** The finite numbers, sorted. */
  numbers: Float64Array;
  /** The dates that read one way only (epoch milliseconds), sorted. */
  dates: Float64Array;
  /** Per row: the number (or date) of the cell, NaN when it has none (for correlations). */
  byRow: Float64Array;
  decimals: number[];
  shapes: Map<string, number>;
}

/** The value a cell counts as: numbers by their value, anything else by its trimmed text. */
export function valueKey(cell: string, kind: ValueKind): string {
  const text = cell.trim();
  if (kind === 'empty') return ''; // NA, null and a blank are one missing value
  if (kind !== 'number') return text;
  const n = Number(text);
  return Number.isNaN(n) ? 'NaN' : String(n);
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export function profile(cells: readonly string[]): Profile {
  const kinds = new Map<ValueKind, number>(KINDS.map((k) => [k, 0]));
  const values = new Map<string, number>();
  const shapes = new Map<string, number>();
  const numbers: number[] = [];
  const dates: number[] = [];
  const decimals: number[] = [];
  const byRow = new Float64Array(cells.length).fill(Number.NaN);
  cells.forEach((cell, row) => {
    const kind = kindOf(cell);
    kinds.set(kind, kinds.get(kind)! + 1);
    bump(values, valueKey(cell, kind));
    if (kind === 'number') {
      const n = Number(cell.trim());
      if (Number.isFinite(n)) {
        numbers.push(n);
        byRow[row] = n;
      }
      decimals.push(decimalsOf(cell));
    } else if (kind === 'date') {
      bump(shapes, dateShape(cell));
      const t = dateValue(cell);
      if (t !== undefined) {
        dates.push(t);
        byRow[row] = t;
      }
    }
  });
  return {
    count: cells.length,
    kinds,
    values,
    numbers: Float64Array.from(numbers).sort(),
    dates: Float64Array.from(dates).sort(),
    byRow,
    decimals: decimals.sort((a, b) => a - b),
    shapes,
  };
}

/** The kind most cells have, ignoring empty ones (empty when all are). */
export function dominantKind(p: Profile): ValueKind {
  let best: ValueKind = 'empty';
  let most = 0;
  for (const kind of KINDS) {
    const n = p.kinds.get(kind)!;
    if (kind !== 'empty' && n > most) [best, most] = [kind, n];
  }
  return best;
}

/** Share of the non-empty cells that are of `kind`. */
export function shareOf(p: Profile, kind: ValueKind): number {
  const filled = p.count - p.kinds.get('empty')!;
  return filled === 0 ? 0 : p.kinds.get(kind)! / filled;
}

export function mostCommon(map: Map<string, number>): string | undefined {
  let best: string | undefined;
  let most = 0;
  for (const [key, n] of map) if (n > most) [best, most] = [key, n];
  return best;
}

export function summarize(p: Profile, numeric: Float64Array | undefined): ColumnSummary {
  const kinds = Object.fromEntries(KINDS.map((k) => [k, p.kinds.get(k)!])) as Record<ValueKind, number>;
  const summary: ColumnSummary = { count: p.count, kinds, distinct: p.values.size };
  if (numeric !== undefined && numeric.length > 0) {
    const sorted = Array.from(numeric);
    summary.min = sorted[0]!;
    summary.max = sorted[sorted.length - 1]!;
    summary.mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
    summary.p01 = quantileSorted(sorted, 0.01);
    summary.p50 = quantileSorted(sorted, 0.5);
    summary.p99 = quantileSorted(sorted, 0.99);
  }
  if (p.decimals.length > 0) summary.decimals = p.decimals[p.decimals.length >> 1]!;
  const shape = mostCommon(p.shapes);
  if (shape !== undefined) summary.dateShape = shape;
  return summary;
}
