/**
 * What-if verification: a compiled cell counts as verified only when the compiled model agrees with
 * the independent cell-grid evaluator (grid/) on the stored values and after K seeded random edits
 * of the model's inputs. A disagreement rejects the column or cell as WHAT_IF_MISMATCH with an
 * example edit; a cell the evaluator cannot evaluate is verified at the stored values only.
 */
import type { JsonObject, JsonValue, TestReport } from '../calc/index.js';
import { L64X128MixRandom } from '../synth/random/l64x128-mix-random.js';
import { blankOf, isError, reject, type Field, type TableModel } from './fields.js';
import { DEFAULT_GRID_LIMITS, fromCell, gridKey, type GridEdit } from './grid/evaluate.js';
import { StoredGrid } from './grid/stored.js';
import type { WhatIfOptions } from './grid/limits.js';
import { approxEqual, isXlError, type Scalar } from './grid/values.js';
import { sameAtDigits, storedDigits } from './stored-digits.js';
import { spilledValues } from './spill.js';
import type { SpecRunner } from './slices.js';
import { cellKey, cellName, type Workbook } from './xlsx.js';

/** Edits per check, and the seed that makes them (and so the report) reproducible. */
export const WHAT_IF_ROUNDS = 3;
export const WHAT_IF_SEED = 39;

/** How a compiled field was checked, as the report shows it. */
export interface FieldCheck {
  /** `what-if 3 edits`, `constant` (reads no input), or `stored-only: <why>`. */
  checked: string;
  /** Counted in `verifiedCells` (what-if or constant); otherwise in `storedOnlyCells`. */
  verified: boolean;
}

export type { WhatIfOptions } from './grid/limits.js';

/** The parts of the spec the model is built from (verify.ts's liveParts). */
export interface LiveParts {
  live: Field[];
  used: TableModel[];
}

interface Round {
  edits: (GridEdit & { field: Field; old: JsonValue })[];
  /** Every formula cell's value in the edited grid, and which were recalculated. */
  values: Map<string, Scalar>;
  recalculated: Set<string>;
  problems: Map<string, string>;
}

/**
 * The two sides agree when they are the same value; numbers within a relative 1e-9 (or 1e-12 of
 * nothing): the evaluator is IEEE arithmetic too but sums and computes functions in its own order,
 * and its `+`/`-` cancel to 0 as the spreadsheet's do. A wrong formula is off by far more.
 */
export function agrees(model: JsonValue | undefined, grid: Scalar): boolean {
  if (isXlError(grid)) return model === null || model === undefined;
  if (typeof grid === 'number' && typeof model === 'number') {
    const d = Math.abs(grid - model);
    return d <= 1e-12 || d <= 1e-9 * Math.max(Math.abs(grid), Math.abs(model));
  }
  if (typeof grid === 'string' && typeof model === 'string') return grid === model;
  return (grid ?? 0) === (model ?? 0);
}

const show = (v: JsonValue | Scalar | undefined): string =>
  v === undefined ? 'no value' : isXlError(v) ? v.message : JSON.stringify(v);

/** A model value for a grid value: an error is no value, as the compiled model shows it. */
const modelValue = (v: Scalar): JsonValue => (isXlError(v) ? null : v);

export class WhatIfVerifier {
  private readonly grid: StoredGrid;
  private readonly rounds: number;
  private readonly seed: number;
  private cached?: { signature: string; rounds: Round[] };
  readonly checks = new Map<Field, FieldCheck>();
  /** The digits the workbook's writer kept in its stored results (stored-digits.ts). */
  private readonly digits: number | undefined;

  constructor(
    private readonly book: Workbook,
    options: WhatIfOptions = {},
  ) {
    this.rounds = Math.max(3, options.rounds ?? WHAT_IF_ROUNDS);
    this.seed = options.seed ?? WHAT_IF_SEED;
    // the stored values' recalculation and each round of edits take their part of the budget; one
    // that runs out part way leaves the cells it did not reach with that as their problem
    this.grid = new StoredGrid(book, options.limits ?? DEFAULT_GRID_LIMITS);
    this.digits = storedDigits(book.sheets);
    this.grid.recalculate(1 / (this.rounds + 1));
  }

  private sheetIndex(f: Field): number {
    return this.book.sheets.indexOf(f.sheet);
  }

  /** The workbook cells of a field: a column's rows, or its one cell. */
  private cellsOf(f: Field): { row: number; col: number; index?: number }[] {
    if (!f.table) return [{ row: f.row, col: f.col }];
    const out: { row: number; col: number; index: number }[] = [];
    // a column with typed rows (columns.ts): its formula cells are the other rows, and its typed
    // input holds just those rows
    const typed = f.typedRows;
    const skipped = f.typed?.typedRows;
    for (let r = f.table.firstRow; r <= f.table.lastRow; r++) {
      if (typed && !typed.has(r)) continue;
      if (skipped?.has(r)) continue;
      out.push({ row: r, col: f.col, index: r - f.table.firstRow });
    }
    return out;
  }

  private where(f: Field, row: number, col: number): string {
    return `${f.sheet.name}!${cellName(row, col)}`;
  }

  /** Why the evaluator cannot vouch for the field, if it cannot. */
  private distrust(f: Field): string | undefined {
    const s = this.sheetIndex(f);
    for (const { row, col } of this.cellsOf(f)) {
      const problem = this.grid.problem(s, row, col);
      if (problem) return `${this.where(f, row, col)}: ${problem}`;
      if (!this.grid.isFormula(s, row, col)) return `${this.where(f, row, col)} holds no formula in the grid`;
      const stored = fromCell(f.sheet.cells.get(cellKey(row, col))?.value ?? null);
      const mine = this.grid.value(s, row, col);
      // a chain's end (a balance paid down to nothing) may sit far, relatively, from the stored
      // value where each of its cells, taken alone, gives the stored value (carriedDrift)
      if (typeof stored === 'number' && this.computesStored(f, row, col, stored)) continue;
      if (!agrees(modelValue(stored), mine) && !(isXlError(stored) && isXlError(mine))) {
        return `${this.where(f, row, col)}: the independent evaluation gives ${show(mine)} where the workbook stored ${show(stored)}`;
      }
    }
    return undefined;
  }

  /**
   * Whether the cell's own formula, evaluated by the grid on the workbook's stored values, gives
   * the stored number, to the last bits the stored-value check allows (relative 2^-48, or one unit
   * of the last digit a rounding writer kept): the formula, taken alone, is the spreadsheet's.
   */
  computesStored(f: Field, row: number, col: number, stored: number): boolean {
    const local = this.grid.evaluateAlone(this.sheetIndex(f), row, col);
    return (
      typeof local === 'number' && (approxEqual(local, stored) || sameAtDigits(stored, local, this.digits))
    );
  }

  /**
   * Whether a compiled number that is not the stored one (past its last bits) is the stored one
   * carried down a chain (verify.ts): the cell's formula alone computes the stored value
   * (computesStored), and the model gives what the grid's recalculation of the whole chain gives.
   */
  carriedDrift(f: Field, row: number, col: number, stored: number, model: number): boolean {
    if (!this.computesStored(f, row, col, stored)) return false;
    const chain = this.grid.value(this.sheetIndex(f), row, col);
    // to the last bits (or, for a residue near zero, within 1e-12), not the what-if bound's 1e-9:
    // the evaluator computes the chain with the model's own rounding (grid/payments.ts), so a
    // compilation that is right gives its bits, and a 10th-digit slip would show on a display
    return typeof chain === 'number' && (approxEqual(model, chain) || Math.abs(model - chain) <= 1e-12);
  }

  /**
   * Checks the live compiled fields after the stored-value check passed; rejects those that
   * disagree after an edit. True when something was rejected (the spec is then built again).
   */
  async check(
    runner: SpecRunner,
    parts: LiveParts,
    byKey: Map<string, Field>,
    /** Told how far the rounds are (0 to 1). */
    progress?: (fraction: number) => void,
  ): Promise<boolean> {
    this.checks.clear();
    const compiled = parts.live.filter((f) => f.kind === 'column' || f.kind === 'summary');
    const trusted: Field[] = [];
    for (const f of compiled) {
      if (f.constant) {
        this.checks.set(f, { checked: 'constant', verified: true });
        continue;
      }
      // a spill's array stands for no cell: its cells are checked one by one (spill.ts)
      if (f.spillArray) {
        this.checks.set(f, { checked: 'the array of a spill: its cells are checked each', verified: true });
        continue;
      }
      const why = this.distrust(f);
      if (why) this.checks.set(f, { checked: `stored-only: ${why}`, verified: false });
      else trusted.push(f);
    }
    if (trusted.length === 0) return false;
    progress?.(0);
    const rounds = this.roundsFor(parts);
    const exercised = new Map<Field, number>();
    const failures = new Map<Field, string>();
    const base = baseGiven(parts);
    for (const [n, round] of rounds.entries()) {
      const given = editedGiven(base, round, parts);
      const expect: JsonObject = {};
      const s = (f: Field): number => this.sheetIndex(f);
      for (const f of trusted) {
        let touched = false;
        for (const { row, col, index } of this.cellsOf(f)) {
          const key = gridKey(s(f), row, col);
          const problem = round.problems.get(key);
          if (problem && !this.checks.has(f)) {
            this.checks.set(f, {
              checked: `stored-only: ${this.where(f, row, col)} after an edit: ${problem}`,
              verified: false,
            });
          }
          if (round.recalculated.has(key)) touched = true;
          const path = f.table ? `$.${f.table.name}[${index}].${f.name}` : `$.${f.name}`;
          expect[path] = modelValue(round.values.get(key) ?? this.grid.value(s(f), row, col));
        }
        if (touched) exercised.set(f, (exercised.get(f) ?? 0) + 1);
      }
      const { runs } = runner.plan;
      const result = await runner.run({ description: `what-if edit ${n + 1}`, given, expect }, (done) =>
        progress?.((n + done / runs) / rounds.length),
      );
      this.rejectMismatches(result, round, byKey, failures);
    }
    for (const f of trusted) {
      if (this.checks.has(f) || failures.has(f)) continue;
      const n = exercised.get(f) ?? 0;
      this.checks.set(
        f,
        n >= 3
          ? { checked: `what-if ${n} edits`, verified: true }
          : n === 0 && !readsInput(f)
            ? { checked: 'constant', verified: true }
            : {
                checked: `stored-only: its inputs changed in ${n} of ${rounds.length} edits`,
                verified: false,
              },
      );
    }
    return failures.size > 0;
  }

  /** Rejects the fields the model computes otherwise than the grid after the round's edits. */
  private rejectMismatches(
    result: TestReport,
    round: Round,
    byKey: Map<string, Field>,
    failures: Map<Field, string>,
  ): void {
    for (const r of result.results) {
      for (const failure of r.failures ?? []) {
        const m = /^\$\.(?:([A-Za-z_]\w*)\[(\d+)\]\.)?([A-Za-z_]\w*)$/.exec(failure.path);
        const field = m ? byKey.get(m[1] !== undefined ? `${m[1]}.${m[3]}` : m[3]!) : undefined;
        if (!field || failures.has(field) || this.checks.has(field)) continue;
        const key = this.keyOf(field, m![2]);
        const gridValue = round.values.has(key) ? round.values.get(key)! : this.grid.valueByKey(key);
        if (agrees(failure.actual, gridValue)) continue;
        const row = field.table ? Number(m![2]) + field.table.firstRow : field.row;
        const edit = exampleEdit(round, field);
        const message =
          `${this.where(field, row, field.col)} after editing ${edit}: the compiled model gives ` +
          `${show(failure.actual)}, the workbook's formulas give ${show(gridValue)}`;
        failures.set(field, message);
        reject(field, 'WHAT_IF_MISMATCH', message, {
          cell: cellName(row, field.col),
          expected: modelValue(gridValue),
          actual: failure.actual,
          edit,
        });
      }
    }
  }

  /** The grid key of a field's cell (row index of a column, or its own cell). */
  keyOf(f: Field, index: string | undefined): string {
    const row = f.table ? Number(index) + f.table.firstRow : f.row;
    return gridKey(this.sheetIndex(f), row, f.col);
  }

  /** The rounds of edits of the live inputs, evaluated on the grid (cached while the inputs stay). */
  private roundsFor(parts: LiveParts): Round[] {
    const inputs = inputFields(parts);
    const signature = inputs.map((f) => `${f.table?.name ?? ''}.${f.name}`).join('\n');
    if (this.cached?.signature === signature) return this.cached.rounds;
    const rng = new L64X128MixRandom(this.seed);
    const rounds: Round[] = [];
    for (let n = 0; n < this.rounds; n++) {
      const edits: Round['edits'] = [];
      for (const f of inputs) {
        const s = this.sheetIndex(f);
        const draw = drawer(f, rng);
        for (const { row, col } of sampleCells(this.cellsOf(f), rng)) {
          const old = f.sheet.cells.get(cellKey(row, col))?.value ?? null;
          if (isError(old)) continue;
          // a draw may land on the old value (a column's own values): draw again, a few times
          let value = draw(old);
          for (let again = 0; again < 4 && value === old; again++) value = draw(old);
          if (value === old) continue;
          edits.push({ sheet: s, row, col, value, field: f, old });
        }
      }
      const problemsBefore = new Map(this.grid.problems);
      const round = this.grid.withEdits(
        edits,
        (recalculated, stale) => {
          const values = new Map<string, Scalar>();
          for (const k of recalculated) values.set(k, this.grid.valueByKey(k));
          // a cell the budget left stale after this edit is not vouched for (its field: stored-only)
          return { edits, values, recalculated, problems: new Map(stale) };
        },
        (n + 2) / (this.rounds + 1),
      );
      for (const [k, why] of this.grid.problems)
        if (problemsBefore.get(k) !== why && !round.problems.has(k)) round.problems.set(k, why);
      // a problem seen only after an edit stays with the round, not with the base grid
      for (const k of round.problems.keys()) {
        if (problemsBefore.has(k)) this.grid.problems.set(k, problemsBefore.get(k)!);
        else this.grid.problems.delete(k);
      }
      rounds.push(round);
    }
    this.cached = { signature, rounds };
    return rounds;
  }
}

/**
 * At most this many cells of one input column are edited in a round. A column's formula is the
 * same on every row, so a few hundred edited rows exercise it as well as all of them do, while a
 * 10,000-row table edited whole held millions of edits and their recalculations at once.
 */
export const EDITED_CELLS_PER_INPUT = 500;

/** The cells to edit: all of them, or a seeded sample of EDITED_CELLS_PER_INPUT in sheet order. */
export function sampleCells<T>(cells: T[], rng: L64X128MixRandom): T[] {
  if (cells.length <= EDITED_CELLS_PER_INPUT) return cells;
  const order = cells.map((_, i) => i);
  // a partial Fisher-Yates shuffle: the first EDITED_CELLS_PER_INPUT places are a uniform sample
  for (let i = 0; i < EDITED_CELLS_PER_INPUT; i++) {
    const j = i + Math.floor(rng.nextDouble() * (order.length - i));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order
    .slice(0, EDITED_CELLS_PER_INPUT)
    .sort((a, b) => a - b)
    .map((i) => cells[i]!);
}

/** The inputs the model is given: live table columns of the used tables and live side cells. */
function inputFields(parts: LiveParts): Field[] {
  return parts.live.filter(
    (f) => (f.kind === 'input' && f.table && parts.used.includes(f.table)) || f.kind === 'side',
  );
}

/** The values of a field's column on its sheet (a side cell's column: the constants around it). */
function columnValues(f: Field): JsonValue[] {
  const out: JsonValue[] = [];
  if (f.table) {
    for (let r = f.table.firstRow; r <= f.table.lastRow; r++) {
      const v = f.sheet.cells.get(cellKey(r, f.col))?.value ?? null;
      if (v !== null && !isError(v)) out.push(v);
    }
    return out;
  }
  const like = (c: { formula?: unknown; value: JsonValue } | undefined): c is { value: JsonValue } =>
    c !== undefined &&
    !c.formula &&
    c.value !== null &&
    !isError(c.value) &&
    typeof c.value === typeof f.value;
  for (let r = 1; r <= f.sheet.maxRow; r++) {
    const c = f.sheet.cells.get(cellKey(r, f.col));
    if (like(c)) out.push(c.value);
  }
  // a lone text (a key, a note) has no other text in its column: its row's texts (the labels and
  // keys beside it) are the edits, so formulas reading only that text are checked after edits too
  if (typeof f.value === 'string' && out.every((v) => v === f.value)) {
    for (let c = 1; c <= f.sheet.maxCol; c++) {
      const cell = f.sheet.cells.get(cellKey(f.row, c));
      if (like(cell)) out.push(cell.value);
    }
  }
  return out;
}

/**
 * How one input's cells are edited. A table column: a number within the column's range (a whole
 * number when the column holds whole numbers; half the time one of its own values, so lookups
 * find their keys), text from the column's values, a boolean at random. A side cell (a rate, a
 * key) is not a column of like values: its number moves within half of itself either way, or
 * half the time takes a value of the constants of its sheet column of the same magnitude.
 */
function drawer(f: Field, rng: L64X128MixRandom): (old: JsonValue) => Scalar {
  const values = columnValues(f);
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const texts = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  const pick = <T>(list: T[]): T => list[Math.floor(rng.nextDouble() * list.length)]!;
  const between = (lo: number, hi: number, whole: boolean): number => {
    const x = lo + rng.nextDouble() * (hi - lo);
    return whole ? Math.round(x) : x;
  };
  const whole = numbers.every((n) => Number.isInteger(n));
  // the column's range, once per input (per draw, it cost rows × edits on a long column)
  let low = 0;
  let high = 0;
  if (numbers.length > 0) {
    low = Infinity;
    high = -Infinity;
    for (const n of numbers) {
      if (n < low) low = n;
      if (n > high) high = n;
    }
  }
  return (old) => {
    if (typeof old === 'boolean') return rng.nextDouble() < 0.5;
    if (typeof old === 'string') return texts.length ? pick(texts) : old;
    if (typeof old !== 'number' && old !== null) return null;
    const v = old ?? 0;
    if (f.kind === 'side') {
      const near = numbers.filter(
        (n) => n !== v && Math.abs(n) >= Math.abs(v) / 2 && Math.abs(n) <= Math.abs(v) * 2,
      );
      if (near.length > 0 && rng.nextDouble() < 0.5) return pick(near);
      const span = Math.abs(v) / 2 || 1;
      return between(v - span, v + span, Number.isInteger(v));
    }
    if (numbers.length > 1 && rng.nextDouble() < 0.5) return pick(numbers);
    let lo = low;
    let hi = high;
    if (lo === hi) {
      const span = Math.abs(lo) / 2 || 1;
      lo -= span;
      hi += span;
    }
    return between(lo, hi, whole);
  };
}

/** The workbook's inputs as the spec's test gives them (verify.ts builds the same). */
function baseGiven(parts: LiveParts): {
  tables: Map<TableModel, JsonObject[]>;
  sides: Map<Field, JsonValue>;
} {
  const tables = new Map<TableModel, JsonObject[]>();
  const sides = new Map<Field, JsonValue>();
  const columns = new Map<TableModel, Field[]>();
  for (const f of inputFields(parts)) {
    if (f.kind === 'side') sides.set(f, f.value ?? null);
    else columns.set(f.table!, [...(columns.get(f.table!) ?? []), f]);
  }
  for (const [t, fields] of columns) {
    const rows: JsonObject[] = [];
    // each row made whole (Object.fromEntries): a compact object, not a dictionary (verify.ts's rowsOf)
    for (let r = t.firstRow; r <= t.lastRow; r++) {
      const entries = fields.map((f): [string, JsonValue] => {
        const v = t.sheet.cells.get(cellKey(r, f.col))?.value ?? null;
        return [f.name, v === null || isError(v) ? blankOf(f) : v];
      });
      rows.push(Object.fromEntries<JsonValue>(entries));
    }
    tables.set(t, rows);
  }
  for (const t of parts.used) if (!tables.has(t)) tables.set(t, rowsOfEmpty(t));
  return { tables, sides };
}

const rowsOfEmpty = (t: TableModel): JsonObject[] =>
  Array.from({ length: t.lastRow - t.firstRow + 1 }, () => ({}));

function editedGiven(base: ReturnType<typeof baseGiven>, round: Round, parts: LiveParts): JsonObject {
  const given: JsonObject = {};
  // the rows are shared with the base; an edited row is copied once, then edited
  const tables = new Map<TableModel, JsonObject[]>();
  for (const [t, rows] of base.tables) tables.set(t, rows.slice());
  const copied = new Set<JsonObject>();
  const sides = new Map(base.sides);
  for (const e of round.edits) {
    const v = isXlError(e.value) ? null : e.value;
    if (e.field.kind === 'side') {
      sides.set(e.field, v);
      continue;
    }
    const rows = tables.get(e.field.table!)!;
    const i = e.row - e.field.table!.firstRow;
    let row = rows[i]!;
    if (!copied.has(row)) {
      row = { ...row };
      copied.add(row);
      rows[i] = row;
    }
    row[e.field.name] = v;
  }
  for (const t of parts.used) given[`$.${t.name}`] = tables.get(t) ?? [];
  for (const [f, v] of sides) given[`$.${f.name}`] = v;
  for (const f of parts.live)
    if (f.constant)
      given[`$.${f.name}`] = f.spillArray
        ? spilledValues(f)
        : f.sheet.cells.get(cellKey(f.row, f.col))!.value;
  return given;
}

/** The fields a field reads, directly or through others. */
function depsOf(f: Field): Set<Field> {
  const deps = new Set<Field>();
  const stack = [f];
  while (stack.length > 0) {
    const g = stack.pop()!;
    for (const d of g.deps) {
      if (deps.has(d)) continue;
      deps.add(d);
      stack.push(d);
    }
  }
  return deps;
}

/** Whether an edit of the model's inputs can change the field (else it is a constant, e.g. `=E4*2` of `=100+25`). */
const readsInput = (f: Field): boolean =>
  [...depsOf(f)].some((d) => d.kind === 'input' || d.kind === 'side' || d.fold !== undefined);

/** An edit the field depends on (else the round's first), for the rejection's message. */
function exampleEdit(round: Round, f: Field): string {
  const deps = depsOf(f);
  const e = round.edits.find((x) => deps.has(x.field)) ?? round.edits[0];
  if (!e) return 'nothing';
  const more = round.edits.length - 1;
  return `${f.sheet.sheetNames.length > 0 ? `${e.field.sheet.name}!` : ''}${cellName(e.row, e.col)} ${show(e.old)} → ${show(e.value)}${more > 0 ? ` (with ${more} other input${more > 1 ? 's' : ''} edited)` : ''}`;
}
