/**
 * Whole rows and whole columns (`$1:$1`, `2:2`, `A:A`, `$B:$D`) read as the used part of their
 * sheet: from the first column (row) to the last one that holds anything in those rows (columns).
 * A lookup over a row still counts its positions from column A, as in a spreadsheet. Whole columns
 * of one table keep their own rule (the table's column, references.ts), and ROW, COLUMN, ROWS and
 * COLUMNS read a reference's position and size, not its cells, so their arguments stay whole.
 * A formula inside its own whole row or column reads itself: a circular reference, in Excel too.
 */
import type { Formula } from './formula.js';
import type { WorkbookScope } from './scope.js';
import type { Worksheet } from './xlsx.js';

type Range = Formula & { kind: 'range' };

const POSITIONS = new Set(['ROW', 'COLUMN', 'ROWS', 'COLUMNS']);

/** The last used column of each row and the last used row of each column of a sheet. */
interface Extent {
  rowEnd: Map<number, number>;
  colEnd: Map<number, number>;
}

function extentOf(sheet: Worksheet): Extent {
  const rowEnd = new Map<number, number>();
  const colEnd = new Map<number, number>();
  for (const c of sheet.cells.values()) {
    rowEnd.set(c.row, Math.max(rowEnd.get(c.row) ?? 0, c.col));
    colEnd.set(c.col, Math.max(colEnd.get(c.col) ?? 0, c.row));
  }
  return { rowEnd, colEnd };
}

/** The last entry of `ends` from `from` to `to` (at least 1: an empty row is read as its cell A). */
function lastOf(ends: Map<number, number>, from: number, to: number, max: number): number {
  let last = 1;
  for (let i = Math.max(1, from); i <= Math.min(to, max); i++) last = Math.max(last, ends.get(i) ?? 0);
  return last;
}

/** Rewrites the whole rows and columns of formulas written on `home`. */
export function usedPartReader(home: Worksheet, scope: WorkbookScope): (f: Formula) => Formula {
  const extents = new Map<Worksheet, Extent>();
  const extent = (sheet: Worksheet): Extent => {
    let e = extents.get(sheet);
    if (!e) extents.set(sheet, (e = extentOf(sheet)));
    return e;
  };
  const range = (f: Range): Formula => {
    const { from, to } = f;
    const wholeRows = from.col === 0 && to.col === 0;
    const wholeCols = from.row === 0 && to.row === 0 && from.col > 0;
    if (!wholeRows && !wholeCols) return f;
    const sheet = scope.sheet(f.sheet, home);
    // another workbook's sheet: left as written, rejected where it is read
    if (!sheet) return f;
    if (wholeRows) {
      const [top, bottom] = [Math.min(from.row, to.row), Math.max(from.row, to.row)];
      const right = lastOf(extent(sheet).rowEnd, top, bottom, sheet.maxRow);
      return { ...f, from: { ...from, col: 1, colAbs: true }, to: { ...to, col: right, colAbs: true } };
    }
    const [left, right] = [Math.min(from.col, to.col), Math.max(from.col, to.col)];
    const ofOneTable = scope.tables.some((t) => t.sheet === sheet && left >= t.left && right <= t.right);
    if (ofOneTable) return f;
    const bottom = lastOf(extent(sheet).colEnd, left, right, sheet.maxCol);
    return { ...f, from: { ...from, row: 1, rowAbs: true }, to: { ...to, row: bottom, rowAbs: true } };
  };
  const rewrite = (f: Formula): Formula => {
    switch (f.kind) {
      case 'range':
        return range(f);
      case 'call': {
        if (POSITIONS.has(f.name.toUpperCase().replace(/^_XLFN\./, ''))) return f;
        return { ...f, args: f.args.map(rewrite) };
      }
      case 'binary':
        return { ...f, left: rewrite(f.left), right: rewrite(f.right) };
      case 'unary':
      case 'percent':
        return { ...f, operand: rewrite(f.operand) };
      default:
        return f;
    }
  };
  return rewrite;
}
