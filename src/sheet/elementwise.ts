/**
 * Array formulas whose result is computed element by element, rewritten cell by cell into plain
 * formulas. A multi-cell array formula (a legacy Ctrl+Shift+Enter block `{=C5:G54*J4:N4}`, or an
 * Excel 365 spill `=+C3:C5`, `=TRANSPOSE(K3:M8)`, `='Income Statement'!J34:N34`) built only from
 * ranges, cells, constants, operators and functions that work on one value at a time gives at each
 * cell of its result the formula with every range replaced by its element there (a range of one
 * row or one column is repeated across the other direction, as the spreadsheet does). And a one-cell
 * legacy array `{=SUM(C5:C54*J4)}` adds those elements: `SUM(C5*J4, C6*J4, …)`.
 *
 * Anything else (a range shorter than the result, whose cells past it are #N/A; a table column; a
 * name; a function that takes an array whole, other than where it takes a range as a range) is
 * left to the caller, which rejects it as ARRAY_FORMULA. The rewritten formula is only the
 * compiler's: the grid evaluator evaluates the array formula as written, so verification compares
 * the two.
 */
import type { Formula } from './formula.js';

/** Functions of one value at a time: an array in any argument gives the array of results. */
const SCALAR_FUNCTIONS = new Set([
  'IF',
  'IFERROR',
  'IFNA',
  'ROUND',
  'ROUNDUP',
  'ROUNDDOWN',
  'ABS',
  'INT',
  'TRUNC',
  'MOD',
  'SQRT',
  'POWER',
  'LEFT',
  'RIGHT',
  'MID',
  'LEN',
  'UPPER',
  'LOWER',
  'TRIM',
  'ISNUMBER',
  'ISTEXT',
  'ISBLANK',
  'ISERROR',
  'VALUE',
  'YEAR',
  'MONTH',
  'DAY',
  'DATE',
  'NOT',
]);

/** Functions that take a range as a range in the given argument (the value there is one number). */
const RANGE_TAKING: ReadonlyMap<string, (i: number) => boolean> = new Map<string, (i: number) => boolean>([
  ...['SUM', 'AVERAGE', 'MIN', 'MAX', 'COUNT', 'COUNTA', 'PRODUCT', 'MEDIAN', 'STDEV'].map(
    (n) => [n, () => true] as [string, (i: number) => boolean],
  ),
  ['INDEX', (i) => i === 0],
  ['MATCH', (i) => i === 1],
  ['VLOOKUP', (i) => i === 1],
  ['HLOOKUP', (i) => i === 1],
  ['SUMIF', (i) => i === 0 || i === 2],
  ['COUNTIF', (i) => i === 0],
  ...['SUMIFS', 'AVERAGEIFS', 'MAXIFS', 'MINIFS'].map(
    (n) => [n, (i: number) => i === 0 || i % 2 === 1] as [string, (i: number) => boolean],
  ),
  ['COUNTIFS', (i) => i % 2 === 0],
]);

/** The most cells a one-cell array's SUM is expanded over. */
export const MAX_EXPANDED_CELLS = 500;

/** Rows and columns of an element-wise array; 1 × 1 is one value. */
interface Shape {
  rows: number;
  cols: number;
}
type RangeFormula = Formula & { kind: 'range' };

const isBounded = (r: RangeFormula): boolean =>
  r.from.row > 0 && r.to.row > 0 && r.from.col > 0 && r.to.col > 0;
const rangeShape = (r: RangeFormula): Shape => ({
  rows: Math.abs(r.to.row - r.from.row) + 1,
  cols: Math.abs(r.to.col - r.from.col) + 1,
});

/** The one dimension both sides share (1 repeats), or undefined when they differ. */
function broadcast(a: number, b: number): number | undefined {
  if (a === b || b === 1) return a;
  if (a === 1) return b;
  return undefined;
}

/**
 * The shape of an element-wise array formula, or undefined when it is not one (see above): a
 * range anywhere but where a function takes it as a range, TRANSPOSE of a range, and operators and
 * one-value functions around them.
 */
export function elementShape(f: Formula): Shape | undefined {
  switch (f.kind) {
    case 'number':
    case 'string':
    case 'boolean':
    case 'ref':
      return { rows: 1, cols: 1 };
    case 'range':
      return isBounded(f) ? rangeShape(f) : undefined;
    case 'unary':
    case 'percent':
      return elementShape(f.operand);
    case 'binary': {
      const l = elementShape(f.left);
      const r = elementShape(f.right);
      if (!l || !r) return undefined;
      const rows = broadcast(l.rows, r.rows);
      const cols = broadcast(l.cols, r.cols);
      return rows === undefined || cols === undefined ? undefined : { rows, cols };
    }
    case 'call': {
      if (f.name === 'TRANSPOSE') {
        const a = f.args[0];
        if (f.args.length !== 1 || a?.kind !== 'range' || !isBounded(a)) return undefined;
        const s = rangeShape(a);
        return { rows: s.cols, cols: s.rows };
      }
      const takes = RANGE_TAKING.get(f.name);
      if (takes) {
        // one value whatever its arguments: a range where one is taken, anything scalar elsewhere
        const ok = f.args.every((a, i) => (takes(i) && a.kind === 'range') || isScalar(a));
        return ok ? { rows: 1, cols: 1 } : undefined;
      }
      if (!SCALAR_FUNCTIONS.has(f.name)) return undefined;
      let shape: Shape = { rows: 1, cols: 1 };
      for (const a of f.args) {
        if (a.kind === 'missing') continue;
        const s = elementShape(a);
        const rows = s && broadcast(shape.rows, s.rows);
        const cols = s && broadcast(shape.cols, s.cols);
        if (rows === undefined || cols === undefined) return undefined;
        shape = { rows, cols };
      }
      return shape;
    }
    default:
      return undefined;
  }
}

const isScalar = (f: Formula): boolean => {
  const s = elementShape(f);
  return s !== undefined && s.rows === 1 && s.cols === 1;
};

/** The element at row `dr`, column `dc` of an element-wise array formula (elementShape says it is one). */
export function elementAt(f: Formula, dr: number, dc: number): Formula {
  switch (f.kind) {
    case 'range': {
      const s = rangeShape(f);
      const top = Math.min(f.from.row, f.to.row);
      const left = Math.min(f.from.col, f.to.col);
      return {
        kind: 'ref',
        sheet: f.sheet,
        ref: {
          row: top + (s.rows === 1 ? 0 : dr),
          col: left + (s.cols === 1 ? 0 : dc),
          rowAbs: f.from.rowAbs,
          colAbs: f.from.colAbs,
        },
      };
    }
    case 'unary':
      return { ...f, operand: elementAt(f.operand, dr, dc) };
    case 'percent':
      return { ...f, operand: elementAt(f.operand, dr, dc) };
    case 'binary':
      return { ...f, left: elementAt(f.left, dr, dc), right: elementAt(f.right, dr, dc) };
    case 'call':
      if (f.name === 'TRANSPOSE') return elementAt(f.args[0]!, dc, dr);
      if (RANGE_TAKING.has(f.name)) return f;
      return { ...f, args: f.args.map((a) => (a.kind === 'missing' ? a : elementAt(a, dr, dc))) };
    default:
      return f;
  }
}

/**
 * The formula of the cell `dr` rows and `dc` columns into the result of the multi-cell array
 * formula `f`, whose result range has `rows` × `cols` cells; undefined when `f` is not element-wise
 * or some cell of that range lies past its shape (#N/A there).
 */
export function spillElement(
  f: Formula,
  rows: number,
  cols: number,
  dr: number,
  dc: number,
): Formula | undefined {
  const shape = elementShape(f);
  if (!shape || (shape.rows === 1 && shape.cols === 1)) return undefined;
  // a shape of one row (column) is repeated down (across) the result range, as Excel does
  if ((shape.rows !== 1 && shape.rows < rows) || (shape.cols !== 1 && shape.cols < cols)) return undefined;
  return elementAt(f, dr, dc);
}

/**
 * A one-cell legacy array formula with every SUM over an element-wise array (`SUM(C5:C54*J4)`,
 * `SUM(IF(B2:B9>0,C2:C9,0))`) rewritten to SUM its elements; undefined when there is none to
 * rewrite or one is too large.
 */
export function expandArraySums(f: Formula): Formula | undefined {
  let changed = false;
  let tooLarge = false;
  const walk = (g: Formula): Formula => {
    switch (g.kind) {
      case 'unary':
      case 'percent':
        return { ...g, operand: walk(g.operand) };
      case 'binary':
        return { ...g, left: walk(g.left), right: walk(g.right) };
      case 'call': {
        if (g.name === 'SUM') {
          const args = g.args.flatMap((a): Formula[] => {
            if (a.kind === 'range') return [a];
            const s = elementShape(a);
            if (!s || (s.rows === 1 && s.cols === 1)) return [walk(a)];
            if (s.rows * s.cols > MAX_EXPANDED_CELLS) {
              tooLarge = true;
              return [a];
            }
            changed = true;
            const out: Formula[] = [];
            for (let r = 0; r < s.rows; r++) for (let c = 0; c < s.cols; c++) out.push(elementAt(a, r, c));
            // a function takes at most 255 arguments: a long list as sums of up to 250
            const chunks: Formula[] = [];
            for (let i = 0; i < out.length; i += 250)
              chunks.push({ kind: 'call', name: 'SUM', args: out.slice(i, i + 250) });
            return out.length <= 250 ? out : chunks;
          });
          return { ...g, args };
        }
        return { ...g, args: g.args.map(walk) };
      }
      default:
        return g;
    }
  };
  const out = walk(f);
  return changed && !tooLarge ? out : undefined;
}
