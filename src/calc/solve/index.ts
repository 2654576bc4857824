/** Solving a model for its inputs (docs/solve.md): the numerical methods and the search plan. */
export { brentRoot, type BrentOptions, type BrentOutcome } from './brent.js';
export { nelderMead, type NelderMeadOptions, type NelderMeadOutcome } from './nelder-mead.js';
export {
  compareScores,
  gridEnds,
  search,
  snap,
  type Score,
  type SearchPlan,
  type SolveVariable,
} from './search.js';
export { solveConstraint, type SolveConstraint } from './constraints.js';
