/**
 * One column, sample against output: kinds of values, formats, the distribution (KS for numbers
 * and dates, chi-square for categories), tails, spikes, category coverage and copied identifiers.
 */
import { type Findings, num, pct, round } from './findings.js';
import { type Profile, dominantKind, mostCommon, shareOf, summarize } from './profile.js';
import {
  allInPart,
  binomialTwoSided,
  binomialUpper,
  chiSquareTail,
  ksStatistic,
  ksTwoSampleP,
} from './stats.js';
import type { ColumnReport } from './types.js';
import type { ValueKind } from './values.js';

export interface ColumnSettings {
  maxCategories: number;
  checkIdentifiers: boolean;
  /** A numeric key (fit/keys.ts): only its format and copies are compared, not its values' spread. */
  key?: boolean;
}

/** Counts pooled below this go into one "other" cell, so every expected count is at least 5. */
const MIN_POOLED = 10;
const TYPED = 0.9;

interface Homogeneity {
  chiSquare: number;
  df: number;
  p: number;
  tvd: number;
}

/** Chi-square test of homogeneity of two count tables, rare values pooled; TVD on the raw shares. */
export function homogeneity(a: Map<string, number>, b: Map<string, number>): Homogeneity | undefined {
  const keys = new Set([...a.keys(), ...b.keys()]);
  const n1 = [...a.values()].reduce((s, x) => s + x, 0);
  const n2 = [...b.values()].reduce((s, x) => s + x, 0);
  if (n1 === 0 || n2 === 0) return undefined;
  let tvd = 0;
  const cells: [number, number][] = [];
  let other: [number, number] = [0, 0];
  for (const key of keys) {
    const x = a.get(key) ?? 0;
    const y = b.get(key) ?? 0;
    tvd += Math.abs(x / n1 - y / n2) / 2;
    if (x + y >= MIN_POOLED) cells.push([x, y]);
    else other = [other[0] + x, other[1] + y];
  }
  if (other[0] + other[1] >= MIN_POOLED) cells.push(other);
  if (cells.length < 2) return undefined;
  const t1 = cells.reduce((s, c) => s + c[0], 0);
  const t2 = cells.reduce((s, c) => s + c[1], 0);
  let chi = 0;
  for (const [x, y] of cells) {
    const e1 = ((x + y) * t1) / (t1 + t2);
    const e2 = ((x + y) * t2) / (t1 + t2);
    chi += (x - e1) ** 2 / e1 + (y - e2) ** 2 / e2;
  }
  const df = cells.length - 1;
  return { chiSquare: chi, df, p: chiSquareTail(chi, df), tvd };
}

function kindMap(p: Profile): Map<string, number> {
  return new Map([...p.kinds].filter(([, n]) => n > 0));
}

function describeKinds(p: Profile): string {
  return [...p.kinds]
    .filter(([, n]) => n > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, n]) => `${pct(n / p.count)} ${k}`)
    .join(', ');
}

function checkFormats(name: string, s: Profile, g: Profile, f: Findings): void {
  const kinds = homogeneity(kindMap(s), kindMap(g));
  if (kinds !== undefined)
    f.test(
      'type',
      name,
      kinds.p,
      kinds.tvd,
      `kinds of values differ: sample ${describeKinds(s)}; output ${describeKinds(g)}`,
    );
  else if (dominantKind(s) !== dominantKind(g) && s.count > 0 && g.count > 0)
    f.add(
      'medium',
      'type',
      name,
      `sample is mostly ${dominantKind(s)}, output mostly ${dominantKind(g)} (too few rows to test)`,
    );
  if (shareOf(s, 'number') >= TYPED && shareOf(g, 'number') >= TYPED) checkPrecision(name, s, g, f);
  if (dominantKind(s) === 'date' && dominantKind(g) === 'date') {
    const shape = mostCommon(s.shapes)!;
    if (shape !== mostCommon(g.shapes) && g.kinds.get('date')! >= 20) {
      // the model writes dates one way: a sample shape it never wrote is a real format change
      const severity = (g.shapes.get(shape) ?? 0) === 0 ? 'high' : 'medium';
      f.add(
        severity,
        'date-format',
        name,
        `sample dates look like ${shape}, output dates like ${mostCommon(g.shapes)}`,
      );
    }
  }
}

function checkPrecision(name: string, s: Profile, g: Profile, f: Findings): void {
  const fractional = (p: Profile): number =>
    p.decimals.filter((d) => d > 0).length / Math.max(1, p.decimals.length);
  const median = (p: Profile): number => p.decimals[p.decimals.length >> 1] ?? 0;
  const [fs, fg] = [fractional(s), fractional(g)];
  if (fs === 0 && fg >= 0.5)
    f.add('medium', 'precision', name, `sample holds whole numbers; ${pct(fg)} of the output has decimals`);
  else if (fg === 0 && fs >= 0.5)
    f.add('medium', 'precision', name, `output holds whole numbers; ${pct(fs)} of the sample has decimals`);
  else if (fs >= 0.5 && fg >= 0.5 && Math.abs(median(s) - median(g)) >= 2)
    f.add(
      'medium',
      'precision',
      name,
      `sample numbers carry ${median(s)} decimals (median), output numbers ${median(g)}`,
      Math.abs(median(s) - median(g)),
    );
}

/** Numbers or dates both tables hold enough of to compare as a line. */
function numericData(
  s: Profile,
  g: Profile,
): { kind: 'numeric' | 'date'; a: Float64Array; b: Float64Array } | undefined {
  const enough = (x: Float64Array, p: Profile, kind: ValueKind): boolean =>
    x.length >= 5 && x.length >= TYPED * (p.count - p.kinds.get('empty')!) && p.kinds.get(kind)! > 0;
  if (enough(s.numbers, s, 'number') && enough(g.numbers, g, 'number'))
    return { kind: 'numeric', a: s.numbers, b: g.numbers };
  if (enough(s.dates, s, 'date') && enough(g.dates, g, 'date'))
    return { kind: 'date', a: s.dates, b: g.dates };
  return undefined;
}

/** Index of the first element > x (upper) or ≥ x in a sorted array. */
function bound(x: Float64Array, v: number, strict: boolean): number {
  let lo = 0;
  let hi = x.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strict ? x[mid]! <= v : x[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Tails: of the pooled values beyond the pooled 1% quantile (at least 20 values), the sample's
 * share should be its share of all values; a threshold set from the pooled values keeps the
 * test exact under the null hypothesis, ties included.
 */
function checkTails(
  name: string,
  a: Float64Array,
  b: Float64Array,
  f: Findings,
  show: (x: number) => string,
): void {
  const n = a.length + b.length;
  if (n < 200) return;
  const pooled = Float64Array.from([...a, ...b]).sort();
  const k = Math.max(20, Math.ceil(0.01 * n));
  const q = a.length / n;
  for (const upper of [true, false]) {
    const t = upper ? pooled[n - k]! : pooled[k - 1]!;
    const countA = (strict: boolean): number =>
      upper ? a.length - bound(a, t, strict) : bound(a, t, !strict);
    const countB = (strict: boolean): number =>
      upper ? b.length - bound(b, t, strict) : bound(b, t, !strict);
    // beyond t strictly; with too few there (ties at t), t included, unless that is most values
    let [x, y] = [countA(true), countB(true)];
    if (x + y < 10) [x, y] = [countA(false), countB(false)];
    if (x + y < 10 || x + y > n / 2) continue;
    const p = binomialTwoSided(x, x + y, q);
    const side = upper ? 'upper' : 'lower';
    const [qa, qb]: [string, number] = upper ? ['p99', 0.99] : ['p01', 0.01];
    f.test(
      'tail',
      name,
      p,
      Math.abs(x / (x + y) - q),
      `${side} tail differs: ${pct(x / (x + y))} of the values ${upper ? 'above' : 'below'} ${show(t)} are the sample's (${pct(q)} expected); ${qa} sample ${show(quantile(a, qb))}, output ${show(quantile(b, qb))}`,
    );
  }
}

function quantile(x: Float64Array, q: number): number {
  return x[Math.min(x.length - 1, Math.floor(q * x.length))]!;
}

function checkSpikes(name: string, s: Profile, g: Profile, f: Findings): void {
  const q = s.count / (s.count + g.count);
  for (const key of new Set([...s.values.keys(), ...g.values.keys()])) {
    const x = s.values.get(key) ?? 0;
    const y = g.values.get(key) ?? 0;
    if (x + y < MIN_POOLED || key === '') continue;
    const p = binomialTwoSided(x, x + y, q);
    f.test(
      'spike',
      name,
      p,
      Math.abs(x / s.count - y / g.count),
      `value ${JSON.stringify(key)} is ${pct(x / s.count)} of the sample and ${pct(y / g.count)} of the output`,
    );
  }
}

function checkCoverage(
  name: string,
  s: Profile,
  g: Profile,
  f: Findings,
): { missing: string[]; extra: string[] } {
  const missing: string[] = [];
  const extra: string[] = [];
  const total = s.count + g.count;
  for (const [key, y] of g.values)
    if (!s.values.has(key)) {
      missing.push(key);
      if (y >= 3)
        f.test(
          'coverage',
          name,
          allInPart(y, g.count, total),
          y / g.count,
          `category ${JSON.stringify(key)} is ${pct(y / g.count)} of the output but absent from the sample`,
        );
    }
  for (const [key, x] of s.values)
    if (!g.values.has(key)) {
      extra.push(key);
      if (x >= 3)
        f.test(
          'coverage',
          name,
          allInPart(x, s.count, total),
          x / s.count,
          `category ${JSON.stringify(key)} is ${pct(x / s.count)} of the sample; the model did not produce it`,
        );
    }
  return { missing: missing.sort(), extra: extra.sort() };
}

/**
 * Identifiers copied from the sample: among the values seen exactly twice over both tables, one
 * copy in each happens with chance 2·n₁·n₂/(N(N−1)) when the two tables are independent draws;
 * copying sample values into the output makes it (far) more frequent.
 */
function checkIdentifiers(name: string, s: Profile, g: Profile, f: Findings): number {
  const n = s.count + g.count;
  const q = (2 * s.count * g.count) / (n * (n - 1));
  let pairs = 0;
  let split = 0;
  let copied = 0;
  for (const [key, x] of s.values) {
    if (key === '') continue;
    const y = g.values.get(key) ?? 0;
    if (x === 1 && y > 0) copied++;
    if (x + y === 2) {
      pairs++;
      if (x === 1) split++;
    }
  }
  for (const [key, y] of g.values) if (y === 2 && !s.values.has(key)) pairs++;
  if (split > 0) {
    const p = binomialUpper(split, pairs, q);
    f.test(
      'identifier',
      name,
      p,
      split - pairs * q,
      `${copied} value(s) unique in the sample appear verbatim in the output (${round(pairs * q)} expected by chance)`,
    );
  }
  return copied;
}

export function compareColumn(
  name: string,
  generatedName: string,
  s: Profile,
  g: Profile,
  settings: ColumnSettings,
  f: Findings,
): ColumnReport {
  checkFormats(name, s, g, f);
  if (settings.key) {
    // fresh keys are drawn outside the sample's range on purpose: their spread means nothing
    if (settings.checkIdentifiers) checkIdentifiers(name, s, g, f);
    return {
      name,
      generatedName,
      treatedAs: 'identifier',
      sample: summarize(s, s.numbers),
      generated: summarize(g, g.numbers),
    };
  }
  const data = numericData(s, g);
  const pooledDistinct = new Set([...s.values.keys(), ...g.values.keys()]).size;
  const categorical = pooledDistinct <= settings.maxCategories && pooledDistinct * 5 <= s.count + g.count;
  const report: ColumnReport = {
    name,
    generatedName,
    treatedAs:
      data === undefined
        ? categorical
          ? 'categorical'
          : 'text'
        : categorical
          ? 'numeric+categorical'
          : data.kind,
    sample: summarize(s, data?.a),
    generated: summarize(g, data?.b),
  };
  if (data !== undefined) {
    const show = data.kind === 'date' ? (t: number) => new Date(t).toISOString() : num;
    const d = ksStatistic(data.a, data.b);
    const p = ksTwoSampleP(d, data.a.length, data.b.length);
    report.ks = { d: round(d), p };
    const mean = (x: Float64Array): number => x.reduce((sum, v) => sum + v, 0) / x.length;
    f.test(
      'distribution',
      name,
      p,
      d,
      `distributions differ (KS D = ${round(d)}): median sample ${show(quantile(data.a, 0.5))}, output ${show(quantile(data.b, 0.5))}${data.kind === 'numeric' ? `; mean sample ${num(mean(data.a))}, output ${num(mean(data.b))}` : ''}`,
    );
    checkTails(name, data.a, data.b, f, show);
  }
  if (categorical) {
    const h = homogeneity(s.values, g.values);
    const coverage = checkCoverage(name, s, g, f);
    if (h !== undefined) {
      f.test(
        'distribution',
        name,
        h.p,
        h.tvd,
        `category frequencies differ (total variation ${round(h.tvd)}, chi-square ${round(h.chiSquare)} on ${h.df} df)`,
      );
      report.categories = {
        ...h,
        chiSquare: round(h.chiSquare),
        tvd: round(h.tvd),
        missingInSample: coverage.missing,
        extraInSample: coverage.extra,
      };
    }
  } else checkSpikes(name, s, g, f);
  if (settings.checkIdentifiers) checkIdentifiers(name, s, g, f);
  return report;
}
