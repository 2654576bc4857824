/**
 * Derived columns: a labelled column whose value is a function of another column in every row
 * (a class name and its number, "alive" and "survived", a port code and its town). Drawn on their
 * own, even through a strong correlation, such pairs disagree in some rows, which a real table
 * never does, and rows that repeat in the sample (the same person twice, told by the same
 * columns) stop repeating. So such a column is generated from its source through a lookup table.
 *
 * Only keys seen at least `minCount` times enter the table (a rarer key could point at a row);
 * the rows of rarer keys fall back to one common value, and the dependency must hold in the
 * other rows, which must be at least 90% of the rows.
 */
import type { ColumnPlan } from './plan.js';

export type { Derivation } from './plan.js';

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
): { table: Map<string, string> } | undefined {
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
  return { table };
}

/**
 * What a key outside the table gives: the commonest value among the rows of keys left out of it
 * (rare keys tend to share one: families of five are never alone), when the table has that value
 * too, so nothing new is shown; else the commonest value overall.
 */
function fallbackOf(
  keys: readonly (string | undefined)[],
  values: readonly string[],
  table: ReadonlyMap<string, string>,
): string {
  const left = values.filter((_, r) => keys[r] !== undefined && !table.has(keys[r]));
  const known = new Set(table.values());
  if (left.length > 0 && known.has(commonest(left))) return commonest(left);
  return commonest(values);
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
      b.derived = { source: plans[i]!, table: fit.table, fallback: fallbackOf(k, texts[j]!, fit.table) };
      isSource.add(i);
      break;
    }
  }
}

/** Sources considered for a pair, by how well each alone predicts the column. */
const PAIR_CANDIDATES = 6;
/** Rows the sources are ranked on (the pair itself is checked on every row). */
const RANK_ROWS = 20_000;
/** Above this many column × source rankings the pair search is skipped (wide tables). */
const PAIR_SEARCH_LIMIT = 2_500;

/** A source's whole-number values per row for a pair key (complete columns only), and its radix. */
function pairValues(p: ColumnPlan): { values: Float64Array; radix: number; min: number } | undefined {
  if (p.presenceOf || p.derived || p.presence || p.col.missingRate > 0) return undefined;
  // NaN: a row the output never has (a left-out category)
  const values = new Float64Array(p.col.rowCount).fill(NaN);
  let min = Infinity;
  let max = -Infinity;
  if (p.labels) {
    p.col.rowsOf.forEach((row, k) => {
      if (p.codes![k]! >= 0) values[row] = p.codes![k]!;
    });
    return { values, radix: p.labels.length, min: 0 };
  }
  if (p.marginal?.integer !== true) return undefined;
  for (const [k, row] of p.col.rowsOf.entries()) {
    const v = p.col.values[k]!;
    if (!Number.isSafeInteger(v) || Math.abs(v) > 1e6) return undefined;
    values[row] = v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  return { values, radix: max + 1, min };
}

/** Share of the rows whose value is the commonest one among the rows with the same key. */
function purity(keys: Float64Array, values: readonly string[]): number {
  const byKey = new Map<number, Map<string, number>>();
  const rows = Math.min(keys.length, RANK_ROWS);
  for (let r = 0; r < rows; r++) {
    let m = byKey.get(keys[r]!);
    if (!m) byKey.set(keys[r]!, (m = new Map()));
    m.set(values[r]!, (m.get(values[r]!) ?? 0) + 1);
  }
  let hits = 0;
  for (const m of byKey.values()) hits += Math.max(...m.values());
  return hits / rows;
}

/**
 * A labelled column that no single column determines may still be a function of two (`alone` of
 * `sibsp` and `parch`). Pairs are tried among the few columns that alone predict it best; both
 * must be whole numbers or codes with no missing cells, the second never negative. Tables wide
 * enough to make that search long (PAIR_SEARCH_LIMIT rankings) skip it.
 */
export function* findDerivedPairs(
  plans: readonly ColumnPlan[],
  minCount: number,
  maxCategories: number,
): Generator<void, void> {
  const sources = plans.map((p) => {
    const v = pairValues(p);
    return v && v.radix - Math.min(0, v.min) <= maxCategories ? v : undefined;
  });
  const targets = plans.filter((p) => p.labels && !p.presenceOf && !p.derived).length;
  if (targets * sources.filter((v) => v !== undefined).length > PAIR_SEARCH_LIMIT) return;
  const texts = plans.map(targetValues);
  const used = new Set(plans.flatMap((p) => (p.derived ? [p.derived.source, p.derived.second?.plan] : [])));
  for (const [j, b] of plans.entries()) {
    if (!b.labels || b.presenceOf || b.derived || used.has(b)) continue;
    yield;
    const ranked = plans
      .map((_, i) => i)
      .filter((i) => i !== j && sources[i] !== undefined && !plans[i]!.derived)
      .map((i) => ({ i, purity: purity(sources[i]!.values, texts[j]!) }))
      .sort((x, y) => y.purity - x.purity || x.i - y.i)
      .slice(0, PAIR_CANDIDATES);
    search: for (let x = 0; x < ranked.length; x++)
      for (let y = x + 1; y < ranked.length; y++) {
        const [a, c] = [ranked[x]!.i, ranked[y]!.i].sort((u, v) => u - v) as [number, number];
        const first = sources[a]!;
        const second = sources[c]!;
        if (second.min < 0) continue;
        const keys = Array.from(first.values, (v, r) => {
          const key = v * second.radix + second.values[r]!;
          return Number.isNaN(key) ? undefined : String(key);
        });
        const fit = functionOf(keys, texts[j]!, minCount);
        if (fit === undefined) continue;
        b.derived = {
          source: plans[a]!,
          second: { plan: plans[c]!, radix: second.radix },
          table: fit.table,
          fallback: fallbackOf(keys, texts[j]!, fit.table),
        };
        used.add(plans[a]).add(plans[c]);
        break search;
      }
  }
}
