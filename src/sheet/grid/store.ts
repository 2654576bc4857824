/** The cell-grid evaluator's values and its budget's bookkeeping. */
import { DEFAULT_GRID_LIMITS, type GridLimits } from './limits.js';
import type { Scalar } from './values.js';

/**
 * The grid's values, column by column (a sheet's columns, each indexed by row): a block is read by
 * indexing arrays, not by building a key per cell, and a million-cell sheet holds no key strings.
 */
export class ValueStore {
  private readonly sheets: (Scalar | undefined)[][][] = [];

  get(sheet: number, row: number, col: number): Scalar {
    return this.sheets[sheet]?.[col]?.[row] ?? null;
  }

  set(sheet: number, row: number, col: number, v: Scalar): void {
    const cols = (this.sheets[sheet] ??= []);
    (cols[col] ??= [])[row] = v;
  }

  /** One column's values from `top` to `bottom`, or undefined when the column holds nothing. */
  column(sheet: number, col: number): readonly (Scalar | undefined)[] | undefined {
    return this.sheets[sheet]?.[col];
  }
}

/**
 * What the evaluator has spent of its budgets (grid/limits.ts): evaluations, and its own time (the
 * time inside its recalculations, not the spec's runs between them). Each recalculation may use a
 * share of the budgets, counted with the work before it.
 */
export class GridBudget {
  private evaluations = 0;
  private spent = 0;
  private enteredAt = 0;
  private share = 1;
  private clockDue = true;
  /** Why the budget ran out, once it has. */
  exhausted?: string;

  constructor(private readonly limits: GridLimits = DEFAULT_GRID_LIMITS) {}

  /** Runs `work` within `share` of the budgets, counting its time as the evaluator's own. */
  timed<T>(share: number, work: () => T): T {
    this.share = share;
    this.clockDue = true;
    this.enteredAt = Date.now();
    try {
      return work();
    } finally {
      this.spent += Date.now() - this.enteredAt;
    }
  }

  /** Counts an evaluation; false (and why, in `exhausted`) when it would pass the share. */
  allow(): boolean {
    const { maxEvaluations, maxMillis, deadline, source } = this.limits;
    const of = source ? ` (${source})` : '';
    if (this.evaluations + 1 > maxEvaluations * this.share) {
      this.exhausted = `it stopped after ${this.evaluations} cell evaluations of its ${maxEvaluations}${of}`;
      return false;
    }
    // the clock is read every 64 evaluations, and at the first of each recalculation
    if ((++this.evaluations & 63) === 0 || this.clockDue) {
      this.clockDue = false;
      const now = Date.now();
      const own = this.spent + (now - this.enteredAt);
      if (own > maxMillis * this.share) {
        this.exhausted = `it stopped after ${own} ms of its own time, its budget being ${maxMillis} ms${of}`;
        return false;
      }
      if (deadline !== undefined && now > deadline) {
        this.exhausted = `it stopped at the conversion's deadline${of}`;
        return false;
      }
    }
    return true;
  }
}
