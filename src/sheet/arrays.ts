/**
 * Legacy array (Ctrl+Shift+Enter) formulas of one cell that compute what the plain formula does.
 * Entered as an array, a formula evaluates a range element by element wherever one value is
 * expected (`{=SUM(IF(B2:B9>0,1,0))}`); where a function takes a range as a range (the list of
 * `INDEX`, the cells `SUM` adds) the array entry changes nothing. So a one-cell array formula whose
 * every range stands only in such a place (`{=INDEX(H14:H16,$E$9)}`, `{=SUM(B2:B9)}`) has one
 * value, the plain formula's, and is compiled as that.
 */
import type { Formula } from './formula.js';

/** The arguments (by position) that take a range as a range. */
const RANGE_ARGS: ReadonlyMap<string, (i: number) => boolean> = new Map<string, (i: number) => boolean>([
  ...[
    'SUM',
    'AVERAGE',
    'MIN',
    'MAX',
    'COUNT',
    'COUNTA',
    'MEDIAN',
    'STDEV',
    'STDEV.S',
    'STDEV.P',
    'STDEVP',
    'PRODUCT',
    'SUMPRODUCT',
    'ROWS',
    'COLUMNS',
    'ROW',
    'COLUMN',
  ].map((n) => [n, () => true] as [string, (i: number) => boolean]),
  ['NPV', (i) => i >= 1],
  ['INDEX', (i) => i === 0],
  ['MATCH', (i) => i === 1],
  ['XMATCH', (i) => i === 1],
  ['VLOOKUP', (i) => i === 1],
  ['HLOOKUP', (i) => i === 1],
  ['XLOOKUP', (i) => i === 1 || i === 2],
  ['SUMIF', (i) => i === 0 || i === 2],
  ['AVERAGEIF', (i) => i === 0 || i === 2],
  ['COUNTIF', (i) => i === 0],
  ['COUNTIFS', (i) => i % 2 === 0],
  ['RANK', (i) => i === 1],
  ['RANK.EQ', (i) => i === 1],
  ...['SUMIFS', 'AVERAGEIFS', 'MAXIFS', 'MINIFS'].map(
    (n) => [n, (i: number) => i === 0 || i % 2 === 1] as [string, (i: number) => boolean],
  ),
]);
const isRange = (f: Formula): boolean => f.kind === 'range' || f.kind === 'structured';

/**
 * A structured reference to one cell: one column of the formula's own row (`T[[#This Row],[Qty]]`,
 * `T[[#This Row],[id]:[id]]`) or of the totals row. Excel 365 marks formulas holding one as
 * dynamic arrays, but there is no array to spill: its value is the cell's.
 */
const oneCell = (f: Formula): boolean =>
  f.kind === 'structured' &&
  (f.area === 'thisRow' || f.area === 'totals') &&
  f.from !== undefined &&
  (f.to === undefined || f.to.toLowerCase() === f.from.toLowerCase());

/** Whether a range appears only where a function takes it as a range (see above). */
export function scalarArrayFormula(f: Formula): boolean {
  switch (f.kind) {
    case 'range':
      return false;
    case 'structured':
      return oneCell(f);
    case 'call': {
      const takes = RANGE_ARGS.get(f.name);
      return f.args.every((a, i) => (takes?.(i) && isRange(a)) || scalarArrayFormula(a));
    }
    case 'binary':
      return scalarArrayFormula(f.left) && scalarArrayFormula(f.right);
    case 'unary':
    case 'percent':
      return scalarArrayFormula(f.operand);
    default:
      return true;
  }
}
