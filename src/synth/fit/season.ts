/**
 * Seasonality: numeric columns whose level follows the calendar of a date column (a temperature
 * over the year, daily sales lower at weekends). The engine's Date draws a day uniformly within a
 * year, so a date outside the copula took no part in the dependence (seattle's month against
 * temperature: ρ −0.86 in the sample, 0.00 in the output). Now the date's calendar cell — its
 * month, its weekday, or both — joins the copula as an ordered category: its codes go in the
 * order of the cell means of the column the cells explain best, so the relation is monotone and a
 * Gaussian copula carries it. The date is then drawn within the cell the copula chose: a Switch on
 * the code whose branch draws a year (the sample's years of that cell), a Date in it, and redraws
 * (Truncate on the extracted month and weekday) until the day is in the cell.
 *
 * A Gaussian copula carries an ordered category only as a monotone trend, which blurs a step (a
 * weekend dip ordered among five weekdays of equal level came out at a fifth of its strength).
 * So the column the cells explain best is drawn as its cell's mean plus a residual: its marginal
 * is fitted to the residuals, which also stand for it in the dependence estimate, and after the
 * copula a Calculate adds the mean of the cell the row's code names (seasonalShift below).
 *
 * Only a complete date column qualifies (the first one). A grouping counts when it explains at
 * least SEASON_SHARE of some numeric column's variance after the adjustment for the number of
 * groups (the adjusted R² of the group means: twelve months fitted to 100 rows explain about 11%
 * by chance alone). Months and weekdays that both count are joined into month-and-weekday cells.
 */
import { tallySorted } from './discrete.js';
import { fitMarginal, isLattice } from './marginal.js';
import type { CalendarCell, ColumnPlan, PlanOptions } from './plan.js';
import { copulaCandidate } from './plan.js';

export type { CalendarPlanInfo } from './plan.js';

/** Share of a numeric column's variance the calendar must explain (adjusted η²). */
export const SEASON_SHARE = 0.1;

interface Explained {
  /** η²: the share of the variance the group means explain. */
  share: number;
  /** η² adjusted for the groups' count (adjusted R²). */
  adjusted: number;
  /** The mean of each group (NaN for a group with no row). */
  means: number[];
}

/** The correlation ratio of `values` over `groups` groups (`group` aligned with the values). */
function explained(values: readonly number[], group: readonly number[], groups: number): Explained {
  const sums = new Array<number>(groups).fill(0);
  const counts = new Array<number>(groups).fill(0);
  let sum = 0;
  values.forEach((v, k) => {
    sums[group[k]!]! += v;
    counts[group[k]!]!++;
    sum += v;
  });
  const n = values.length;
  const mean = sum / n;
  let total = 0;
  let between = 0;
  const means = sums.map((s, g) => (counts[g]! > 0 ? s / counts[g]! : NaN));
  for (const v of values) total += (v - mean) ** 2;
  means.forEach((m, g) => {
    if (counts[g]! > 0) between += counts[g]! * (m - mean) ** 2;
  });
  const share = total > 0 ? between / total : 0;
  const used = counts.filter((c) => c > 0).length;
  const adjusted = n > used ? 1 - ((1 - share) * (n - 1)) / (n - used) : 0;
  return { share, adjusted, means };
}

/** A way of cutting the year: a group index of a row from its month (0–11) and weekday (0–6). */
interface Grouping {
  parts: CalendarPlanParts;
  groups: number;
  of: (month: number, weekday: number) => number;
  cell: (group: number) => CalendarCell;
}

type CalendarPlanParts = 'month' | 'weekday' | 'month and weekday';

const BY_MONTH: Grouping = {
  parts: 'month',
  groups: 12,
  of: (m) => m,
  cell: (g) => ({ month: g + 1 }),
};
const BY_WEEKDAY: Grouping = {
  parts: 'weekday',
  groups: 7,
  of: (_, w) => w,
  cell: (g) => ({ weekday: g + 1 }),
};
const BY_BOTH: Grouping = {
  parts: 'month and weekday',
  groups: 84,
  of: (m, w) => m * 7 + w,
  cell: (g) => ({ month: Math.floor(g / 7) + 1, weekday: (g % 7) + 1 }),
};

/** The column a grouping explains best (by adjusted share), if any numeric column qualifies. */
function bestExplained(
  plans: readonly ColumnPlan[],
  groupOfRow: readonly number[],
  groups: number,
): (Explained & { by: string }) | undefined {
  let best: (Explained & { by: string }) | undefined;
  for (const p of plans) {
    if (!p.marginal || p.presenceOf || p.col.values.length < 2) continue;
    const e = explained(
      p.col.values,
      p.col.rowsOf.map((row) => groupOfRow[row]!),
      groups,
    );
    if (!best || e.adjusted > best.adjusted) best = { ...e, by: p.col.name };
  }
  return best;
}

/** Month (0–11) and ISO weekday (0 = Monday) of a `yyyy-mm-dd` cell. */
function calendarOf(cell: string): { month: number; weekday: number } {
  const day = new Date(`${cell.slice(0, 10)}T00:00:00Z`);
  return { month: day.getUTCMonth(), weekday: (day.getUTCDay() + 6) % 7 };
}

/**
 * The calendar plan of the first complete date column when its months, weekdays or both explain
 * enough of a numeric column, else undefined; `safeName` names its nodes.
 */
export function calendarPlan(
  plans: readonly ColumnPlan[],
  safeName: (date: ColumnPlan) => string,
  options: PlanOptions,
): { date: ColumnPlan; plan: ColumnPlan } | undefined {
  const date = plans.find((p) => p.col.kind === 'date' && p.col.missingRate === 0);
  if (!date) return undefined;
  const n = date.col.rowCount;
  const monthOfRow = new Array<number>(n).fill(0);
  const weekdayOfRow = new Array<number>(n).fill(0);
  date.col.rowsOf.forEach((row, k) => {
    const c = calendarOf(date.col.cells[k]!);
    monthOfRow[row] = c.month;
    weekdayOfRow[row] = c.weekday;
  });
  const rowsIn = (g: Grouping): number[] => monthOfRow.map((m, row) => g.of(m, weekdayOfRow[row]!));
  const month = bestExplained(plans, rowsIn(BY_MONTH), 12);
  const weekday = bestExplained(plans, rowsIn(BY_WEEKDAY), 7);
  const counts = (e: Explained | undefined): boolean => e !== undefined && e.adjusted >= SEASON_SHARE;
  const grouping =
    counts(month) && counts(weekday)
      ? BY_BOTH
      : counts(month)
        ? BY_MONTH
        : counts(weekday)
          ? BY_WEEKDAY
          : undefined;
  if (!grouping) return undefined;
  const groupOfRow = rowsIn(grouping);
  const best = bestExplained(plans, groupOfRow, grouping.groups)!;
  const rowsPer = new Array<number>(grouping.groups).fill(0);
  for (const g of groupOfRow) rowsPer[g]!++;
  // cells in the order of the column's cell means (ties by the calendar's own order)
  const groups = [...Array(grouping.groups).keys()]
    .filter((g) => rowsPer[g]! > 0)
    .sort((a, b) => (best.means[a] ?? 0) - (best.means[b] ?? 0) || a - b);
  const code = new Map(groups.map((g, i) => [g, i]));
  const years = groups.map(() => new Map<number, number>());
  date.col.cells.forEach((c, k) => {
    const y = years[code.get(groupOfRow[date.col.rowsOf[k]!]!)!]!;
    const year = Number(c.slice(0, 4));
    y.set(year, (y.get(year) ?? 0) + 1);
  });
  const codes = groupOfRow.map((g) => code.get(g)!);
  const label = (g: number): string => {
    const cell = grouping.cell(g);
    return [cell.month, cell.weekday].filter((x) => x !== undefined).join('/');
  };
  const plan: ColumnPlan = {
    col: {
      name: `${date.col.name} (${grouping.parts})`,
      index: date.col.index,
      kind: 'categorical',
      cells: groupOfRow.map(label),
      rowsOf: groupOfRow.map((_, i) => i),
      rowCount: n,
      values: [],
      missingRate: 0,
      decimals: 0,
      counts: groups.map((g) => [label(g), rowsPer[g]!]),
    },
    safe: safeName(date),
    labels: groups.map(label),
    weights: groups.map((g) => rowsPer[g]! / n),
    codes,
    inCopula: false,
    calendarOf: date,
    calendar: {
      parts: grouping.parts,
      cells: groups.map((g) => grouping.cell(g)),
      years,
      by: best.by,
      share: best.share,
    },
    notes: [],
  };
  date.calendarPlan = plan;
  const x = plans.find((p) => p.col.name === best.by);
  if (x)
    seasonalShift(
      x,
      plan,
      groups.map((g) => best.means[g]!),
      options,
    );
  return { date, plan };
}

/**
 * Draws `x` as its cell's mean plus a residual (see the module comment): refits its marginal to
 * the residuals, with an inverse CDF the copula can use and no affine map (its draw is then in
 * value space, where the sample's [min, max] bounds the shifted value). A column that does not
 * take part in the copula as it is, or whose residuals fit only a family with an affine map,
 * keeps the plain ordered-category dependence.
 */
function seasonalShift(x: ColumnPlan, calendar: ColumnPlan, means: number[], options: PlanOptions): void {
  if (!x.marginal || x.presence || x.col.missingRate > 0 || !copulaCandidate(x)) return;
  // values on a lattice (Fahrenheit degrees written in Celsius tenths, a small count) would leave
  // it once a mean is added: the shifted draws rounded to the precision fill the gaps, and each
  // of the sample's spikes shrinks (weather.csv's temp_max: 2% a value in the sample, 0.3% out)
  const integer = x.col.kind === 'integer';
  const t = tallySorted(Float64Array.from(x.col.values).sort());
  const h = integer ? 1 : 10 ** -x.col.decimals;
  if (
    (integer && t.length <= options.maxCategories) ||
    isLattice(t, x.col.values.length, h, options.minCategoryCount)
  )
    return;
  const codes = calendar.codes!;
  const residuals = x.col.rowsOf.map((row, k) => x.col.values[k]! - means[codes[row]!]!);
  const m = fitMarginal(residuals, false, x.col.decimals, { ...options, quantileOnly: true });
  if (m.affine) return;
  // what the report said of the column's own fit gives way to the residuals' fit
  const stale = x.marginal.note;
  if (stale !== undefined) x.notes = x.notes.filter((n) => n !== stale);
  if (m.note !== undefined) x.notes.push(m.note);
  x.marginal = { ...m, integer };
  x.codes = residuals;
  let [min, max] = [Infinity, -Infinity];
  for (const v of x.col.values) [min, max] = [Math.min(min, v), Math.max(max, v)];
  x.bounds = [min, max];
  x.seasonal = { calendar, means };
  x.notes.push(
    `its level follows ${calendar.calendarOf!.col.name}'s ${calendar.calendar!.parts}: drawn as the mean of the row's ${calendar.calendar!.parts === 'month and weekday' ? 'month and weekday' : calendar.calendar!.parts} (${means.length} means) plus a residual fitted on its own (${m.family})`,
  );
}
