/**
 * Seasonality: numeric columns whose level follows the month of a date column (a temperature,
 * daily sales). The engine's Date draws a day uniformly within a year, so a date outside the
 * copula took no part in the dependence (seattle's month against temperature: ρ −0.86 in the
 * sample, 0.00 in the output). Now the date's month joins the copula as an ordered category: its
 * codes go in the order of the month means of the column the months explain best, so the
 * relation is monotone and a Gaussian copula carries it. The date is then drawn within the month
 * the copula chose: a Switch on the month code whose branch draws a year (the sample's years of
 * that month), a Date in it, and redraws (Truncate on the extracted month) until the month is
 * the one wanted.
 *
 * Only a complete date column qualifies (the first one), and only when the months explain at
 * least SEASON_SHARE of some numeric column's variance (the correlation ratio η²).
 */
import type { ColumnPlan } from './plan.js';

export type { MonthPlanInfo } from './plan.js';

/** Share of a numeric column's variance the months must explain (η²). */
export const SEASON_SHARE = 0.1;

/** The correlation ratio η² of `values` over the groups `group` (rows aligned). */
function explained(values: readonly number[], group: readonly number[]): { share: number; means: number[] } {
  const sums = new Array<number>(12).fill(0);
  const counts = new Array<number>(12).fill(0);
  let sum = 0;
  values.forEach((v, k) => {
    sums[group[k]!]! += v;
    counts[group[k]!]!++;
    sum += v;
  });
  const mean = sum / values.length;
  let total = 0;
  let between = 0;
  const means = sums.map((s, m) => (counts[m]! > 0 ? s / counts[m]! : NaN));
  for (const v of values) total += (v - mean) ** 2;
  means.forEach((m, i) => {
    if (counts[i]! > 0) between += counts[i]! * (m - mean) ** 2;
  });
  return { share: total > 0 ? between / total : 0, means };
}

/**
 * The month plan of the first complete date column when the months explain enough of a numeric
 * column, else undefined; `safeName` names its nodes.
 */
export function monthPlan(
  plans: readonly ColumnPlan[],
  safeName: (date: ColumnPlan) => string,
): { date: ColumnPlan; plan: ColumnPlan } | undefined {
  const date = plans.find((p) => p.col.kind === 'date' && p.col.missingRate === 0);
  if (!date) return undefined;
  const monthOfRow = new Array<number>(date.col.rowCount).fill(0);
  date.col.rowsOf.forEach((row, k) => (monthOfRow[row] = Number(date.col.cells[k]!.slice(5, 7)) - 1));
  let best: { share: number; means: number[]; by: string } | undefined;
  for (const p of plans) {
    if (!p.marginal || p.presenceOf || p.col.values.length < 2) continue;
    const group = p.col.rowsOf.map((row) => monthOfRow[row]!);
    const e = explained(p.col.values, group);
    if (!best || e.share > best.share) best = { ...e, by: p.col.name };
  }
  if (!best || best.share < SEASON_SHARE) return undefined;
  const counts = new Array<number>(12).fill(0);
  for (const m of monthOfRow) counts[m]!++;
  // months in the order of the column's month means (a month it never has goes by its label)
  const months = [...Array(12).keys()]
    .filter((m) => counts[m]! > 0)
    .sort((a, b) => (best.means[a] ?? 0) - (best.means[b] ?? 0) || a - b);
  const code = new Map(months.map((m, i) => [m, i]));
  const years = months.map(() => new Map<number, number>());
  date.col.cells.forEach((c, k) => {
    const y = years[code.get(monthOfRow[date.col.rowsOf[k]!]!)!]!;
    const year = Number(c.slice(0, 4));
    y.set(year, (y.get(year) ?? 0) + 1);
  });
  const codes = monthOfRow.map((m) => code.get(m)!);
  const n = date.col.rowCount;
  const plan: ColumnPlan = {
    col: {
      name: `${date.col.name} (month)`,
      index: date.col.index,
      kind: 'categorical',
      cells: monthOfRow.map((m) => String(m + 1)),
      rowsOf: monthOfRow.map((_, i) => i),
      rowCount: n,
      values: [],
      missingRate: 0,
      decimals: 0,
      counts: months.map((m) => [String(m + 1), counts[m]!]),
    },
    safe: safeName(date),
    labels: months.map((m) => String(m + 1)),
    weights: months.map((m) => counts[m]! / n),
    codes,
    inCopula: false,
    monthOf: date,
    month: { months: months.map((m) => m + 1), years, by: best.by, share: best.share },
    notes: [],
  };
  date.monthPlan = plan;
  return { date, plan };
}
