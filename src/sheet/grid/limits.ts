/** The cell-grid evaluator's budgets per workbook (a conversion's `whatIf.limits`). */
export interface GridLimits {
  /** Wall-clock budget for all evaluations of one workbook. */
  maxMillis: number;
  /** Formula-cell evaluations, all recalculations together. */
  maxEvaluations: number;
}

export const DEFAULT_GRID_LIMITS: GridLimits = { maxMillis: 20_000, maxEvaluations: 2_000_000 };

/** The what-if verification's options (whatif.ts has the defaults). */
export interface WhatIfOptions {
  /** Rounds of seeded edits (at least 3). */
  rounds?: number;
  seed?: number;
  limits?: GridLimits;
}

/** The budget ran out: the evaluator gives no answer for the workbook. */
export class GridBudgetExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GridBudgetExceeded';
  }
}
