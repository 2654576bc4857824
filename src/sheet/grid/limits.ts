/**
 * The cell-grid evaluator's budgets per workbook (a conversion's `whatIf.limits`). They follow the
 * conversion's own time limit (gridLimitsFor): the evaluator must leave time for the compiled
 * spec's runs, and an evaluation cut short still vouches for the cells it finished.
 */
export interface GridLimits {
  /** The evaluator's own time (its recalculations, not the spec's runs between them), milliseconds. */
  maxMillis: number;
  /** Formula-cell evaluations, all recalculations together. */
  maxEvaluations: number;
  /** A moment (Date.now()) past which the evaluator starts nothing more: the conversion's own deadline. */
  deadline?: number;
  /** Names the budget in the report's `stored-only` reasons (e.g. the setting that sets it). */
  source?: string;
}

/** Without a conversion time limit (the CLI's `from-xlsx`): two minutes of the evaluator's own time. */
export const DEFAULT_GRID_LIMITS: GridLimits = {
  maxMillis: 120_000,
  maxEvaluations: 2_000_000,
  source: 'the default budget',
};

/** Of a conversion's time limit: the evaluator's own time, and the point past which it starts nothing. */
export const GRID_SHARE_OF_TIME_LIMIT = 0.5;
export const GRID_DEADLINE_OF_TIME_LIMIT = 0.8;

/**
 * The evaluator's budgets for a conversion that started at `started` and may run `timeLimitSeconds`
 * (a server's MODELWORKS_SHEET_TIME_LIMIT_SECONDS): half that time of its own, and nothing started
 * past 80% of it, so that the compiled spec's runs still fit before the conversion is stopped.
 */
export function gridLimitsFor(timeLimitSeconds: number | undefined, started: number): GridLimits {
  if (timeLimitSeconds === undefined) return DEFAULT_GRID_LIMITS;
  const ms = timeLimitSeconds * 1000;
  return {
    maxMillis: Math.round(ms * GRID_SHARE_OF_TIME_LIMIT),
    maxEvaluations: DEFAULT_GRID_LIMITS.maxEvaluations,
    deadline: started + Math.round(ms * GRID_DEADLINE_OF_TIME_LIMIT),
    source: `the conversion's ${timeLimitSeconds}-second limit`,
  };
}

/** The what-if verification's options (whatif.ts has the defaults). */
export interface WhatIfOptions {
  /** Rounds of seeded edits (at least 3). */
  rounds?: number;
  seed?: number;
  limits?: GridLimits;
}
