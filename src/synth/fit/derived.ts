/**
 * Derived columns: a labelled column whose value is a function of another column in every row
 * (a class name and its number, "alive" and "survived", a port code and its town). Drawn on their
 * own, even through a strong correlation, such pairs disagree in some rows, which a real table
 * never does, and rows that repeat in the sample (the same person twice, told by the same
 * columns) stop repeating. So such a column is generated from its source through a lookup table.
 *
 * Only keys seen at least `minCount` times enter the table (a rarer key could point at a row);
 * the rows of rarer keys fall back to the commonest value, and the dependency must hold in the
 * other rows, which must be at least 90% of the rows.
 */
import type { ColumnPlan } from './plan.js';

export interface Derivation {
  source: ColumnPlan;
  /** The source's value as the model's row holds it (a code, an integer, or '' when blank). */
  table: Map<string, string>;
  /** What keys outside the table give: the commonest value. */
  fallback: string;
}

/** Share of the rows the table must cover. */
const COVERAGE = 0.9;

/** Each row's key as the copula's row carries the source (undefined: the output never has it). */
function sourceKeys(p: ColumnPlan): (string | undefined)[] | undefined {
  const keys = new Array<string | undefined>(p.col.rowCount).fill(undefined);
  if (p.labels) {
    // codes of left-out categories are -1: never generated
    p.col.rowsOf.forEach((row, k) => {
      const code = p.codes![k]!;
      if (code >= 0) keys[row] = String(code);
    });
    return keys;
  }
  if (p.marginal?.integer !== true) return undefined;
  p.col.rowsOf.forEach((row, k) => (keys[row] = String(p.col.values[k])));
  if (p.presence) for (let r = 0; r < keys.length; r++) keys[r] ??= '';
  return keys;
}

/** Each row's text ('' where missing). */
function targetValues(p: ColumnPlan): string[] {
  const out = new Array<string>(p.col.rowCount).fill('');
  p.col.rowsOf.forEach((row, k) => (out[row] = p.col.cells[k]!));
  return out;
}

/** The lookup table from `keys` to `values`, or undefined when it is not a function. */
function functionOf(
  keys: readonly (string | undefined)[],
  values: readonly string[],
  minCount: number,
): { table: Map<string, string>; counts: Map<string, number> } | undefined {
  const table = new Map<string, string>();
  const counts = new Map<string, number>();
  for (let r = 0; r < keys.length; r++) {
    const k = keys[r];
    if (k === undefined) continue;
    const seen = table.get(k);
    if (seen === undefined) table.set(k, values[r]!);
    else if (seen !== values[r]) return undefined;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  let covered = 0;
  for (const [k, c] of counts)
    if (c < minCount) table.delete(k);
    else covered += c;
  if (table.size < 2 || covered < COVERAGE * keys.length) return undefined;
  return { table, counts };
}

function commonest(values: readonly string[]): string {
  const counts = new Map<string, number>();
  let best = values[0]!;
  for (const v of values) {
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (c > counts.get(best)! || (c === counts.get(best) && v < best)) best = v;
  }
  return best;
}

/**
 * Marks every labelled column that is a function of another column with `derived`. A pair that
 * determine each other keep the earlier column as the source; a source is never itself derived.
 * A generator: it pauses after each column it examines, so an asynchronous fit can check its
 * budget and its cancellation in between (each column reads every other one).
 */
export function* findDerived(plans: readonly ColumnPlan[], minCount: number): Generator<void, void> {
  const keys = plans.map((p) => (p.presenceOf ? undefined : sourceKeys(p)));
  const texts = plans.map(targetValues);
  const isSource = new Set<number>();
  for (const [j, b] of plans.entries()) {
    if (!b.labels || b.presenceOf || isSource.has(j)) continue;
    yield;
    for (let i = 0; i < plans.length; i++) {
      const k = keys[i];
      if (i === j || k === undefined || plans[i]!.derived) continue;
      const fit = functionOf(k, texts[j]!, minCount);
      if (fit === undefined) continue;
      // a later source that the column determines as well: the column is the source instead
      if (i > j && keys[j] && functionOf(keys[j], texts[i]!, minCount)) continue;
      b.derived = { source: plans[i]!, table: fit.table, fallback: commonest(texts[j]!) };
      isSource.add(i);
      break;
    }
  }
}
