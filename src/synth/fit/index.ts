/**
 * @module synth/fit
 * Proposes a synth model from a sample table: column typing, maximum-likelihood marginals chosen
 * by an information criterion and checked by a KS distance, a Gaussian copula from normal-score
 * correlations, and privacy guard rails. Pure and deterministic: the same sample and options give
 * the same model text.
 */
import { parse } from 'csv-parse/sync';
import type { ModelFormat, SynthModel } from '../model/types.js';
import { writeModel } from '../model/io.js';
import { RESERVED, buildModel } from './build.js';
import type { ColumnKind } from './columns.js';
import { typeColumn } from './columns.js';
import { findDerived, findDerivedPairs } from './derived.js';
import { conditionalZero, copulaMatrix, normalScores, rankScores, scoreCorrelation } from './dependence.js';
import { type RankBins, latentCorrelation, rankBins, valueBins } from './latent.js';
import type { Criterion } from './marginal.js';
import type { CalendarPlanInfo, ColumnPlan, PlanOptions } from './plan.js';
import { copulaCandidate, planColumn, presencePlan, quantilePlan } from './plan.js';
import { type PrivacyFigure, privacyFigure } from './privacy.js';
import { calendarPlan } from './season.js';
import { SynthRun } from '../engine/run.js';
import { valueText } from '../output/format.js';

/** Why a sample could not be fitted; `code` is stable. */
export type FitErrorCode = 'FIT_INPUT' | 'FIT_LIMIT' | 'CANCELLED';

export class FitError extends Error {
  readonly code: FitErrorCode;
  constructor(code: FitErrorCode, message: string) {
    super(message);
    this.name = 'FitError';
    this.code = code;
  }
}

export interface FitOptions {
  /** Seed written into the model (default 1). */
  seed?: bigint | number;
  /** Information criterion ranking the families (default 'bic'). */
  criterion?: Criterion;
  /** The first CSV row holds column names (default true). */
  header?: boolean;
  /** Categories seen fewer times are merged (default 5). */
  minCategoryCount?: number;
  /** Most distinct values of a categorical or small-integer column (default 50). */
  maxCategories?: number;
  /** Quantile points of the Empirical fallback (default 200). */
  empiricalPoints?: number;
  /** Budgets: rows and columns read (defaults 1,000,000 and 200). */
  maxRows?: number;
  maxColumns?: number;
}

/** A copula pair weaker than this does not keep a family without an inverse CDF out of its family. */
const DEPENDENCE_FLOOR = 0.1;

export interface ColumnFit {
  name: string;
  /** Where the column is in the output (dim0, dim1, … as `grind --header` names them). */
  output: string;
  kind: ColumnKind;
  missingRate: number;
  family?: string;
  params?: Record<string, number>;
  /** KS distance of the chosen family against the sample (and its p-value where computed). */
  ks?: number;
  pValue?: number;
  candidates?: { family: string; score: number; ks: number }[];
  categories?: number;
  inCopula: boolean;
  /** The column this one is generated from by a lookup table (a function of it in every row). */
  derivedFrom?: string;
  generalised: string[];
}

export interface FitReport {
  rows: number;
  criterion: Criterion;
  columns: ColumnFit[];
  /** The copula's columns and the correlation matrix written into the model. */
  /** `blend`: share of the normal-score correlations mixed into the latent ones to keep the
   *  matrix positive definite (0: none); `shrink`: factor toward the identity after that. */
  dependence: { columns: string[]; matrix: number[][]; shrink: number; blend: number };
  /** Every generalisation, one line per column that had one. */
  generalised: string[];
  /** Generated rows equal to a sample row and the nearest-neighbour distance ratio (privacy.ts). */
  privacy: PrivacyFigure;
}

export interface FitResult {
  model: SynthModel;
  report: FitReport;
}

function nodeBase(name: string, i: number, used: Set<string>): string {
  let base = name
    .replace(/[^A-Za-z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 40);
  if (base === '' || !/^[A-Za-z]/.test(base)) base = `col${i + 1}${base === '' ? '' : `_${base}`}`;
  if (used.has(base.toLowerCase()) || RESERVED.has(base)) base = `${base}_${i + 1}`;
  used.add(base.toLowerCase());
  return base;
}

function readTable(text: string, o: Required<FitOptions>): { header: string[]; rows: string[][] } {
  let records: string[][];
  try {
    records = parse(text, {
      relax_column_count: false,
      skip_empty_lines: true,
      bom: true,
      to: o.maxRows + 2, // the header and one row over the budget
    });
  } catch (err) {
    throw new FitError('FIT_INPUT', `the sample is not readable CSV: ${(err as Error).message}`);
  }
  const header = o.header ? records.shift() : undefined;
  const width = header?.length ?? records[0]?.length ?? 0;
  if (records.length < 2) throw new FitError('FIT_INPUT', 'the sample needs at least two data rows');
  if (width > o.maxColumns)
    throw new FitError('FIT_LIMIT', `the sample has ${width} columns; the limit is ${o.maxColumns}`);
  if (records.length > o.maxRows)
    throw new FitError('FIT_LIMIT', `the sample has more than ${o.maxRows} rows`);
  return { header: header ?? Array.from({ length: width }, (_, i) => `col${i + 1}`), rows: records };
}

function withDefaults(options: FitOptions): Required<FitOptions> {
  return {
    seed: options.seed ?? 1,
    criterion: options.criterion ?? 'bic',
    header: options.header ?? true,
    minCategoryCount: options.minCategoryCount ?? 5,
    maxCategories: options.maxCategories ?? 50,
    empiricalPoints: options.empiricalPoints ?? 200,
    maxRows: options.maxRows ?? 1_000_000,
    maxColumns: options.maxColumns ?? 200,
  };
}

/** A plan's codes and their rows; codes of left-out rare categories are -1 and carry no rank. */
function codeValues(p: ColumnPlan): { values: number[]; rows: number[] } {
  if (!p.labels) return { values: p.codes!, rows: p.col.rowsOf };
  const keep = p.codes!.map((c) => c >= 0);
  return { values: p.codes!.filter((_, k) => keep[k]), rows: p.col.rowsOf.filter((_, k) => keep[k]) };
}

/** What the report says of a date whose calendar joined the copula (season.ts). */
function calendarNote(c: CalendarPlanInfo): string {
  const share = `${(c.share * 100).toFixed(0)}% of its variance`;
  if (c.parts === 'month')
    return `its month joins the copula (ordered by ${c.by}'s month means; months explain ${share}): each date is drawn within the month the copula gives`;
  if (c.parts === 'weekday')
    return `its weekday joins the copula (ordered by ${c.by}'s weekday means; weekdays explain ${share}): each date is drawn on the weekday the copula gives`;
  return `its month and weekday join the copula (ordered by ${c.by}'s means per month and weekday; together they explain ${share}): each date is drawn within the month and on the weekday the copula gives`;
}

/** Picks the copula's columns and its correlation (after refitting any that lack an inverse CDF). */
function dependence(plans: ColumnPlan[], po: PlanOptions): FitReport['dependence'] & { matrix: number[][] } {
  // a presence column comes right after its column (the positive-definite repair favours earlier
  // columns, and missingness is worth keeping) and follows it in or out
  const candidates: ColumnPlan[] = [];
  for (const p of plans) {
    // a date takes part through its calendar cell (season.ts), where the date column stands
    if (p.calendarPlan) candidates.push(p.calendarPlan);
    if (p.presenceOf || !copulaCandidate(p)) continue;
    candidates.push(p);
    if (p.presence) candidates.push(p.presence);
  }
  const scores = candidates.map((p) => {
    const { values, rows } = codeValues(p);
    return rankScores(values, rows, p.col.rowCount);
  });
  // Spearman's ρ of the sample, pairwise complete
  const r = scoreCorrelation(scores);
  const chosen: number[] = [];
  candidates.forEach((p, i) => {
    if (p.presenceOf && !chosen.includes(candidates.indexOf(p.presenceOf))) return;
    if (p.marginal && !p.marginal.quantile) {
      const strongest = Math.max(0, ...r[i]!.map((v, j) => (i === j ? 0 : Math.abs(v))));
      if (strongest < DEPENDENCE_FLOOR) return;
      quantilePlan(p, po);
    }
    chosen.push(i);
  });
  if (chosen.length < 2) {
    for (const p of candidates) p.inCopula = false;
    return { columns: [], matrix: [], shrink: 1, blend: 0 };
  }
  for (const i of chosen) {
    const p = candidates[i]!;
    p.inCopula = true;
    if (p.presenceOf)
      p.presenceOf.notes.push(
        `${(p.presenceOf.col.missingRate * 100).toFixed(1)}% missing cells kept: a presence column in the copula decides them, so missingness keeps its correlations`,
      );
    if (p.col.missingRate > 0 && !p.marginal)
      p.notes.push(
        `${(p.col.missingRate * 100).toFixed(1)}% missing cells not reproduced (the column joined the copula)`,
      );
  }
  const normal = scoreCorrelation(
    chosen.map((i) => {
      const { values, rows } = codeValues(candidates[i]!);
      return normalScores(values, rows, candidates[i]!.col.rowCount);
    }),
  );
  const bins = chosen.map((i) => outputBins(candidates[i]!));
  // one inversion per pair, mirrored: the two orders differ in the last digits. A nominal
  // column's codes have no order, so its ranks say little: those pairs keep the normal-score value
  const sub = chosen.map(() => chosen.map(() => 1));
  chosen.forEach((i, a) =>
    chosen.forEach((j, b) => {
      if (b >= a) return;
      const v =
        nominal(candidates[i]!) || nominal(candidates[j]!)
          ? normal[a]![b]!
          : latentCorrelation(r[i]![j]!, bins[a]!, bins[b]!);
      sub[a]![b] = sub[b]![a] = v;
    }),
  );
  // a column and its presence column never meet in the sample: their pair is the value that
  // makes missingness independent of the column given the others (missing at random)
  chosen.forEach((i, a) => {
    const owner = candidates[i]!.presenceOf;
    if (!owner) return;
    const b = chosen.indexOf(candidates.indexOf(owner));
    sub[a]![b] = sub[b]![a] = conditionalZero(sub, b, a);
    normal[a]![b] = normal[b]![a] = conditionalZero(normal, b, a);
  });
  const { matrix, shrink, blend } = copulaMatrix(sub, normal);
  return { columns: chosen.map((i) => candidates[i]!.col.name), matrix, shrink, blend };
}

/** Text labels in frequency order (more than two): codes without an order. */
function nominal(p: ColumnPlan): boolean {
  return (
    p.col.kind === 'categorical' &&
    p.labels!.length > 2 &&
    p.labels!.some((l) => !/^[-+]?\d+(\.\d+)?$/.test(l) && l !== '')
  );
}

/** How a copula column's output ties: its labels' or Empirical items' shares, else the sample's. */
function outputBins(p: ColumnPlan): RankBins {
  if (p.weights) return rankBins(p.weights);
  const m = p.marginal!;
  if (m.family === 'Empirical' && m.items)
    return rankBins([...m.items].sort((a, b) => a[0] - b[0]).map(([, w]) => w));
  return valueBins(p.col.values);
}

/** The column(s) a derived column is looked up from: `pclass`, or `sibsp, parch`. */
function derivedFrom(p: ColumnPlan): string {
  const d = p.derived!;
  return d.second ? `${d.source.col.name}, ${d.second.plan.col.name}` : d.source.col.name;
}

function columnReport(p: ColumnPlan, output: number): ColumnFit {
  const m = p.marginal;
  const fit: ColumnFit = {
    name: p.col.name,
    output: `dim${output}`,
    kind: p.col.kind,
    missingRate: p.col.missingRate,
    inCopula: p.inCopula,
    generalised: p.notes,
  };
  if (m) {
    fit.family = m.family;
    if (m.family !== 'Empirical')
      fit.params = Object.fromEntries(m.params.map(([k, v]) => [k, Number(v.toPrecision(6))]));
    fit.ks = m.ks;
    if (m.pValue !== undefined) fit.pValue = m.pValue;
    fit.candidates = m.ranking.map(({ family, score, ks }) => ({ family, score, ks }));
  }
  if (p.labels) {
    fit.family = 'Categorical';
    fit.categories = p.labels.length;
  }
  if (p.derived) {
    fit.family = 'Switch';
    fit.derivedFrom = derivedFrom(p);
    fit.categories = new Set(p.derived.table.values()).size;
  }
  return fit;
}

/**
 * The fit as steps: typing and fitting one column per step, then the copula. A caller that owns
 * an event loop runs the steps with pauses between them (fitTableAsync), so a budget or a
 * cancellation is seen within one column's work.
 */
function* fitSteps(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: FitOptions,
): Generator<void, FitResult> {
  const o = withDefaults(options);
  const po: PlanOptions = {
    criterion: o.criterion,
    maxCategories: o.maxCategories,
    empiricalPoints: o.empiricalPoints,
    quantileOnly: false,
    minCategoryCount: o.minCategoryCount,
  };
  const used = new Set<string>();
  const plans: ColumnPlan[] = [];
  for (const [i, name] of header.entries()) {
    yield;
    const col = typeColumn(
      name,
      i,
      rows.map((r) => r[i] ?? ''),
      { maxCategories: o.maxCategories },
    );
    plans.push(planColumn(col, nodeBase(name, i, used), po));
  }
  yield;
  for (const p of plans) {
    if (p.marginal === undefined || p.col.rowCount - p.col.cells.length < o.minCategoryCount) continue;
    const safe = nodeBase(`${p.col.name}_present`, p.col.index, used);
    presencePlan(p, safe);
  }
  calendarPlan(plans, (date) => nodeBase(`${date.safe}_month`, date.col.index, used), po);
  yield* findDerived(plans, o.minCategoryCount);
  yield* findDerivedPairs(plans, o.minCategoryCount, o.maxCategories);
  yield;
  const dep = dependence(plans, po);
  const calendar = plans.find((p) => p.calendarPlan)?.calendarPlan;
  if (calendar?.inCopula) calendar.calendarOf!.notes.push(calendarNote(calendar.calendar!));
  for (const p of plans) {
    if (!p.derived) continue;
    // a source that stayed out of the copula leaves the column to be drawn on its own after all
    if (p.derived.source.inCopula && (p.derived.second?.plan.inCopula ?? true))
      p.notes.push(`a function of ${derivedFrom(p)} in every row: generated from it by a lookup table`);
    else p.derived = undefined;
  }
  const model = buildModel({ plans, matrix: dep.matrix, seed: String(o.seed) });
  const columns = plans.map((p, i) => columnReport(p, i));
  const generated = yield* generateRows(model, BigInt(o.seed), rows.length);
  // identifiers and free text are drawn fresh: with them no row could ever be equal to another
  const compared = plans.flatMap((p, j) => (p.col.kind === 'identifier' || p.col.kind === 'text' ? [] : [j]));
  yield;
  const privacy = privacyFigure(header, rows, generated, compared, String(o.seed));
  return {
    model,
    report: {
      rows: rows.length,
      criterion: o.criterion,
      columns,
      dependence: dep,
      generalised: columns.flatMap((c) => c.generalised.map((g) => `${c.name}: ${g}`)),
      privacy,
    },
  };
}

/** Rows generated per step of the privacy check's generation. */
const GENERATION_STEP = 10_000;

/** `count` rows of the fitted model with the model's seed (as `compare` draws them), as CSV cells. */
function* generateRows(model: SynthModel, seed: bigint, count: number): Generator<void, string[][]> {
  const run = new SynthRun(model, seed);
  const out: string[][] = [];
  for (let i = 0; i < count; i++) {
    if (i % GENERATION_STEP === GENERATION_STEP - 1) yield;
    const row = run.next();
    const cells = new Array<string>(run.dimension);
    for (let d = 0; d < run.dimension; d++) cells[d] = valueText(row.value(d), row.kinds[d]!);
    out.push(cells);
  }
  return out;
}

/** Fits a table already split into cells. */
export function fitTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: FitOptions = {},
): FitResult {
  const steps = fitSteps(header, rows, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Between steps of an asynchronous fit: `check` throws to stop it, `pause` lets the event loop run. */
export interface FitControl {
  check: () => void;
  pause: () => Promise<void>;
}

/** fitCsv in steps: `control.check` runs after parsing and before each column and the copula. */
export async function fitCsvAsync(
  text: string,
  options: FitOptions,
  control: FitControl,
): Promise<FitResult> {
  control.check();
  const { header, rows } = readTable(text, withDefaults(options));
  const steps = fitSteps(header, rows, options);
  for (;;) {
    await control.pause();
    control.check();
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Fits CSV text (csv-parse; the first row is the header unless `header: false`). */
export function fitCsv(text: string, options: FitOptions = {}): FitResult {
  const o = withDefaults(options);
  const { header, rows } = readTable(text, o);
  return fitTable(header, rows, options);
}

/** Fits CSV text and writes the model in `format`. */
export function fitCsvToText(
  text: string,
  format: ModelFormat,
  options: FitOptions = {},
): FitResult & { modelText: string } {
  const result = fitCsv(text, options);
  return { ...result, modelText: writeModel(result.model, format) };
}
