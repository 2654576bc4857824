/**
 * The one missing-value vocabulary of `fit` and `compare` (docs/fit.md, docs/compare.md): a cell
 * is missing when, trimmed and case-folded, it is one of these. Both read a sample the same way,
 * so a column fit leaves partly empty is not called text by compare.
 */
const MISSING = new Set(['', 'na', 'n/a', '#n/a', 'nan', 'null', 'none', 'nil', '?', '-', '--']);
/** The longest spelling above: longer cells skip the case-folding. */
const LONGEST = 4;

/** Whether a CSV cell stands for a missing value. */
export function isMissingCell(cell: string): boolean {
  const t = cell.trim();
  return t.length <= LONGEST && MISSING.has(t.toLowerCase());
}

/** The spellings, for documentation and error messages. */
export const MISSING_SPELLINGS: readonly string[] = [
  '(empty)',
  'NA',
  'N/A',
  '#N/A',
  'NaN',
  'null',
  'None',
  'nil',
  '?',
  '-',
  '--',
];
