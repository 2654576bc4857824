/**
 * An independent evaluator of the workbook's own formulas over its cell grid: references, ranges
 * across sheets, defined names, structured references, operators with Excel's coercions, errors as
 * values, the functions of @formulajs/formulajs (functions.ts). It shares the formula parser with
 * the compiler and nothing else, so a compiled model can be checked against it after edits.
 */
import type { Formula } from '../formula.js';
import { formulaResolver } from '../structure.js';
import { cancellationOf } from '../cancellation.js';
import { cellName, type Workbook, type Worksheet } from '../xlsx.js';
import { callCriteria, CRITERIA_FUNCTIONS, sizedSumArea } from './criteria.js';
import { callFunction, DYNAMIC_REFERENCE, GridUnsupported, hasFunction, VOLATILE } from './functions.js';
import { lambdaCallOf, letPairs, MAX_LAMBDA_DEPTH, type LambdaCall } from './lambda.js';
import { blankSubtotals } from './subtotals.js';
import { NameTable } from './names.js';
import { DYNAMIC_ARRAY_FUNCTIONS, fitSpill, markSpill } from './dynamic.js';
import { DEFAULT_GRID_LIMITS, type GridLimits } from './limits.js';
import { dependencyOrder, gridKey, type FormulaCell } from './order.js';
import { GridBudget, ValueStore } from './store.js';
import { tableArea, thisRowInside, type Area } from './tables.js';
import { asScalar, binary, ifOverArray, lift1, lift2, numeric } from './operators.js';
import {
  fromCell,
  isMatrix,
  isXlError,
  toBoolean,
  toNumber,
  xlError,
  type GridValue,
  type Matrix,
  type Scalar,
} from './values.js';

export { DEFAULT_GRID_LIMITS, type GridLimits } from './limits.js';
export { fromCell } from './values.js';
export { gridKey } from './order.js';

/** One edit of an input cell. */
export interface GridEdit {
  sheet: number;
  row: number;
  col: number;
  value: Scalar;
}

export interface Context {
  sheet: number;
  row: number;
  col: number;
  /** Values of the names the LET and LAMBDA blocks around the node bind (lower case). */
  bound?: ReadonlyMap<string, GridValue>;
}

const MAX_NAME_DEPTH = 16;

/** Excel's last row and column: a range reaching them (`$1:$1048576`) is read as far as the sheet is used. */
const SHEET_ROWS = 1_048_576;
const SHEET_COLUMNS = 16_384;

export class CellGrid {
  protected values = new ValueStore();
  protected readonly cells = new Map<string, FormulaCell>();
  private order: FormulaCell[] = [];
  /** Cells whose evaluation failed in some recalculation, with the reason. */
  readonly problems = new Map<string, string>();
  private readonly nameTable: NameTable;
  /** Each spill anchor's current result (its key → rows of cells). */
  private readonly spilled = new Map<string, Matrix>();
  private readonly spending: GridBudget;
  /** How far + and - cancel to 0 in the program that computed the workbook (cancellation.ts). */
  private readonly cancelBelow: number;
  /**
   * How far along the dependency order the evaluation got within its budget: the cells before this
   * index are evaluated in every recalculation (they read only cells before them), the rest are not.
   */
  private reach = 0;

  constructor(
    protected readonly book: Workbook,
    limits: GridLimits = DEFAULT_GRID_LIMITS,
  ) {
    this.spending = new GridBudget(limits);
    this.cancelBelow = cancellationOf(book);
    this.nameTable = new NameTable(book);
    book.sheets.forEach((sheet, s) => {
      const resolve = formulaResolver(sheet);
      for (const cell of sheet.cells.values()) {
        const key = gridKey(s, cell.row, cell.col);
        this.values.set(s, cell.row, cell.col, fromCell(cell.value));
        if (!cell.formula) continue;
        const fc: FormulaCell = { key, sheet: s, row: cell.row, col: cell.col, reads: [] };
        // a cell of a spill reads its anchor; an anchor keeps its result range (dynamic.ts)
        if (markSpill(book, s, cell, fc)) {
          this.cells.set(key, fc);
          continue;
        }
        try {
          // a legacy array formula ({=B2*C2}) evaluates as written (operators take arrays element
          // by element); one whose result is an array is not evaluated (scalarResult)
          fc.formula = resolve(cell);
          this.collectReads(fc.formula, { sheet: s, row: cell.row, col: cell.col }, fc.reads, 0);
        } catch (err) {
          fc.unsupported = err instanceof GridUnsupported ? err.reason : messageOf(err);
        }
        this.cells.set(key, fc);
      }
    });
    this.order = dependencyOrder(this.cells, (c) => this.address(c));
    this.reach = this.order.length;
  }

  /** The current value of a cell (a blank is null). */
  value(sheet: number, row: number, col: number): Scalar {
    return this.values.get(sheet, row, col);
  }

  /** A cell's current value by its grid key. */
  valueByKey(key: string): Scalar {
    const [sheet, row, col] = key.split(':').map(Number) as [number, number, number];
    return this.values.get(sheet, row, col);
  }

  /** Whether a cell holds a formula the grid evaluates. */
  isFormula(sheet: number, row: number, col: number): boolean {
    return this.cells.has(gridKey(sheet, row, col));
  }

  /** Why a formula cell cannot be evaluated, if it cannot. */
  problem(sheet: number, row: number, col: number): string | undefined {
    const key = gridKey(sheet, row, col);
    return this.cells.get(key)?.unsupported ?? this.problems.get(key);
  }

  /**
   * Recalculates every formula cell from the inputs, in dependency order, within `share` of the
   * budgets (a fraction, counted with the work before: the what-if rounds each take their part).
   * When the budget runs out part way, the cells evaluated so far keep their values (each read
   * only cells before it in the order) and every later one gets the budget as its problem.
   */
  recalculate(share = 1): void {
    this.spending.timed(share, () => {
      for (let i = 0; i < this.reach; i++) {
        const c = this.order[i]!;
        if (c.unsupported) continue;
        if (!this.evaluateCell(c)) {
          this.reach = i;
          break;
        }
      }
      for (let i = this.reach; i < this.order.length; i++) {
        const c = this.order[i]!;
        if (!c.unsupported) this.problems.set(c.key, this.unfinished());
      }
    });
  }

  /** Why the budget ran out, once it has (the cells past that point are not vouched for). */
  get budgetExhausted(): string | undefined {
    return this.spending.exhausted;
  }

  /** A cell's problem when the budget ran out before it was evaluated. */
  private unfinished(): string {
    return `the independent evaluation ran out of its budget before this cell: ${this.spending.exhausted ?? 'budget'}`;
  }

  /**
   * Applies the edits, recalculates the cells that depend on them (and only those) within `share`
   * of the budgets, calls `read` with the grid in that state, the formula cells recalculated and
   * those left stale (downstream of an edit, past the point the budget reached), then puts every
   * changed cell back.
   */
  withEdits<T>(
    edits: GridEdit[],
    read: (recalculated: Set<string>, stale: Map<string, string>) => T,
    share = 1,
  ): T {
    const saved = new Map<string, { sheet: number; row: number; col: number; value: Scalar }>();
    const save = (sheet: number, row: number, col: number, k: string): void => {
      if (!saved.has(k)) saved.set(k, { sheet, row, col, value: this.values.get(sheet, row, col) });
    };
    // the changed rows of each column, as a set: a cell's test costs the smaller of its block's
    // height and the column's changed rows (a list scanned per cell was quadratic in the rows)
    const dirty = new Map<string, Set<number>>();
    const mark = (sheet: number, row: number, col: number): void => {
      const k = `${sheet}:${col}`;
      const rows = dirty.get(k);
      if (rows) rows.add(row);
      else dirty.set(k, new Set([row]));
    };
    for (const e of edits) {
      const k = gridKey(e.sheet, e.row, e.col);
      save(e.sheet, e.row, e.col, k);
      this.values.set(e.sheet, e.row, e.col, e.value);
      mark(e.sheet, e.row, e.col);
    }
    const touches = (a: Area): boolean => {
      for (let col = a.left; col <= a.right; col++) {
        const rows = dirty.get(`${a.sheet}:${col}`);
        if (!rows) continue;
        if (a.bottom - a.top < rows.size) {
          for (let r = a.top; r <= a.bottom; r++) if (rows.has(r)) return true;
        } else {
          for (const r of rows) if (r >= a.top && r <= a.bottom) return true;
        }
      }
      return false;
    };
    const recalculated = new Set<string>();
    const stale = new Map<string, string>();
    try {
      this.spending.timed(share, () => {
        for (let i = 0; i < this.order.length; i++) {
          const c = this.order[i]!;
          if (!c.reads.some(touches)) continue;
          // a cell not recalculated still marks its own cell: the cells reading it are stale too
          mark(c.sheet, c.row, c.col);
          if (c.unsupported) continue;
          if (i < this.reach) {
            save(c.sheet, c.row, c.col, c.key);
            if (this.evaluateCell(c)) {
              recalculated.add(c.key);
              continue;
            }
            // the budget ran out here: this round and the next stop at this point
            this.reach = i;
          }
          stale.set(c.key, this.unfinished());
        }
      });
      return read(recalculated, stale);
    } finally {
      for (const v of saved.values()) this.values.set(v.sheet, v.row, v.col, v.value);
    }
  }

  /** Evaluates one cell; false when the budget does not allow it (nothing is changed then). */
  private evaluateCell(c: FormulaCell): boolean {
    if (c.unsupported) return true;
    if (!this.spending.allow()) return false;
    try {
      if (c.spillOf) {
        // the anchor's result there; a cell past the end of a shorter result is blank
        const m = this.spilled.get(c.spillOf.key);
        // an anchor not evaluated (a result grown past its recorded range) leaves its cells unknown
        // too, not blank: they are not vouched for
        const anchorProblem = m === undefined ? this.problems.get(c.spillOf.key) : undefined;
        if (anchorProblem !== undefined) throw new GridUnsupported(anchorProblem);
        // (a legacy array shows #N/A there, a dynamic one blank)
        const v = m?.[c.spillOf.dr]?.[c.spillOf.dc];
        this.values.set(
          c.sheet,
          c.row,
          c.col,
          v !== undefined ? v : c.spillOf.dynamic ? null : xlError('#N/A'),
        );
        return true;
      }
      const v = this.evaluate(c.formula!, { sheet: c.sheet, row: c.row, col: c.col });
      this.values.set(c.sheet, c.row, c.col, this.scalarResult(v, c));
    } catch (err) {
      // a fault of the evaluator on a formula it accepted (a function handed a range where it reads
      // one value, say) leaves that cell unchecked, as an unsupported one: never the workbook down
      this.problems.set(
        c.key,
        err instanceof GridUnsupported
          ? err.reason
          : `the evaluator could not compute it (${messageOf(err)})`,
      );
      this.values.set(c.sheet, c.row, c.col, xlError('#N/A'));
    }
    return true;
  }

  /**
   * A formula's value in its cell: a one-cell array is its cell; a blank reads as 0. A spill's
   * anchor keeps its whole result for the spill's cells and ANCHORARRAY (dynamic.ts fitSpill).
   */
  private scalarResult(v: GridValue, c: FormulaCell): Scalar {
    if (c.spill) {
      this.spilled.delete(c.key);
      const m = fitSpill(v, c.spill);
      this.spilled.set(c.key, m);
      return m[0]?.[0] ?? 0;
    }
    if (isMatrix(v)) {
      if (v.length === 1 && v[0]!.length === 1) return v[0]![0] ?? 0;
      throw new GridUnsupported('the formula gives an array (a spill or an implicit intersection)');
    }
    return v ?? 0;
  }

  private address(c: { sheet: number; row: number; col: number }): string {
    return `${this.book.sheets[c.sheet]!.name}!${cellName(c.row, c.col)}`;
  }

  private sheetIndex(name: string | undefined, ctx: Context): number {
    if (name === undefined) return ctx.sheet;
    const lower = name.toLowerCase();
    const i = this.book.sheets.findIndex((s) => s.name.toLowerCase() === lower);
    if (i < 0) throw new GridUnsupported(`the sheet '${name}' is not in the workbook`);
    return i;
  }

  private sheetOf(i: number): Worksheet {
    return this.book.sheets[i]!;
  }

  /**
   * A range node's block; a whole column (`B:B`) runs to the sheet's last row, a whole row (`2:2`,
   * column 0) to its last column (cells past the used part are blank, so this reads the same).
   */
  private areaOf(f: Formula & { kind: 'range' }, ctx: Context): Area {
    const sheet = this.sheetIndex(f.sheet, ctx);
    // a range to Excel's last row or column (`$1:$1048576`, `A1:XFD1`) is a whole column or row:
    // read to the used part only, not a million blank rows per evaluation
    const wholeColumn = f.from.row === 0 || f.to.row === 0 || Math.max(f.from.row, f.to.row) >= SHEET_ROWS;
    const wholeRow = f.from.col === 0 || f.to.col === 0 || Math.max(f.from.col, f.to.col) >= SHEET_COLUMNS;
    const { maxRow, maxCol } = this.sheetOf(sheet);
    const top = Math.min(f.from.row, f.to.row) || 1;
    const left = Math.min(f.from.col, f.to.col) || 1;
    return {
      sheet,
      top,
      bottom: wholeColumn ? Math.max(top, maxRow) : Math.max(f.from.row, f.to.row),
      left,
      right: wholeRow ? Math.max(left, maxCol) : Math.max(f.from.col, f.to.col),
    };
  }

  /** A defined name's formula, the sheet's own first (as Excel resolves it). */
  private definedName(name: string, ctx: Context): Formula {
    return this.nameTable.formula(name, ctx.sheet);
  }

  /** The LAMBDA a call applies (in place or through a defined name); undefined for other calls. */
  private lambdaOf(f: Formula & { kind: 'call' }, ctx: Context): LambdaCall | undefined {
    // a defined name cannot take a function's name, so a function is never a LAMBDA
    const isFunction = (name: string): boolean =>
      LAZY.has(name) || REFERENCE_FUNCTIONS.has(name) || name === 'LET' || hasFunction(name);
    return lambdaCallOf(f, (name) =>
      isFunction(name) || !this.book.names.some((d) => d.name.toLowerCase() === name.toLowerCase())
        ? undefined
        : this.definedName(name, ctx),
    );
  }

  /**
   * Every block the formula can read, names and structured references resolved; `bound` holds
   * the names LET and LAMBDA blocks around the node bind (they read nothing themselves).
   */
  private collectReads(
    f: Formula,
    ctx: Context,
    out: Area[],
    depth: number,
    bound: ReadonlySet<string> = new Set(),
  ): void {
    const lambda = f.kind === 'call' ? this.lambdaOf(f, ctx) : undefined;
    if (lambda) {
      const { params, body, args } = lambda;
      for (const a of args) this.collectReads(a, ctx, out, depth, bound);
      if (depth > MAX_LAMBDA_DEPTH) throw new GridUnsupported('the LAMBDA calls itself (recursion)');
      const inner = new Set(lambda.inPlace ? bound : []);
      for (const p of params) inner.add(p);
      this.collectReads(body, ctx, out, depth + 1, inner);
      return;
    }
    switch (f.kind) {
      case 'ref': {
        const sheet = this.sheetIndex(f.sheet, ctx);
        out.push({ sheet, top: f.ref.row, bottom: f.ref.row, left: f.ref.col, right: f.ref.col });
        return;
      }
      case 'range':
        out.push(this.areaOf(f, ctx));
        return;
      case 'structured':
        out.push(tableArea(this.book, f, ctx));
        return;
      case 'name':
        if (bound.has(f.name.toLowerCase()) || this.nameTable.undefined(f.name, ctx.sheet)) return;
        if (depth > MAX_NAME_DEPTH) throw new GridUnsupported('defined names nest too deep');
        this.collectReads(this.definedName(f.name, ctx), ctx, out, depth + 1);
        return;
      case 'call':
        if (f.name === 'LET') {
          const inner = new Set(bound);
          letPairs(f).forEach(([name, value]) => {
            this.collectReads(value, ctx, out, depth, inner);
            inner.add(name);
          });
          this.collectReads(f.args[f.args.length - 1]!, ctx, out, depth, inner);
          return;
        }
        if (f.name === 'LAMBDA')
          throw new GridUnsupported('a LAMBDA that is not called has no value of its own');
        if (VOLATILE.has(f.name))
          throw new GridUnsupported(`${f.name} is volatile (it changes on every recalculation)`);
        if (DYNAMIC_REFERENCE.has(f.name))
          throw new GridUnsupported(`${f.name} makes its reference as it runs`);
        if (
          !LAZY.has(f.name) &&
          !REFERENCE_FUNCTIONS.has(f.name) &&
          !DYNAMIC.has(f.name) &&
          !hasFunction(f.name)
        )
          throw new GridUnsupported(`the function ${f.name} is not evaluated`);
        for (const a of f.args) this.collectReads(a, ctx, out, depth, bound);
        if (this.sumArea(f, ctx)) out.push(this.sumArea(f, ctx)!);
        return;
      case 'binary':
        this.collectReads(f.left, ctx, out, depth, bound);
        this.collectReads(f.right, ctx, out, depth, bound);
        return;
      case 'unary':
      case 'percent':
        this.collectReads(f.operand, ctx, out, depth, bound);
        return;
      default:
        return;
    }
  }

  /** SUMIF/AVERAGEIF's sum range as Excel reads it (criteria.ts); undefined when there is none. */
  private sumArea(f: Formula & { kind: 'call' }, ctx: Context): Area | undefined {
    return sizedSumArea(f, (a) => this.blockOf(a, ctx));
  }

  /** The block a reference argument names, or undefined for any other argument. */
  private blockOf(a: Formula, ctx: Context): Area | undefined {
    if (a.kind === 'range') return this.areaOf(a, ctx);
    if (a.kind === 'structured') return tableArea(this.book, a, ctx);
    if (a.kind !== 'ref') return undefined;
    const { row, col } = a.ref;
    return { sheet: this.sheetIndex(a.sheet, ctx), top: row, bottom: row, left: col, right: col };
  }

  private readArea(a: Area): Matrix {
    const width = a.right - a.left + 1;
    const columns = Array.from({ length: width }, (_, i) => this.values.column(a.sheet, a.left + i));
    const rows: Matrix = new Array(a.bottom - a.top + 1);
    for (let r = a.top; r <= a.bottom; r++) {
      const row: Scalar[] = new Array(width);
      for (let i = 0; i < width; i++) row[i] = columns[i]?.[r] ?? null;
      rows[r - a.top] = row;
    }
    return rows;
  }

  protected evaluate(f: Formula, ctx: Context, depth = 0): GridValue {
    switch (f.kind) {
      case 'number':
      case 'string':
      case 'boolean':
        return f.value;
      case 'error':
        return xlError(f.value);
      case 'missing':
        return null;
      case 'ref':
        return this.values.get(this.sheetIndex(f.sheet, ctx), f.ref.row, f.ref.col);
      case 'range':
        return this.readArea(this.areaOf(f, ctx));
      case 'structured': {
        if (f.area === 'thisRow' && !thisRowInside(this.book, f, ctx)) return xlError('#VALUE!');
        const m = this.readArea(tableArea(this.book, f, ctx));
        return m.length === 1 && m[0]!.length === 1 ? m[0]![0]! : m;
      }
      case 'name': {
        const key = f.name.toLowerCase();
        if (ctx.bound?.has(key)) return ctx.bound.get(key)!;
        if (this.nameTable.undefined(f.name, ctx.sheet)) return xlError('#NAME?');
        if (depth > MAX_NAME_DEPTH) throw new GridUnsupported('defined names nest too deep');
        // a defined name's formula reads no LET or LAMBDA names of the formula that uses it
        return this.evaluate(this.definedName(f.name, ctx), { ...ctx, bound: undefined }, depth + 1);
      }
      case 'unary': {
        const v = this.evaluate(f.operand, ctx, depth);
        return f.op === '+' ? v : lift1(v, (x) => numeric(x, (n) => -n));
      }
      case 'percent':
        return lift1(this.evaluate(f.operand, ctx, depth), (x) => numeric(x, (n) => n / 100));
      case 'binary':
        return lift2(this.evaluate(f.left, ctx, depth), this.evaluate(f.right, ctx, depth), (a, b) =>
          binary(f.op, a, b, this.cancelBelow),
        );
      case 'call':
        return this.call(f, ctx, depth);
      default:
        throw new GridUnsupported(`${(f as { kind: string }).kind} is not evaluated`);
    }
  }

  /**
   * Excel evaluates a LAMBDA's arguments, then its body with its parameters bound to them; a
   * count of arguments other than its parameters' is #VALUE!
   */
  private apply(lambda: LambdaCall, ctx: Context, depth: number): GridValue {
    if (lambda.args.length !== lambda.params.length) return xlError('#VALUE!');
    if (depth > MAX_LAMBDA_DEPTH) throw new GridUnsupported('the LAMBDA calls itself (recursion)');
    const bound = new Map(lambda.inPlace ? (ctx.bound ?? []) : []);
    lambda.args.forEach((a, i) =>
      bound.set(lambda.params[i]!, a.kind === 'missing' ? null : this.evaluate(a, ctx, depth)),
    );
    return this.evaluate(lambda.body, { ...ctx, bound }, depth + 1);
  }

  /** LET: each name bound to its value, seen from the next value on and by the result. */
  private letValue(f: Formula & { kind: 'call' }, ctx: Context, depth: number): GridValue {
    const bound = new Map(ctx.bound ?? []);
    for (const [name, value] of letPairs(f)) bound.set(name, this.evaluate(value, { ...ctx, bound }, depth));
    return this.evaluate(f.args[f.args.length - 1]!, { ...ctx, bound }, depth);
  }

  /** `K3#`: the spill's whole result; a cell that anchors none is itself. */
  private anchorArray(f: Formula & { kind: 'call' }, ctx: Context): GridValue {
    const target = f.args[0];
    if (target?.kind !== 'ref')
      throw new GridUnsupported('ANCHORARRAY of anything but a cell is not evaluated');
    const sheet = this.sheetIndex(target.sheet, ctx);
    const { row, col } = target.ref;
    return this.spilled.get(gridKey(sheet, row, col)) ?? this.values.get(sheet, row, col);
  }

  private call(f: Formula & { kind: 'call' }, ctx: Context, depth: number): GridValue {
    const arg = (i: number): GridValue => {
      const a = f.args[i];
      return a === undefined ? null : this.evaluate(a, ctx, depth);
    };
    const lambda = this.lambdaOf(f, ctx);
    if (lambda) return this.apply(lambda, ctx, depth);
    if (f.name === 'LET') return this.letValue(f, ctx, depth);
    switch (f.name) {
      case 'IF': {
        const cond = arg(0);
        if (isMatrix(cond)) {
          const yes = arg(1);
          const no = f.args.length > 2 ? arg(2) : false;
          return ifOverArray(cond, yes, no);
        }
        const b = toBoolean(cond);
        if (isXlError(b)) return b;
        if (b) return f.args[1] === undefined || f.args[1].kind === 'missing' ? 0 : arg(1);
        if (f.args.length < 3) return false;
        return f.args[2]!.kind === 'missing' ? 0 : arg(2);
      }
      case 'IFERROR':
      case 'IFNA': {
        const v = arg(0);
        const caught = (x: Scalar): boolean => isXlError(x) && (f.name === 'IFERROR' || x.message === '#N/A');
        if (isMatrix(v)) {
          const alt = arg(1);
          return lift2(v, alt, (x, a) => (caught(x) ? a : x));
        }
        return caught(v) ? arg(1) : v;
      }
      case 'CHOOSE': {
        const k = toNumber(asScalar(arg(0)));
        if (isXlError(k)) return k;
        const i = Math.trunc(k);
        if (i < 1 || i >= f.args.length) return xlError('#VALUE!');
        return arg(i);
      }
      case 'ROW':
      case 'COLUMN': {
        const target = f.args[0];
        if (target === undefined) return f.name === 'ROW' ? ctx.row : ctx.col;
        if (target.kind === 'ref') return f.name === 'ROW' ? target.ref.row : target.ref.col;
        if (target.kind === 'range') {
          const a = this.areaOf(target, ctx);
          return f.name === 'ROW' ? a.top : a.left;
        }
        throw new GridUnsupported(`${f.name} of ${target.kind} is not evaluated`);
      }
      case 'ANCHORARRAY':
        return this.anchorArray(f, ctx);
      case 'ISBLANK': {
        const target = f.args[0];
        if (target?.kind === 'ref') return this.evaluate(target, ctx, depth) === null;
        const v = arg(0);
        return v === null;
      }
      default: {
        const args = f.args.map((a) => (a.kind === 'missing' ? null : this.evaluate(a, ctx, depth)));
        if (f.name === 'SUBTOTAL')
          blankSubtotals(f, args, (a) => this.blockOf(a, ctx), this.book, this.cells);
        if (DYNAMIC.has(f.name)) return DYNAMIC.get(f.name)!(...args);
        if (CRITERIA_FUNCTIONS.has(f.name)) {
          const sized = this.sumArea(f, ctx);
          if (sized) args[2] = this.readArea(sized);
          return callCriteria(f.name, args);
        }
        return callFunction(f.name, args);
      }
    }
  }
}

/** Functions the evaluator handles itself, reading their arguments as it goes. */
const LAZY = new Set(['IF', 'IFERROR', 'IFNA', 'CHOOSE']);

/** Functions that read a reference's place rather than its value. */
const REFERENCE_FUNCTIONS = new Set(['ROW', 'COLUMN', 'ISBLANK', 'ANCHORARRAY']);

/** Excel 365's dynamic array functions (dynamic.ts). */
const DYNAMIC = new Map(DYNAMIC_ARRAY_FUNCTIONS);

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : 'it cannot be read');
