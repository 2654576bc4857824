/**
 * Excel 365's dynamic array functions for the cell-grid evaluator, over rows of cells: SORT,
 * SORTBY, UNIQUE, FILTER and SEQUENCE. @formulajs/formulajs has no FILTER, SEQUENCE or SORTBY, and
 * its UNIQUE compares text with case and rows as objects (UNIQUE of a column gives it back
 * unchanged), so these follow Microsoft's documented rules here: rows (or, by_col, columns) of a
 * range; text compared without case; SORT and SORTBY stable, in Excel's order across types
 * (numbers, text, FALSE, TRUE), blanks last; FILTER's empty result #CALC! unless if_empty is given.
 */
import { columnNumber, type FormulaInfo, type Workbook } from '../xlsx.js';
import { GridUnsupported } from './functions.js';
import { gridKey, type FormulaCell } from './order.js';
import type { Area } from './tables.js';
import {
  compare,
  isMatrix,
  isXlError,
  toBoolean,
  toNumber,
  xlError,
  type GridValue,
  type Matrix,
  type Scalar,
} from './values.js';

type Args = (GridValue | undefined)[];

const matrix = (v: GridValue | undefined): Matrix => (isMatrix(v) ? v : [[v ?? null]]);
const transpose = (m: Matrix): Matrix => (m[0] ?? []).map((_, c) => m.map((row) => row[c] ?? null));

/** A whole number argument, the fallback when it is left out; undefined when it is not one. */
function whole(v: GridValue | undefined, fallback: number): number | Error {
  if (v === undefined || v === null) return fallback;
  if (isMatrix(v)) throw new GridUnsupported('an array where a dynamic array function takes one number');
  const n = toNumber(v);
  return isXlError(n) ? n : Math.trunc(n);
}

/** Excel's sort order: numbers, text (without case), FALSE, TRUE; a blank after every value. */
function order(a: Scalar, b: Scalar): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const c = compare(a, b);
  return isXlError(c) ? 0 : c;
}

/** Rows that are the same row for UNIQUE: each cell the same, text without case. */
const sameRow = (a: Scalar[], b: Scalar[]): boolean =>
  a.length === b.length &&
  a.every((x, i) => (x === null || b[i] === null ? x === b[i] : order(x, b[i]!) === 0));

function unique(...args: Args): GridValue {
  const [array, byCol, once] = args;
  const by = toBoolean((byCol ?? false) as Scalar);
  const exactlyOnce = toBoolean((once ?? false) as Scalar);
  if (isXlError(by)) return by;
  if (isXlError(exactlyOnce)) return exactlyOnce;
  const rows = by ? transpose(matrix(array)) : matrix(array);
  const kept: { row: Scalar[]; count: number }[] = [];
  for (const row of rows) {
    const seen = kept.find((k) => sameRow(k.row, row));
    if (seen) seen.count++;
    else kept.push({ row, count: 1 });
  }
  const out = kept.filter((k) => !exactlyOnce || k.count === 1).map((k) => k.row);
  if (out.length === 0) return xlError('#CALC!');
  return by ? transpose(out) : out;
}

/** Sorts the rows (or columns) of `m` by the keys `keyOf` gives, `direction` 1 or -1; stable. */
function sortRows(
  m: Matrix,
  byCol: boolean,
  keyOf: (row: Scalar[], i: number) => Scalar,
  direction: number,
): Matrix {
  const lines = byCol ? transpose(m) : m;
  const sorted = lines
    .map((row, i) => ({ row, key: keyOf(row, i), i }))
    .sort((a, b) => {
      // blanks stay last whichever the direction
      if (a.key === null || b.key === null) return order(a.key, b.key) || a.i - b.i;
      return direction * order(a.key, b.key) || a.i - b.i;
    })
    .map((x) => x.row);
  return byCol ? transpose(sorted) : sorted;
}

function sort(...args: Args): GridValue {
  const [array, index, direction, byCol] = args;
  const m = matrix(array);
  const i = whole(index, 1);
  const d = whole(direction, 1);
  const by = toBoolean((byCol ?? false) as Scalar);
  if (isXlError(i)) return i;
  if (isXlError(d)) return d;
  if (isXlError(by)) return by;
  const width = by ? m.length : (m[0]?.length ?? 0);
  if (i < 1 || i > width || (d !== 1 && d !== -1)) return xlError('#VALUE!');
  return sortRows(m, by, (row) => row[i - 1] ?? null, d);
}

function sortby(...args: Args): GridValue {
  const [array, by, direction, ...more] = args;
  if (more.length > 0)
    throw new GridUnsupported('SORTBY with more than one array to sort by is not evaluated');
  const m = matrix(array);
  const keys = matrix(by);
  const d = whole(direction, 1);
  if (isXlError(d)) return d;
  if (d !== 1 && d !== -1) return xlError('#VALUE!');
  // a column of keys sorts rows; a row of keys sorts columns
  const byCol =
    keys.length === 1 && m.length === 1 ? (m[0]?.length ?? 0) > 1 : keys.length === 1 && keys[0]!.length > 1;
  const flat = byCol ? keys[0]! : keys.map((r) => r[0] ?? null);
  const lines = byCol ? (m[0]?.length ?? 0) : m.length;
  if (flat.length !== lines) return xlError('#VALUE!');
  return sortRows(m, byCol, (_row, i) => flat[i] ?? null, d);
}

function filter(...args: Args): GridValue {
  const [array, include, ifEmpty] = args;
  const m = matrix(array);
  const inc = matrix(include);
  const byRows = inc.length === m.length && (inc[0]?.length ?? 0) === 1;
  const byCols = inc.length === 1 && (inc[0]?.length ?? 0) === (m[0]?.length ?? 0) && m.length !== 1;
  if (!byRows && !(byCols || (inc.length === 1 && m.length === 1))) return xlError('#VALUE!');
  const flags = byRows ? inc.map((r) => r[0]!) : inc[0]!;
  const keep: boolean[] = [];
  for (const f of flags) {
    const b = toBoolean(f);
    if (isXlError(b)) return b;
    keep.push(b);
  }
  const out = byRows ? m.filter((_, i) => keep[i]) : transpose(transpose(m).filter((_, i) => keep[i]));
  if (out.length === 0 || (out[0]?.length ?? 0) === 0)
    return ifEmpty === undefined ? xlError('#CALC!') : ifEmpty;
  return out;
}

function sequence(...args: Args): GridValue {
  const [rows, cols, start, step] = args;
  const r = whole(rows, 1);
  const c = whole(cols, 1);
  if (isXlError(r)) return r;
  if (isXlError(c)) return c;
  const s = start === undefined || start === null ? 1 : toNumber(start as Scalar);
  const d = step === undefined || step === null ? 1 : toNumber(step as Scalar);
  if (isXlError(s)) return s;
  if (isXlError(d)) return d;
  if (r < 1 || c < 1) return xlError('#CALC!');
  if (r * c > 1_000_000) throw new GridUnsupported('SEQUENCE of more than a million cells is not evaluated');
  return Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => s + (i * c + j) * d));
}

/** The dynamic array functions by name (evaluated arguments, rows of cells). */
export const DYNAMIC_ARRAY_FUNCTIONS: [string, (...args: Args) => GridValue][] = [
  ['SORT', sort],
  ['SORTBY', sortby],
  ['UNIQUE', unique],
  ['FILTER', filter],
  ['SEQUENCE', sequence],
];

/** An array formula's result range (`K3:K10`), or undefined. */
export function spillBlock(
  range: string | undefined,
): { top: number; bottom: number; left: number; right: number } | undefined {
  const m = range ? /^([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)$/i.exec(range) : null;
  if (!m) return undefined;
  return { top: Number(m[2]), bottom: Number(m[4]), left: columnNumber(m[1]!), right: columnNumber(m[3]!) };
}

/**
 * A cell of a spill (`spillOf`): its anchor's key and its place in the anchor's result, whether the
 * anchor is a dynamic array (marked by Excel with cm=, or one of its functions outermost: past the
 * end of a shorter result its cells are blank, a legacy array's #N/A), and the anchor as an area.
 */
export function spillCellOf(
  book: Workbook,
  sheet: number,
  formula: FormulaInfo | undefined,
  row: number,
  col: number,
): { of: { key: string; dr: number; dc: number; dynamic: boolean }; anchor: Area } | undefined {
  const m = formula?.spillOf === undefined ? null : /^([A-Z]{1,3})(\d+)$/i.exec(formula.spillOf);
  if (!m) return undefined;
  const [r, c] = [Number(m[2]), columnNumber(m[1]!)];
  const anchor = book.sheets[sheet]!.cells.get(`${r}:${c}`)?.formula;
  const dynamic =
    anchor?.dynamic === true ||
    /^\s*_xlfn\.(?:_xlws\.)?(?:SORT|SORTBY|UNIQUE|FILTER|SEQUENCE)\(/i.test(anchor?.text ?? '');
  return {
    of: { key: gridKey(sheet, r, c), dr: row - r, dc: col - c, dynamic },
    anchor: { sheet, top: r, bottom: r, left: c, right: c },
  };
}

/**
 * An anchor's result within the range the workbook recorded for it; one that grows past it would
 * spill over cells the grid does not follow, and is not evaluated.
 */
export function fitSpill(v: GridValue, spill: { rows: number; cols: number }): Matrix {
  const m = isMatrix(v) ? v : [[v]];
  if (m.length > spill.rows || (m[0]?.length ?? 0) > spill.cols)
    throw new GridUnsupported(
      `the array's result (${m.length}×${m[0]?.length ?? 0}) grows past the range the workbook recorded for it (${spill.rows}×${spill.cols})`,
    );
  return m;
}

/**
 * Marks a formula cell of the grid: a cell of a spill reads its anchor (true: it has no formula of
 * its own); an anchor keeps the size of its result range.
 */
export function markSpill(
  book: Workbook,
  sheet: number,
  cell: { row: number; col: number; formula?: FormulaInfo },
  fc: FormulaCell,
): boolean {
  const spilled = spillCellOf(book, sheet, cell.formula, cell.row, cell.col);
  if (spilled) {
    fc.spillOf = spilled.of;
    fc.reads.push(spilled.anchor);
    return true;
  }
  const area = spillBlock(cell.formula?.spill);
  if (area) fc.spill = { rows: area.bottom - area.top + 1, cols: area.right - area.left + 1 };
  return false;
}
